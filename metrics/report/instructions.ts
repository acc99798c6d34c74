/**
 * The counted cells (measure `instructions`) in summary.md: a table of the instructions of every
 * phase with the spread of repeated counts, each framework's counts beside its timed CPU and wall
 * time from the same run (how far the proxy holds), the fits of instructions per route, and a
 * stacked phase chart in instructions (chart-phases-instructions.svg).
 */
import type { TopLevelSpec } from 'vega-lite';
import type { CellSummary } from '../analyse/aggregate.ts';
import { INSTRUCTION_FIGURE_TEXT, relativeSpread, type InstructionFigure } from '../analyse/instructions.ts';
import { checkGrowth, fitLinear, MIN_FIT_POINTS, seriesOf } from '../analyse/scaling.ts';
import { APP_SOURCE, cellKey, cellLabel, makeCell } from '../core/cell.ts';
import { markdownTable, ms } from '../core/format.ts';
import { markdownText } from '../core/escape.ts';
import type { TimeEstimateMeta } from '../core/meta.ts';
import { estimatedMs } from '../analyse/proxy-fit.ts';
import { CHART_CONFIG, renderSvg } from './charts.ts';
import type { MarkdownSection, ReportContext } from './contract.ts';

export const INSTRUCTIONS_CHART = 'chart-phases-instructions.svg';

const PHASE_FIGURES = [
  'boot',
  'ready',
  'import',
  'registration',
  'listen',
  'init',
  'firstRequest',
] as const satisfies readonly InstructionFigure[];
const PHASE_NAMES: Record<(typeof PHASE_FIGURES)[number], string> = {
  boot: 'runtime boot',
  ready: 'app start-up',
  import: 'framework import',
  registration: 'route registration',
  listen: 'listen',
  init: 'rest of INIT',
  firstRequest: 'first request',
};

export function hasCounts(context: Pick<ReportContext, 'counted'>): boolean {
  return context.counted.length > 0;
}

/** Millions of instructions, 1 decimal below 100 M, else whole. */
export function millions(value: number | undefined): string {
  if (value === undefined) return '–';
  const m = value / 1e6;
  return m < 100 ? m.toFixed(1) : Math.round(m).toLocaleString('en-US');
}

function spreadText(s: CellSummary): string {
  const total = s.instructions?.total;
  if (!total || total.n < 2) return '–';
  return `${(relativeSpread(total) * 100).toFixed(3)} % (${total.n})`;
}

/** The timed cell with the same dimensions as a counted one, if the run has it. */
function timedTwin(s: CellSummary, timed: readonly CellSummary[]): CellSummary | undefined {
  const key = cellKey(makeCell({ ...s.cell, measure: 'time' }));
  return timed.find((t) => cellKey(t.cell) === key);
}

/** A cell's estimated cycles to the first answer (M) and their ratio to its instructions. */
function cycleCells(s: CellSummary): string[] {
  const cycles = s.cycles?.total?.median;
  const instructions = s.instructions?.total?.median;
  return [millions(cycles), cycles !== undefined && instructions ? (cycles / instructions).toFixed(2) : '–'];
}

/** A cell's estimated CPU ms by the run's recorded fit, `†` when the cell is beyond the fit's evidence. */
function estimateCell(s: CellSummary, fit: TimeEstimateMeta): string {
  const estimate = estimatedMs(s, fit);
  return estimate ? `${ms(estimate.ms)}${estimate.beyond ? ' †' : ''}` : '–';
}

/** Under the table: what the estimate is, its source, date and error, and what † means (the fit's data are meta.json's: escaped). */
function estimateNote(fit: TimeEstimateMeta): string {
  const count = fit.count === 'cycles' ? 'estimated cycles' : 'instructions';
  const signed = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(1)} %`;
  const frameworks = fit.dimensions.framework ?? [];
  return (
    `✱ **est. CPU ms**: the cell's ${count} to the first answer × ${fit.msPerMillion.toFixed(3)} ms per million, the fit of ` +
    `${count} to quiet CPU time over ${fit.cells} published cells on a ${markdownText(fit.machine)} ` +
    `(${markdownText(fit.finding)}, ${markdownText(fit.date)}; median error ${fit.medianErrorPct.toFixed(1)} %, worst ` +
    `${markdownText(fit.worst.cell)} ${signed(fit.worst.errorPct)}): a model of that machine, not a measurement, and no ` +
    "interval is given. † beyond the fit's evidence: a count larger than its largest cell's " +
    `(${millions(fit.largestCount)} M), or a cell unlike its cells (they were ` +
    `${frameworks.map(markdownText).join(', ')} on ${markdownText(fit.runtimeVersions.join(', '))}); there the figure ` +
    'extends the model where it was not checked.'
  );
}

function countsTable(counted: readonly CellSummary[], timed: readonly CellSummary[], fit: TimeEstimateMeta | undefined): string {
  const has = (figure: InstructionFigure) => counted.some((s) => s.instructions?.[figure]);
  // an app server's start-up is one phase (its preload marks no import or registration): with only
  // app servers, the generated cells' phases would be empty columns
  const app = has('ready');
  const split = !app || has('import') || has('registration');
  const figures: InstructionFigure[] = [
    'boot',
    ...(app ? (['ready'] as const) : []),
    ...(split ? (['import', 'registration'] as const) : []),
    ...(!app || has('listen') ? (['listen'] as const) : []),
    ...(has('init') ? (['init'] as const) : []),
    'firstRequest',
    'total',
  ];
  // under --cache-sim: the estimated cycles of the total, and how many a counted instruction stood for
  const cycles = counted.some((s) => s.cycles?.total);
  const rows = counted.map((s) => {
    const twin = timedTwin(s, timed);
    const cpu = twin?.cpu?.firstResponse?.median;
    const wall = twin?.metrics.firstResponse?.median;
    const total = s.instructions?.total?.median;
    const counted = s.metrics.firstResponse?.median;
    return [
      cellLabel(s.cell),
      ...figures.map((f) => millions(s.instructions?.[f]?.median)),
      spreadText(s),
      cpu === undefined ? '–' : ms(cpu),
      ...(fit ? [estimateCell(s, fit)] : []),
      wall === undefined ? '–' : ms(wall),
      total !== undefined && cpu ? (total / cpu / 1e6).toFixed(2) : '–',
      counted !== undefined && wall ? `${Math.round(counted / wall)}×` : '–',
      ...(cycles ? cycleCells(s) : []),
      `${s.ok}/${s.ok + s.failed}`,
    ];
  });
  const headers = [
    '',
    ...figures.map((f) => `${f === 'firstRequest' ? 'first request' : f === 'ready' ? 'app start-up' : f} (M)`),
    'spread (n)',
    'timed CPU (ms)',
    ...(fit ? ['est. CPU ms ✱'] : []),
    'timed wall (ms)',
    'M instr / CPU ms',
    'valgrind slowdown',
    ...(cycles ? ['est. cycles (M)', 'cycles / instr'] : []),
    'ok/samples',
  ];
  return markdownTable(headers, rows, ['left', ...headers.slice(1).map(() => 'right' as const)]);
}

/** Per series: instructions to the first answer = fixed + perRoute × N on the cells' medians. */
function fitsTable(counted: CellSummary[]): string {
  const rows = seriesOf(counted).flatMap((series) => {
    const points = series.cells.flatMap((s): [number, number][] => {
      const total = s.instructions?.total?.median;
      return total === undefined ? [] : [[s.cell.routes, total]];
    });
    if (new Set(points.map(([n]) => n)).size < MIN_FIT_POINTS)
      return [[series.label, '–', '–', '–', `needs ${MIN_FIT_POINTS} route counts`]];
    const fit = fitLinear(points);
    const growth = checkGrowth(points, fit);
    return [
      [
        series.label,
        millions(fit.fixedMs),
        Math.round(fit.perRouteMs).toLocaleString('en-US'),
        fit.r2.toFixed(4),
        growth.determined ? (growth.superlinear ? `faster than linear (${growth.reason})` : 'linear') : growth.reason,
      ],
    ];
  });
  return markdownTable(['series', 'fixed (M)', 'per route', 'R²', 'growth'], rows, ['left', 'right', 'right', 'right', 'left']);
}

function failureLines(counted: readonly CellSummary[]): string[] {
  return counted.flatMap((s) => [
    ...s.errors.map((e) => `- \`${cellLabel(s.cell)}\`: ${e.count} × ${e.reason}`),
    ...(s.unsupported ? [`- \`${cellLabel(s.cell)}\`: unsupported (${s.unsupported})`] : []),
  ]);
}

export function instructionsSection(context: ReportContext): MarkdownSection | undefined {
  if (!hasCounts(context)) return undefined;
  const counted = context.counted.filter((s) => !s.unsupported);
  const flags = context.meta?.spec.countFlags?.join(' ') ?? '--predictable --hash-seed=1 --random-seed=1';
  const failures = failureLines(context.counted);
  const app = counted.some((s) => s.instructions?.ready);
  const generated = counted.filter((s) => s.cell.source !== APP_SOURCE);
  // runs that recorded the fit (meta.json `timeEstimate`) have the estimated ms; older runs report as they did
  const fit = context.meta?.timeEstimate;
  const body = [
    `Counted cells ran under valgrind (callgrind) with \`node ${flags}\`: every figure is the number of instructions the ` +
      'process executed (all threads), in millions, median over the samples of the cell. The phases are cut at the ' +
      "probe's marks: runtime boot (exec → start), framework import, route registration, listen (or, for a Lambda " +
      'handler, the rest of INIT to its first `GET next`) and the first request (ready → the answer written); total = ' +
      'exec → the answer written. The answer is verified as in a timed sample. Counts leave out what the kernel does ' +
      '(system calls, reading files, page faults), waiting, and how threads overlap in real time: see ' +
      'docs/guide/counting-instructions.md ("What counts leave out").' +
      (app
        ? " Your own server (`measure --entry`) is cut at the preload's marks: boot, its start-up (start → listen: " +
          'its imports, its own work and its listen, as one phase) and the first request.'
        : ''),
    '',
    Object.entries(INSTRUCTION_FIGURE_TEXT)
      .filter(([f]) => f !== 'ready' || app)
      .map(([f, text]) => `\`${f}\`: ${text}`)
      .join('; ') + '.',
    '',
    "**spread**: (max − min) / median of the cell's total over its samples. **timed CPU / wall**: the median CPU and " +
      'wall time to firstResponse of the same cell timed in this run (`--measure time,instructions`); **M instr / CPU ms**: ' +
      'how many instructions one ms of CPU time stood for; **valgrind slowdown**: wall time to firstResponse under ' +
      'valgrind over the timed one.' +
      (counted.some((s) => s.cycles?.total)
        ? " **est. cycles**: under `--cache-sim`, valgrind's simulation of fixed caches (32 KiB L1, 8 MiB last level) " +
          "gives instructions + 10 × L1 misses + 100 × last-level misses, to the first answer (iai-callgrind's estimate; " +
          'summary.csv has every phase).'
        : ''),
    '',
    countsTable(counted, context.summaries, fit),
    '',
    ...(fit ? [estimateNote(fit), ''] : []),
    `![phases in instructions](${INSTRUCTIONS_CHART})`,
    // an app has one route count: only generated cells have a fit
    ...(generated.length
      ? ['', "**Instructions per route** (least squares on the cells' totals: total = fixed + per route × N):", '', fitsTable(generated)]
      : []),
    ...(failures.length ? ['', 'Counted samples that failed or cells not counted:', '', ...failures] : []),
  ];
  return { title: 'Instructions (counted cells)', body: body.join('\n') };
}

/** The phases in instructions, stacked per series at the phase chart's N. */
export function instructionsPhasesSpec(counted: CellSummary[], routes: number | undefined): TopLevelSpec {
  const title = `Where the cold start goes, in instructions${routes === undefined ? '' : ` at N = ${routes} routes`}`;
  const rows = seriesOf(counted).flatMap((series) => {
    const cell = series.cells.find((s) => s.cell.routes === routes) ?? series.cells[series.cells.length - 1];
    return PHASE_FIGURES.flatMap((figure, order) => {
      const median = cell?.instructions?.[figure]?.median;
      return median === undefined ? [] : [{ series: series.label, phase: PHASE_NAMES[figure], order, millions: median / 1e6 }];
    });
  });
  return {
    title: { text: title, subtitle: 'median instructions of each phase, counted under valgrind' },
    config: CHART_CONFIG,
    width: 640,
    height: Math.max(140, 44 * new Set(rows.map((r) => r.series)).size),
    data: { values: rows.length ? rows : [{ series: 'no data', phase: 'none', order: 0, millions: 0 }] },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'series', type: 'nominal', title: 'framework', sort: null },
      x: { field: 'millions', type: 'quantitative', title: 'millions of instructions (stacked)', stack: 'zero' },
      color: { field: 'phase', type: 'nominal', title: 'phase', sort: PHASE_FIGURES.map((f) => PHASE_NAMES[f]) },
      order: { field: 'order', type: 'ordinal' },
    },
  };
}

export function instructionsChart(context: ReportContext): Promise<string> {
  return renderSvg(instructionsPhasesSpec(context.counted, context.phasesAt));
}
