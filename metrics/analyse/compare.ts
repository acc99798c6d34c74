/**
 * `compare RUN_A RUN_B`: per cell (matched by its key) and headline metric, the ratio of medians
 * B/A and a two-sided Mann-Whitney U p-value on the samples; significant (p < 0.05) regressions
 * and improvements are marked. `--fail-above R` exits 1 when a cell got slower by more than R
 * and significantly (for CI). Cells present in one run only are listed, never dropped.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { CellSummary, Stats } from './aggregate.ts';
import { cellKey, cellLabel, compareCells, type Cell } from '../core/cell.ts';
import { UsageError } from '../core/errors.ts';
import { markdownTable, ms } from '../core/format.ts';
import { loadRun, type ReportContext } from '../report/write.ts';
import { HEADLINE_METRICS, type Metric } from '../core/samples.ts';
import { mannWhitneyU } from './stats.ts';

export const ALPHA = 0.05;
export const COMPARE_METRICS: readonly Metric[] = HEADLINE_METRICS;

export type Verdict = 'regression' | 'improvement' | 'no significant change' | 'not comparable';

export interface CompareRow {
  cell: Cell;
  metric: Metric;
  a: Stats | undefined;
  b: Stats | undefined;
  /** median B / median A */
  ratio: number | undefined;
  p: number | undefined;
  verdict: Verdict;
  /** a significant regression above --fail-above */
  fails: boolean;
  /** with these sample counts no difference could reach p < 0.05 */
  tooFew: boolean;
}

export interface Comparison {
  rows: CompareRow[];
  onlyA: Cell[];
  onlyB: Cell[];
  failAbove: number | undefined;
}

/** The smallest two-sided p-value an exact test of sizes m and n can give: 2 / C(m + n, m). */
export function minimumP(m: number, n: number): number {
  let c = 1;
  for (let i = 1; i <= Math.min(m, n); i++) c = (c * (m + n - Math.min(m, n) + i)) / i;
  return Math.min(1, 2 / c);
}

export function compareRow(cell: Cell, metric: Metric, a: Stats | undefined, b: Stats | undefined, failAbove?: number): CompareRow {
  if (!a || !b) return { cell, metric, a, b, ratio: undefined, p: undefined, verdict: 'not comparable', fails: false, tooFew: false };
  const ratio = a.median > 0 ? b.median / a.median : undefined;
  const { p } = mannWhitneyU(a.values, b.values);
  const significant = p < ALPHA;
  const verdict: Verdict = !significant || ratio === undefined || ratio === 1 ? 'no significant change' : ratio > 1 ? 'regression' : 'improvement';
  return {
    cell,
    metric,
    a,
    b,
    ratio,
    p,
    verdict,
    fails: verdict === 'regression' && failAbove !== undefined && ratio !== undefined && ratio > failAbove,
    tooFew: minimumP(a.n, b.n) >= ALPHA,
  };
}

export function compareSummaries(a: CellSummary[], b: CellSummary[], failAbove?: number): Comparison {
  const inA = new Map(a.map((s) => [cellKey(s.cell), s]));
  const inB = new Map(b.map((s) => [cellKey(s.cell), s]));
  const both = a.filter((s) => inB.has(cellKey(s.cell))).sort((x, y) => compareCells(x.cell, y.cell));
  const rows = both.flatMap((sa) => {
    const sb = inB.get(cellKey(sa.cell))!;
    return COMPARE_METRICS.map((metric) => compareRow(sa.cell, metric, sa.metrics[metric], sb.metrics[metric], failAbove));
  });
  return {
    rows,
    onlyA: a.filter((s) => !inB.has(cellKey(s.cell))).map((s) => s.cell).sort(compareCells),
    onlyB: b.filter((s) => !inA.has(cellKey(s.cell))).map((s) => s.cell).sort(compareCells),
    failAbove,
  };
}

export function formatP(p: number | undefined): string {
  if (p === undefined) return '–';
  return p < 0.0001 ? '< 0.0001' : p < 0.01 ? p.toFixed(4) : p.toFixed(3);
}

function verdictText(row: CompareRow): string {
  if (row.verdict === 'not comparable') return `not comparable: no successful sample in ${row.a ? 'B' : row.b ? 'A' : 'A and B'}`;
  if (row.verdict === 'regression') return row.fails ? '**regression** ✗ (above --fail-above)' : '**regression**';
  if (row.verdict === 'improvement') return '**improvement**';
  return row.tooFew ? 'no significant change (too few samples for p < 0.05)' : 'no significant change';
}

function runLine(name: string, context: ReportContext): string {
  const meta = context.meta;
  return `- **${name}:** \`${context.dir}\`${meta ? ` (${meta.startedAt}; ${meta.machine.cpu}, ${meta.machine.cores} vCPUs; node ${meta.runtimes.node ?? meta.runner.node})` : ' (no meta.json)'}`;
}

export function compareMarkdown(comparison: Comparison, a: ReportContext, b: ReportContext): string {
  const rows = comparison.rows.map((r) => [
    cellLabel(r.cell),
    r.metric,
    ms(r.a?.median),
    ms(r.b?.median),
    r.ratio === undefined ? '–' : r.ratio.toFixed(3),
    formatP(r.p),
    `${r.a?.n ?? 0}/${r.b?.n ?? 0}`,
    verdictText(r),
  ]);
  const count = (v: Verdict) => comparison.rows.filter((r) => r.verdict === v).length;
  const failing = comparison.rows.filter((r) => r.fails).length;
  const lines = [
    '# Comparison of two runs',
    '',
    runLine('A', a),
    runLine('B', b),
    '',
    'Per cell and metric: the medians of A and B (ms from spawn), their ratio B/A (above 1: B is slower) and the two-sided Mann-Whitney U p-value of the samples (exact below 50 samples a side without ties, otherwise the normal approximation with tie and continuity correction). A change is marked only when p < 0.05; across many cells about 1 unchanged cell and metric in 20 still reaches that by chance, so weigh a lone mark by its ratio.',
    '',
  ];
  const machineA = a.meta && `${a.meta.machine.cpu}|${a.meta.runtimes.node}`;
  const machineB = b.meta && `${b.meta.machine.cpu}|${b.meta.runtimes.node}`;
  if (machineA && machineB && machineA !== machineB) lines.push('⚠ A and B ran on a different CPU or node version: part of any difference is the machine, not the code.', '');
  lines.push(
    rows.length
      ? markdownTable(['cell', 'metric', 'A median', 'B median', 'B/A', 'p', 'n A/B', 'verdict'], rows, ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'left'])
      : '_No cell is in both runs._',
    '',
    `${count('regression')} significant regression(s), ${count('improvement')} significant improvement(s), ${count('no significant change')} without significant change, ${count('not comparable')} not comparable.` +
      (comparison.failAbove !== undefined ? ` --fail-above ${comparison.failAbove}: ${failing ? `${failing} regression(s) above it: FAIL` : 'none above it: pass'}.` : ''),
  );
  if (comparison.onlyA.length || comparison.onlyB.length) {
    lines.push('', '## Cells in one run only', '');
    for (const cell of comparison.onlyA) lines.push(`- only in A: \`${cellLabel(cell)}\``);
    for (const cell of comparison.onlyB) lines.push(`- only in B: \`${cellLabel(cell)}\``);
  }
  return lines.join('\n') + '\n';
}

export interface CompareOptions {
  a: string;
  b: string;
  failAbove?: number;
  out?: string;
}

export interface CompareResult {
  comparison: Comparison;
  markdown: string;
  /** 1 when --fail-above tripped, else 0 */
  exitCode: number;
}

export function runCompare(options: CompareOptions): CompareResult {
  const a = loadRun(path.resolve(options.a));
  const b = loadRun(path.resolve(options.b));
  const comparison = compareSummaries(a.summaries, b.summaries, options.failAbove);
  const markdown = compareMarkdown(comparison, { ...a, dir: options.a }, { ...b, dir: options.b });
  if (options.out) {
    try {
      writeFileSync(options.out, markdown);
    } catch (error) {
      throw new UsageError(`--out: cannot write ${options.out}: ${(error as Error).message}`);
    }
  }
  return { comparison, markdown, exitCode: comparison.rows.some((r) => r.fails) ? 1 : 0 };
}

export function parseRatio(text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n >= 1)) throw new UsageError(`--fail-above: "${text}" is not a ratio of at least 1 (e.g. 1.10 for 10 % slower)`);
  return n;
}

export function registerCompareCommand(program: Command): void {
  program
    .command('compare')
    .description('compare two run folders: ratio of medians B/A per cell with a Mann-Whitney U p-value; markdown on stdout')
    .argument('<runA>', 'the baseline run folder')
    .argument('<runB>', 'the run folder to compare with it')
    .option('--fail-above <ratio>', 'exit 1 when a cell is slower in B by more than this ratio (e.g. 1.10) and significantly (p < 0.05)', parseRatio)
    .option('--out <file>', 'also write the markdown to FILE')
    .action((runA: string, runB: string, opts: Record<string, unknown>) => {
      const result = runCompare({ a: runA, b: runB, failAbove: opts.failAbove as number | undefined, out: opts.out as string | undefined });
      process.stdout.write(result.markdown);
      if (result.exitCode) process.exitCode = result.exitCode;
    });
}
