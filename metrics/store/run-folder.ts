/**
 * Every file a run folder holds: the raw data a run writes, the report written from it, the charts,
 * and hidden files such as the run's lock. An output option that names a file (`--export-json`,
 * compare's `--out`) may name none of them (cli/output-file.ts); test/unit/run-folder.test.ts checks
 * that every file the report writes is here.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { checkOwnedInput, LinkInOwnedFolder } from './files.ts';
import { ATTRIBUTION_FILE } from '../core/attribution.ts';
import { HYPERFINE_FILE } from '../core/hyperfine.ts';
import { META_FILE } from '../core/meta.ts';
import { SAMPLES_FILE } from '../core/samples.ts';

/** The raw data: what the run measured (samples, meta, the profiles' attribution, hyperfine's figures). */
const RAW_FILES: readonly string[] = [SAMPLES_FILE, META_FILE, ATTRIBUTION_FILE, HYPERFINE_FILE];

/** The report (report/write.ts) besides its charts. */
const REPORT_FILES: readonly string[] = [
  'summary.md',
  'summary.csv',
  'levers.md',
  'scaling.md',
  'scaling.csv',
  'attribution.md',
  'report.html',
  'verify.md',
];

/** The charts: their names vary with what the run measured. */
const CHART = /^chart-[\w-]*\.svg$/;

/**
 * Refuse (LinkInOwnedFolder, exit 2) a run folder in which a file the tool will write is a symbolic
 * link: said before anything is measured or written, rather than by the write that would meet it. For
 * a run (`writes: 'run'`) that is every file of a run folder; for a report (`'report'`) the report's
 * files and charts, while the inputs it reads (samples.jsonl, meta.json) may be links inside the
 * folder, never out of it. The folder itself may be a link (the user named it).
 */
export function refuseRunFolderLinks(dir: string, writes: 'run' | 'report'): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // absent, or not a folder: the caller's own check says so
  }
  for (const name of names.sort()) {
    // hidden files (a lock, a temporary) are made with O_EXCL, which never follows a link
    const written = writes === 'run' ? isRunFile(name) : REPORT_FILES.includes(name) || CHART.test(name);
    if (!written || name.startsWith('.')) continue;
    try {
      if (lstatSync(path.join(dir, name)).isSymbolicLink()) throw new LinkInOwnedFolder(path.join(dir, name), dir);
    } catch (error) {
      if (error instanceof LinkInOwnedFolder) throw error;
    }
  }
  // the inputs may be links inside the folder, never out of it
  checkOwnedInput(path.join(dir, SAMPLES_FILE));
  checkOwnedInput(path.join(dir, META_FILE));
}

/** Whether `name` is a file a run writes into its folder (raw data, report, chart, or a hidden file). */
export function isRunFile(name: string): boolean {
  return RAW_FILES.includes(name) || REPORT_FILES.includes(name) || CHART.test(name) || name.startsWith('.');
}
