/**
 * RESULTS.md of a results folder: every run folder under DIR/published/ read through its own report
 * (loadRun, nothing written into it) and written as one Markdown page (report/results-md.ts).
 * `results-index` writes it beside index.html; test/unit/results-page.test.ts fails when the
 * committed page differs from what this makes of the committed run folders.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { writeOwnedFile } from '../store/files.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { HTML_REPORT } from '../report/html.ts';
import { resultsMarkdown, type PublishedContext } from '../report/results-md.ts';
import { loadRun } from '../report/write.ts';

export const RESULTS_PAGE = 'RESULTS.md';
const PUBLISHED = 'published';

/** The run folders under DIR/published/, by name (hidden folders and files left out), with the report files each holds. */
export function publishedFolders(dir: string): { name: string; folder: string; files: string[] }[] {
  const published = path.join(dir, PUBLISHED);
  if (!existsSync(published)) return [];
  return readdirSync(published, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const folder = path.join(published, name);
      return { name, folder, files: [HTML_REPORT, 'summary.md'].filter((file) => existsSync(path.join(folder, file))) };
    });
}

/** The page DIR/RESULTS.md should hold (nothing written). */
export function resultsPageOf(dir: string): string {
  const runs: PublishedContext[] = publishedFolders(dir).map(({ name, folder, files }) =>
    // a folder without samples is listed, saying so: index.html lists it too
    existsSync(path.join(folder, SAMPLES_FILE)) ? { name, context: loadRun(folder), files } : { name, files },
  );
  return resultsMarkdown(runs, PUBLISHED);
}

/** Writes DIR/RESULTS.md; returns the file. */
export function writeResultsPage(dir: string): string {
  return writeOwnedFile(dir, RESULTS_PAGE, resultsPageOf(dir));
}
