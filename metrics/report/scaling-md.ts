/** scaling.md: the linear fits per series, growth faster than linear in words, and the phase breakdown. */
import { markdownCode, markdownText } from '../core/escape.ts';
import { appsRun } from './markdown.ts';
import type { CellSummary } from '../analyse/aggregate.ts';
import { cellLabel } from '../core/cell.ts';
import type { MarkdownSection, ReportContext } from './contract.ts';
import {
  MIN_CURVE_POINTS,
  MIN_FIT_POINTS,
  PHASES,
  phaseBreakdown,
  readyMark,
  scalingFits,
  SUPERLINEAR_SLOPE,
  type ScalingFit,
} from '../analyse/scaling.ts';
import { markdownTable, ms } from '../core/format.ts';
import { BUDGET_NOTE, curveSection, curveTable, reportCurves, SCALING_CSV } from './curve-md.ts';

/** summary.md's curve tables: first response, then ready; the budget's note when the run has one. */
function curveTables(context: ReportContext): string[] {
  const curves = reportCurves(context);
  return [
    ...(context.budgetMs !== undefined ? [BUDGET_NOTE, ''] : []),
    curveTable(curves, 'firstResponse', context.budgetMs),
    '',
    curveTable(curves, 'ready', context.budgetMs),
  ];
}

export function growthText(f: ScalingFit): string {
  if (!f.fit || !f.growth) return `needs ≥ ${MIN_FIT_POINTS} N`;
  if (!f.growth.determined) return f.growth.reason;
  if (f.growth.superlinear) return '**faster than linear**';
  return isFlat(f) ? 'flat' : 'linear';
}

/** Routes add nothing measurable: the slope is not distinguishable from 0, or is negative. */
function isFlat(f: ScalingFit): boolean {
  return Boolean(f.fit) && (!f.fit!.slopeSignificant || f.fit!.perRouteMs <= 0);
}

/** What one fit says, in one sentence. */
export function fitSentence(f: ScalingFit): string {
  const name = `${f.series.label} ${f.mark ?? f.metric}`;
  if (!f.fit || !f.growth) {
    const distinct = new Set(f.points.map(([n]) => n)).size;
    return `${name}: ${distinct} distinct route count${distinct === 1 ? '' : 's'}; a fit needs at least ${MIN_FIT_POINTS}.`;
  }
  const perRoute = `${ms(f.fit.perRouteMs * 1000)} µs per route`;
  if (!f.growth.determined)
    return (
      `${name}: a line through ${new Set(f.points.map(([n]) => n)).size} route counts, ${ms(f.fit.fixedMs)} ms fixed + ${perRoute} ` +
      `(R² ${f.fit.r2.toFixed(3)}); growth ${f.growth.reason}: a curve needs at least ${MIN_CURVE_POINTS}.`
    );
  if (f.growth.superlinear) return `**${name} grows faster than linearly with routes** (${f.growth.reason}).`;
  if (isFlat(f))
    return (
      `${name} shows no measurable growth with routes (${perRoute} on top of ${ms(f.fit.fixedMs)} ms; ` +
      'the slope is not distinguishable from 0).'
    );
  return `${name} grows about linearly with routes: ${ms(f.fit.fixedMs)} ms fixed + ${perRoute} (R² ${f.fit.r2.toFixed(3)}).`;
}

export function fitTable(fits: ScalingFit[]): string {
  const rows = fits.map((f) => [
    f.series.label,
    f.mark ?? f.metric,
    String(new Set(f.points.map(([n]) => n)).size),
    f.fit ? ms(f.fit.fixedMs) : '–',
    f.fit ? ms(f.fit.perRouteMs * 1000) : '–',
    f.fit ? f.fit.r2.toFixed(3) : '–',
    f.growth?.logLogSlope !== undefined ? f.growth.logLogSlope.toFixed(2) : '–',
    growthText(f),
  ]);
  return markdownTable(
    ['framework', 'metric', 'N values', 'fixed (ms)', 'per route (µs/route)', 'R²', 'log-log slope (N ≥ 10)', 'growth'],
    rows,
    ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'left'],
  );
}

/** One row per cell: each phase as the median of its per-sample durations (ms). */
export function phaseTable(summaries: CellSummary[]): string {
  const rows = summaries.map((s) => {
    const phases = phaseBreakdown(s);
    return [cellLabel(s.cell), ...PHASES.map((p) => ms(phases?.[p.name])), ms(s.metrics.firstResponse?.median)];
  });
  return markdownTable(['', ...PHASES.map((p) => `${p.name} (ms)`), 'firstResponse (ms)'], rows, [
    'left',
    ...PHASES.map(() => 'right' as const),
    'right',
  ]);
}

export const PHASES_NOTE =
  'Phases: runtime boot = spawn → `start`, framework import = `start` → `imported`, ' +
  'route registration = `imported` → `startup`, listen = `startup` → `listen`, first request = `listen` → `firstResponse`. ' +
  'Each is the median of the per-sample differences, so they add up to about, not exactly, the firstResponse median.';

/** The phases' note, with what `listen` means for Lambda cells when the run has some. */
export function phasesNote(summaries: CellSummary[]): string {
  const lambda = summaries.some((s) => readyMark(s) === 'init');
  return lambda
    ? `${PHASES_NOTE} For a Lambda handler (which has no listen) the listen phase is \`startup\` → \`init\` (its first \`next\`, ` +
        'the end of INIT) and first request is `init` → `firstResponse`; the scaling fits take `init` where a server has `listen`.'
    : PHASES_NOTE;
}

export const FIT_NOTE = [
  'Per framework (and every other dimension but routes), a least-squares line `time = fixed + perRoute × N` through the cell medians: ' +
    'fixed is the cost at N = 0 (ms), perRoute the cost each route adds (µs/route), ' +
    "R² how much of the medians' variation the line explains.",
  `Growth is **faster than linear** when the log-log slope of the median on N ≥ 10 is above ${SUPERLINEAR_SLOPE} ` +
    '(linear growth on top of a fixed cost has a slope below 1), or when ' +
    "a quadratic fit's N² term is positive, significant (partial F-test, p < 0.05) and at least 10 % of the time at the largest N. " +
    "It is **flat** when the line's slope is not distinguishable from 0 (t-test, p < 0.05) or is negative. " +
    `A fit needs at least ${MIN_FIT_POINTS} distinct N; a growth class at least ${MIN_CURVE_POINTS} (with fewer, "not determined").`,
].join('\n\n');

export function scalingMarkdown(context: ReportContext): string {
  const fits = scalingFits(context.summaries);
  const run = context.meta ? `${markdownText(context.meta.startedAt)}, ${markdownCode(context.meta.command)}` : markdownCode(context.dir);
  return [
    '# Scaling with routes',
    '',
    `Run: ${run}. Back to [summary.md](summary.md).`,
    '',
    '## The cost of a route: fitted curves on the samples (ms per route)',
    '',
    ...curveSection(context),
    '',
    '## Fits on the medians',
    '',
    FIT_NOTE,
    '',
    fits.length ? fitTable(fits) : '_No cell to fit._',
    '',
    '## In words',
    '',
    ...(fits.length ? fits.map((f) => `- ${fitSentence(f)}`) : ['_No cell to fit._']),
    '',
    '## Phase breakdown per cell (median ms)',
    '',
    phasesNote(context.summaries),
    '',
    phaseTable(context.summaries),
    '',
  ].join('\n');
}

export function scalingSection(context: ReportContext): MarkdownSection {
  const fits = scalingFits(context.summaries);
  return {
    title: 'Scaling with routes',
    body: [
      `The cost of one more route, in ms per route, from the curve each series' samples support; method in [scaling.md](scaling.md), ` +
        `every figure in [${SCALING_CSV}](${SCALING_CSV}).`,
      '',
      ...(fits.length ? curveTables(context) : ['_No cell to fit._']),
      '',
      'Fits of `time = fixed + perRoute × N` on the medians, per framework (µs per route): the straight line through the medians.',
      '',
      fits.length ? fitTable(fits) : '_No cell to fit._',
      '',
      ...fits.map((f) => `- ${fitSentence(f)}`),
    ].join('\n'),
  };
}

export function chartsSection(): MarkdownSection {
  return {
    title: 'Charts',
    body: [
      '![firstResponse (median, 95 % CI) vs routes, log-log](chart-firstresponse.svg)',
      '',
      '![listen (median, 95 % CI) vs routes, log-log](chart-listen.svg)',
      '',
      'Files: [chart-firstresponse.svg](chart-firstresponse.svg), [chart-listen.svg](chart-listen.svg), ' +
        '[chart-phases.svg](chart-phases.svg).',
    ].join('\n'),
  };
}

export function phasesSection(context: ReportContext): MarkdownSection {
  return {
    title: 'Where the time goes (phases)',
    body: [
      context.phasesAt === undefined
        ? ''
        : `![phase breakdown${appsRun(context.meta) ? '' : ` at N = ${context.phasesAt}`}](chart-phases.svg)\n`,
      phasesNote(context.summaries),
      '',
      phaseTable(context.summaries),
    ]
      .filter((line, i) => i > 0 || line)
      .join('\n'),
  };
}
