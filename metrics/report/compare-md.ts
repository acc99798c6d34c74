/** The markdown `compare` prints: both runs, a row per cell and metric, the verdicts and their count. */
import { markdownCode, markdownText } from '../core/escape.ts';
import {
  isCpuMetric,
  isInstructionMetric,
  metricDescription,
  recommendCpu,
  type CompareRow,
  type Comparison,
  type Verdict,
} from '../analyse/compare.ts';
import { cellLabel } from '../core/cell.ts';
import { markdownTable, ms, type Align } from '../core/format.ts';
import type { ReportContext } from './contract.ts';
import { runLoad } from './markdown.ts';

export function formatP(p: number | undefined): string {
  if (p === undefined) return '–';
  return p < 0.0001 ? '< 0.0001' : p < 0.01 ? p.toFixed(4) : p.toFixed(3);
}

function verdictText(row: CompareRow): string {
  if (row.verdict === 'not comparable' && row.notRecorded) return `not comparable: ${row.notRecorded}`;
  if (row.verdict === 'not comparable') return `not comparable: no successful sample in ${row.a ? 'B' : row.b ? 'A' : 'A and B'}`;
  if (row.verdict === 'regression') return row.fails ? '**regression** ✗ (above --fail-above)' : '**regression**';
  if (row.verdict === 'improvement') return '**improvement**';
  return row.tooFew ? 'no significant change (too few samples for p < 0.05)' : 'no significant change';
}

function runLine(name: string, context: ReportContext): string {
  const meta = context.meta;
  const node = meta ? (meta.runtimes.node ?? meta.runner.node) : '';
  const about = meta
    ? ` (${markdownText(`${meta.startedAt}; ${meta.machine.cpu}, ${meta.machine.cores} vCPUs; node ${node}`)})`
    : ' (no meta.json)';
  return `- **${name}:** ${markdownCode(context.dir)}${about}`;
}

/** A median in its metric's unit: ms, or whole instructions. */
function valueText(row: CompareRow, stats: CompareRow['a']): string {
  if (!isInstructionMetric(row.metric)) return ms(stats?.median);
  return stats ? Math.round(stats.median).toLocaleString('en-US') : '–';
}

/** The title, the two runs and how the comparison reads. */
function introLines(comparison: Comparison, a: ReportContext, b: ReportContext): string[] {
  return [
    '# Comparison of two runs',
    '',
    runLine('A', a),
    runLine('B', b),
    '',
    `Metric${comparison.metrics.length > 1 ? 's' : ''}: ${comparison.metrics.map((m) => `\`${m}\`, ${metricDescription(m)}`).join('; ')}.`,
    '',
    'Per cell and metric: the medians of A and B (ms), their ratio B/A (above 1: B is slower) and the two-sided Mann-Whitney U ' +
      'p-value of the samples (exact below 50 samples a side without ties, otherwise the normal approximation with tie and ' +
      'continuity correction). A change is marked only when p < 0.05; across many cells about 1 unchanged cell and metric in 20 ' +
      'still reaches that by chance, so weigh a lone mark by its ratio.',
    ...(comparison.metrics.some(isInstructionMetric)
      ? [
          '',
          'Instruction counts are deterministic up to a small spread, so they take no test: the p column shows the ' +
            `threshold instead (--threshold, ${(comparison.instructionThreshold * 100).toFixed(2)} %, or twice a cell's own ` +
            'spread when its repeated counts differed more), and a count that moved beyond it is a change, from one sample a side.',
        ]
      : []),
    '',
  ];
}

/** The warnings about the two runs: different machines, or a load that moved wall times. */
function warningLines(comparison: Comparison, a: ReportContext, b: ReportContext): string[] {
  const lines: string[] = [];
  const machineA = a.meta && `${a.meta.machine.cpu}|${a.meta.runtimes.node}`;
  const machineB = b.meta && `${b.meta.machine.cpu}|${b.meta.runtimes.node}`;
  if (machineA && machineB && machineA !== machineB) {
    const timed = comparison.metrics.some((m) => !isInstructionMetric(m));
    lines.push(
      timed
        ? '⚠ A and B ran on a different CPU or node version: wall and CPU times do not compare across machines (part of any ' +
            'difference is the machine, not the code); compare instruction counts (--measure instructions) instead.'
        : '⚠ A and B ran on a different CPU or node version: counts depend on the node build and on the CPU features that ' +
            'node, V8 and libc choose code by (AVX2 …): read a difference as partly the machine.',
      '',
    );
  }
  // wall times move with the machine's load; the child's CPU time barely does
  const advice = comparison.metrics.some((m) => !isCpuMetric(m) && !isInstructionMetric(m))
    ? recommendCpu(runLoad(a.meta), runLoad(b.meta))
    : undefined;
  if (advice) lines.push(`⚠ ${advice}.`, '');
  return lines;
}

/** The table of cells and metrics, or the line that says no cell is in both runs. */
function tableText(comparison: Comparison): string {
  const rows = comparison.rows.map((r) => [
    cellLabel(r.cell),
    r.metric,
    valueText(r, r.a),
    valueText(r, r.b),
    r.ratio === undefined ? '–' : r.ratio.toFixed(3),
    r.threshold === undefined ? formatP(r.p) : `±${(r.threshold * 100).toFixed(2)} %`,
    `${r.a?.n ?? 0}/${r.b?.n ?? 0}`,
    verdictText(r),
  ]);
  const header = ['cell', 'metric', 'A median', 'B median', 'B/A', 'p', 'n A/B', 'verdict'];
  const align: Align[] = ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'left'];
  return rows.length ? markdownTable(header, rows, align) : '_No cell is in both runs._';
}

export function compareMarkdown(comparison: Comparison, a: ReportContext, b: ReportContext): string {
  const count = (v: Verdict) => comparison.rows.filter((r) => r.verdict === v).length;
  const failing = comparison.rows.filter((r) => r.fails).length;
  const lines = [...introLines(comparison, a, b), ...warningLines(comparison, a, b)];
  lines.push(
    tableText(comparison),
    '',
    `${count('regression')} significant regression(s), ${count('improvement')} significant improvement(s), ` +
      `${count('no significant change')} without significant change, ${count('not comparable')} not comparable.` +
      (comparison.failAbove !== undefined
        ? ` --fail-above ${comparison.failAbove}: ${failing ? `${failing} regression(s) above it: FAIL` : 'none above it: pass'}.`
        : ''),
  );
  if (comparison.onlyA.length || comparison.onlyB.length) {
    lines.push('', '## Cells in one run only', '');
    for (const cell of comparison.onlyA) lines.push(`- only in A: \`${cellLabel(cell)}\``);
    for (const cell of comparison.onlyB) lines.push(`- only in B: \`${cellLabel(cell)}\``);
  }
  return lines.join('\n') + '\n';
}
