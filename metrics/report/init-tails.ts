/**
 * The tail of the Lambda estimate in the report (analyse/init-tails.ts has the model): in summary.md's
 * estimate table, the p95 and p99 of Init and of the first Duration beside each median, and how they
 * are computed; in summary.csv, their columns beside the estimate's.
 */
import type { CellSummary } from '../analyse/aggregate.ts';
import type { Calibration } from '../analyse/calibration.ts';
import { tailsOf, type Tail } from '../analyse/init-tails.ts';
import { cellKey } from '../core/cell.ts';
import { ms, round3 } from '../core/format.ts';
import type { CsvColumn, ReportContext } from './contract.ts';

/** How the tails are computed, printed above the estimate table. */
export const TAILS_NOTE =
  "Tails of the estimate (p95 / p99, ms, beside each median). **Init**: the estimate plus the real reference's own spread, its p95 (p99) " +
  "minus its median (the calibration table's hello world: every cold start of its days, same line, architecture and memory " +
  "size): what makes a cold start slower than the median is the platform's, the same ms for every function; the spread here is " +
  "this machine's and is not added. **Duration**: the cell's invocation CPU time at its 95th (99th) percentile through " +
  'the same CPU share model (lambda-perf publishes no per-invocation Duration; not validated). Checked against public real ' +
  'distributions in docs/guide/lambda.md ("Tails of the estimate"): with the code-loading term, every real Init p95 within ' +
  "±7 % and all 22 p95 and p99 within ±25 % (leave-one-out); the median's error is the tail's.";

/** The p95 and p99 of a cell's Init and Duration estimates, for the estimate table's columns beside each median. */
export function tailCells(c: Calibration): { init: string; duration: string } {
  const tails = tailsOf(c);
  const text = (t: Tail | undefined) => (t ? `${ms(t.p95)} / ${ms(t.p99)}` : '–');
  return { init: text(tails.init), duration: text(tails.duration) };
}

/** Why some Init estimates have no tail (an old calibration table), as lines of the section. */
export function tailsMissing(context: ReportContext): string[] {
  const why = new Set([...context.calibration.values()].flatMap((c) => (c.init ? (tailsOf(c).missing ?? []) : [])));
  return [...why].map((m) => `- no Init tail: ${m}; refresh it (npm run lambda:reference -- --lambda-perf DIR) and report again`);
}

/** summary.csv's tail columns for one architecture's calibration (`suffix`: '' or `_<architecture>`). */
export function tailCsvColumns(calibration: Map<string, Calibration>, suffix: string): CsvColumn[] {
  const pick = (f: (t: ReturnType<typeof tailsOf>) => number | undefined) => (s: CellSummary) => {
    const c = calibration.get(cellKey(s.cell));
    return c ? round3(f(tailsOf(c))) : '';
  };
  return [
    { header: `estimate_init_duration_p95_ms${suffix}`, value: pick((t) => t.init?.p95) },
    { header: `estimate_init_duration_p99_ms${suffix}`, value: pick((t) => t.init?.p99) },
    { header: `estimate_duration_p95_ms${suffix}`, value: pick((t) => t.duration?.p95) },
    { header: `estimate_duration_p99_ms${suffix}`, value: pick((t) => t.duration?.p99) },
  ];
}
