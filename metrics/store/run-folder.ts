/**
 * Every file a run folder holds: the raw data a run writes, the report written from it, the charts,
 * and hidden files such as the run's lock. An output option that names a file (`--export-json`,
 * compare's `--out`) may name none of them (cli/output-file.ts); test/unit/run-folder.test.ts checks
 * that every file the report writes is here.
 */
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

/** Whether `name` is a file a run writes into its folder (raw data, report, chart, or a hidden file). */
export function isRunFile(name: string): boolean {
  return RAW_FILES.includes(name) || REPORT_FILES.includes(name) || CHART.test(name) || name.startsWith('.');
}
