/** summary.csv: one row per cell with every headline statistic, written with csv-stringify. */
import { stringify } from 'csv-stringify/sync';
import { CELL_DIMENSIONS } from '../cell.ts';
import type { CellSummary } from '../aggregate.ts';
import { HEADLINE_METRICS } from '../samples.ts';
import { round3 } from './format.ts';

const STATS = ['median', 'mean', 'stddev', 'min', 'max'] as const;

export const SUMMARY_CSV_COLUMNS = [
  ...CELL_DIMENSIONS,
  'file',
  'samples',
  'failures',
  ...HEADLINE_METRICS.flatMap((metric) => STATS.map((stat) => `${metric}_${stat}_ms`)),
  'rss_median_bytes',
  'heap_used_median_bytes',
  'invalid_body',
  'runtime_version',
];

export function invalidBodyText(summary: CellSummary): string {
  if (!summary.invalidBody) return 'not checked';
  return summary.invalidBody.ok ? `rejected ${summary.invalidBody.status}` : `FAILED: ${summary.invalidBody.reason}`;
}

export function summaryCsv(summaries: CellSummary[], fileOf: (s: CellSummary) => string): string {
  const rows = summaries.map((s) => [
    ...CELL_DIMENSIONS.map((d) => s.cell[d]),
    fileOf(s),
    s.ok,
    s.failed,
    ...HEADLINE_METRICS.flatMap((metric) => STATS.map((stat) => round3(s.metrics[metric]?.[stat]))),
    s.rssMedian ?? '',
    s.heapUsedMedian ?? '',
    invalidBodyText(s),
    s.runtimeVersion ?? '',
  ]);
  return stringify(rows, { header: true, columns: SUMMARY_CSV_COLUMNS });
}
