/** compare's table of a local run's Lambda estimates against a real run's Init (analyse/estimate-vs-real.ts). */
import type { EstimateAgainstReal } from '../analyse/estimate-vs-real.ts';
import { cellLabel } from '../core/cell.ts';
import { markdownTable, ms } from '../core/format.ts';

const signed = (value: number | undefined) => (value === undefined ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(1)} %`);

export function estimateVsRealMarkdown(rows: readonly EstimateAgainstReal[], architecture: string, calibrationName: string): string {
  const table = markdownTable(
    ['cell', 'memory', 'Init estimate', 'interval', 'real p50', 'error p50', 'estimate p95', 'real p95', 'error p95', 'n real'],
    rows.map((row) => [
      cellLabel(row.cell),
      `${row.memoryMB} MB`,
      ms(row.estimate.p50),
      row.estimate.interval
        ? `${ms(row.estimate.interval.low)}–${ms(row.estimate.interval.high)}${row.withinInterval ? '' : ' (real outside)'}`
        : '–',
      ms(row.real.p50),
      signed(row.errorP50Pct),
      ms(row.estimate.p95),
      ms(row.real.p95),
      signed(row.errorP95Pct),
      String(row.real.n),
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  const absolute = rows.map((r) => Math.abs(r.errorP50Pct));
  const mean = absolute.reduce((sum, v) => sum + v, 0) / Math.max(1, absolute.length);
  return [
    '## Lambda estimate against the real Init',
    '',
    `A's estimates (calibration: ${calibrationName}; architecture ${architecture}) against B's real Init Duration, cell by cell ` +
      `(framework, routes, variant, memory size); error = (estimate − real) / real. Mean |error| of the p50: ${mean.toFixed(1)} % ` +
      `over ${rows.length} cell${rows.length === 1 ? '' : 's'}.`,
    '',
    table,
    '',
  ].join('\n');
}
