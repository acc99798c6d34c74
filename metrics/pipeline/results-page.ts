/**
 * RESULTS.md of a results folder: every run folder under DIR/published/ read through its own report
 * (loadRun, nothing written into it) and written as one Markdown page (report/results-md.ts).
 * `results-index` writes it beside index.html; test/unit/results-page.test.ts fails when the
 * committed page differs from what this makes of the committed run folders.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { writeFileWhole } from '../core/files.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { HTML_REPORT } from '../report/html.ts';
import { resultsMarkdown, type PublishedContext } from '../report/results-md.ts';
import { loadRun } from '../report/write.ts';

export const RESULTS_PAGE = 'RESULTS.md';
const PUBLISHED = 'published';

/** The page DIR/RESULTS.md should hold (nothing written). */
export function resultsPageOf(dir: string): string {
  const published = path.join(dir, PUBLISHED);
  const names = existsSync(published)
    ? readdirSync(published, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
        .map((entry) => entry.name)
        .sort()
    : [];
  const runs: PublishedContext[] = names.map((name) => {
    const folder = path.join(published, name);
    const files = [HTML_REPORT, 'summary.md'].filter((file) => existsSync(path.join(folder, file)));
    // a folder without samples is listed, saying so: index.html lists it too
    return existsSync(path.join(folder, SAMPLES_FILE)) ? { name, context: loadRun(folder), files } : { name, files };
  });
  return resultsMarkdown(runs, PUBLISHED);
}

/** Writes DIR/RESULTS.md; returns the file. */
export function writeResultsPage(dir: string): string {
  const file = path.join(dir, RESULTS_PAGE);
  writeFileWhole(file, resultsPageOf(dir));
  return file;
}
