/**
 * `results-index [DIR]`: write DIR/index.html (DIR: results/ by default), the page that lists the
 * run folders under DIR/published/ (none yet is an empty list, not an error). Folders are listed by
 * name; a folder's meta.json is read bounded and checked (a corrupt one is a UsageError naming it).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { ownedPath, writeOwnedFile } from '../store/files.ts';
import { readMeta } from '../store/meta-file.ts';
import { headlineOf, runsToQuote } from '../analyse/headline.ts';
import type { RunMeta } from '../core/meta.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { runLoad } from '../report/markdown.ts';
import { loadRun } from '../report/write.ts';
import { RESULTS_DIR } from '../measure/session.ts';
import { resultsIndexHtml, type PublishedRun } from '../report/index-html.ts';
import { indexCharts, type ChartedRun } from '../report/index-charts.ts';
import { publishedFolders, RESULTS_PAGE, writeResultsPage } from './results-page.ts';

export const RESULTS_INDEX = 'index.html';

/** The published run folders of `dir` (publishedFolders), each with its meta.json, report, headline and the questions to quote it for. */
function publishedRuns(dir: string): (PublishedRun & ChartedRun)[] {
  const runs = publishedFolders(dir).map(({ name, folder, files }) => {
    const meta = readMeta(folder);
    // a folder without samples is listed with what its meta.json says
    const context = existsSync(path.join(folder, SAMPLES_FILE)) ? loadRun(folder) : undefined;
    return { name, meta, files, context };
  });
  const quoted = runsToQuote(
    runs.flatMap(({ name, meta, context }) =>
      context
        ? [{ name, summaries: context.summaries, counted: context.counted, busy: runLoad(meta)?.busy ?? false, samples: samplesOf(meta) }]
        : [],
    ),
  );
  return runs.map(({ name, meta, files, context }) => {
    const headline = context && headlineOf(context.summaries, context.counted);
    const quote = quoted.get(name);
    return { name, meta, files, ...(context ? { context } : {}), ...(headline ? { headline } : {}), ...(quote ? { quote } : {}) };
  });
}

/** The timed samples a cell of the run asked for (`auto`: its maximum); 0 when meta.json does not say. */
function samplesOf(meta: RunMeta | undefined): number {
  const sampling = meta?.spec.sampling;
  if (!sampling) return 0;
  return typeof sampling.samples === 'number' ? sampling.samples : (sampling.precision?.maxSamples ?? 0);
}

/**
 * The folder is a results folder (it holds `published/`) or empty: any other folder (a project, a
 * system folder) would have its own index.html and RESULTS.md overwritten, so it is refused.
 */
function assertResultsFolder(root: string): void {
  if (existsSync(path.join(root, 'published')) || readdirSync(root).length === 0) return;
  throw new UsageError(
    `${root} is not a results folder (no published/ in it, and not empty): its index.html and RESULTS.md are not coldstart's to write`,
  );
}

/** The page `dir`/index.html should hold, with its charts, and how many runs it lists (nothing written). */
export async function resultsIndexOf(dir: string = RESULTS_DIR): Promise<{ html: string; runs: number }> {
  const root = path.resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new UsageError(`${root} is not a folder: give the results folder`);
  assertResultsFolder(root);
  const runs = publishedRuns(root);
  return { html: resultsIndexHtml(runs, await indexCharts(runs)), runs: runs.length };
}

/** Writes `dir`/index.html and `dir`/RESULTS.md (pipeline/results-page.ts); returns the files and how many runs they list. */
export async function writeResultsIndex(dir: string = RESULTS_DIR): Promise<{ file: string; page: string; runs: number }> {
  // index.html and RESULTS.md are the results folder's own: a link in their place is refused before either is written
  for (const own of [RESULTS_INDEX, RESULTS_PAGE]) ownedPath(path.resolve(dir), own);
  const { html, runs } = await resultsIndexOf(dir);
  const file = writeOwnedFile(path.resolve(dir), RESULTS_INDEX, html);
  return { file, page: writeResultsPage(path.resolve(dir)), runs };
}
