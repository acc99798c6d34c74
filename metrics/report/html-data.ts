/**
 * report.html's data: the points of its interactive charts, from the same summaries as summary.md
 * and the SVG charts. Every point carries the dimensions the run varies (as text) so that the
 * page's toggles can filter on them, and its figures formatted as summary.md writes them (ms()), so
 * a tooltip shows what the markdown shows.
 */
import type { CellSummary, Stats } from '../analyse/aggregate.ts';
import type { Calibration } from '../analyse/calibration.ts';
import { PHASES, phaseBreakdown, readyMark, seriesOf, type Series } from '../analyse/scaling.ts';
import { CELL_DIMENSIONS, cellKey, type Dimension } from '../core/cell.ts';
import { dimensionRow } from '../core/dimensions.ts';
import { ms } from '../core/format.ts';
import { evidenceText, extrapolatedMark } from './calibration.ts';
import { isBeyondEvidence } from '../analyse/estimate-interval.ts';

/** A dimension the run varies besides framework and routes: the page gets a toggle for it. */
export interface Toggle {
  dimension: Dimension;
  /** its values as text, in the order of the run's cells */
  values: string[];
}

/**
 * A toggle per dimension but those every chart shows anyway (series, axis) or that never vary within
 * the timed cells (the table's `toggle`).
 */
export function togglesOf(summaries: CellSummary[]): Toggle[] {
  return CELL_DIMENSIONS.filter((d) => dimensionRow(d).toggle !== false).flatMap((dimension) => {
    const values = [...new Set(summaries.map((s) => String(s.cell[dimension])))];
    return values.length > 1 ? [{ dimension, values }] : [];
  });
}

/** The toggled dimensions of a cell, as the fields a point carries. */
export function dimensionFields(summary: CellSummary, toggles: Toggle[]): Record<string, string> {
  return Object.fromEntries(toggles.map((t) => [t.dimension, String(summary.cell[t.dimension])]));
}

/** `low–high` as summary.md writes a range. */
export function rangeText(low: number | undefined, high: number | undefined): string {
  return low === undefined || high === undefined ? '–' : `${ms(low)}–${ms(high)}`;
}

/** What Lambda adds, as `median (low–high)`. */
export function additionText(a: { median: number; low: number; high: number } | undefined): string {
  return a ? `${ms(a.median)} (${rangeText(Math.min(a.low, a.high), Math.max(a.low, a.high))})` : '–';
}

export interface CurveDatum extends Record<string, string | number | boolean> {
  series: string;
  framework: string;
  routes: number;
  median: number;
  /** the 95 % CI of the median (the band), or the median itself with one sample */
  low: number;
  high: number;
  n: number;
  /** max/min > 1.5 (summary.md's ⚠) */
  wide: boolean;
  medianText: string;
  ciText: string;
  rangeText: string;
}

export type CurveMetric = 'firstResponse' | 'ready';

function curveDatum(series: Series, summary: CellSummary, stats: Stats, toggles: Toggle[]): CurveDatum {
  return {
    ...dimensionFields(summary, toggles),
    series: series.label,
    framework: summary.cell.framework,
    routes: summary.cell.routes,
    median: stats.median,
    low: stats.ci95?.low ?? stats.median,
    high: stats.ci95?.high ?? stats.median,
    n: stats.n,
    wide: stats.wide,
    medianText: `${ms(stats.median)}${stats.wide ? ' ⚠ wide spread' : ''}`,
    ciText: stats.ci95 ? rangeText(stats.ci95.low, stats.ci95.high) : '– (one sample)',
    rangeText: rangeText(stats.min, stats.max),
  };
}

/**
 * Median against routes per series: `firstResponse`, or `ready` (a server's listen, a Lambda
 * handler's init: the mark that ends its start).
 */
export function curveData(summaries: CellSummary[], metric: CurveMetric, toggles: Toggle[]): CurveDatum[] {
  return seriesOf(summaries).flatMap((series) =>
    series.cells.flatMap((s) => {
      const stats = s.metrics[metric === 'ready' ? readyMark(s) : 'firstResponse'];
      return stats ? [curveDatum(series, s, stats, toggles)] : [];
    }),
  );
}

export interface PhaseDatum extends Record<string, string | number> {
  series: string;
  routes: number;
  phase: string;
  order: number;
  ms: number;
  msText: string;
}

/** Each phase of each cell (median of its per-sample durations), at every route count. */
export function phaseData(summaries: CellSummary[], toggles: Toggle[]): PhaseDatum[] {
  return seriesOf(summaries).flatMap((series) =>
    series.cells.flatMap((s) => {
      const phases = phaseBreakdown(s);
      if (!phases) return [];
      return PHASES.map((p, order) => ({
        ...dimensionFields(s, toggles),
        series: series.label,
        routes: s.cell.routes,
        phase: p.name,
        order,
        ms: phases[p.name],
        msText: ms(phases[p.name]),
      }));
    }),
  );
}

export interface EstimateDatum extends Record<string, string | number> {
  series: string;
  routes: number;
  estimate: number;
  estimateText: string;
  /** the estimate's interval (estimate-interval.ts); the estimate itself where the cell has none */
  low: number;
  high: number;
  intervalText: string;
  measuredText: string;
  additionText: string;
  setting: string;
  /** EVIDENCE_STATES: within the evidence on both terms, or beyond it on either (no interval then) */
  state: string;
  evidence: string;
}

/** The two states of an estimate's evidence, as the chart's legend names them. */
export const EVIDENCE_STATES = ['within the fitted range', 'beyond evidence'] as const;

/** The estimates the fit covers, per setting: from the real hello world to it plus (1 + k) × the largest fitted excess. */
export interface CalibratedBand extends Record<string, string | number> {
  setting: string;
  low: number;
  high: number;
  text: string;
}

/** Local Lambda cells with an Init estimate: the estimate on Lambda against routes. */
export function estimateData(summaries: CellSummary[], calibration: Map<string, Calibration>, toggles: Toggle[]): EstimateDatum[] {
  return seriesOf(summaries).flatMap((series) =>
    series.cells.flatMap((s) => {
      const c = calibration.get(cellKey(s.cell));
      if (!c?.init) return [];
      const interval = c.init.interval;
      return [
        {
          ...dimensionFields(s, toggles),
          series: series.label,
          routes: s.cell.routes,
          estimate: c.init.estimate,
          estimateText: ms(c.init.estimate),
          low: interval?.low ?? c.init.estimate,
          high: interval?.high ?? c.init.estimate,
          intervalText: extrapolatedMark(c) || (interval ? `${ms(interval.low)}–${ms(interval.high)}` : '–'),
          measuredText: ms(c.init.measured),
          additionText: additionText(c.init.addition),
          setting: `${c.runtime} ${c.architecture} ${c.memoryMB} MB`,
          state: isBeyondEvidence(c.init) ? EVIDENCE_STATES[1] : EVIDENCE_STATES[0],
          evidence: evidenceText(c),
        },
      ];
    }),
  );
}

/** The band of estimates the code-loading term's fit covers, one per setting the cells are estimated at. */
export function calibratedBands(calibration: Map<string, Calibration>): CalibratedBand[] {
  const bands = new Map<string, CalibratedBand>();
  for (const c of calibration.values()) {
    const term = c.init?.codeLoading;
    if (!term || !c.row) continue;
    const setting = `${c.runtime} ${c.architecture} ${c.memoryMB} MB`;
    const low = c.row.initMs.median;
    const high = low + (1 + term.coefficient) * term.fittedUpToMs;
    bands.set(setting, {
      setting,
      low,
      high,
      text: `${ms(low)}–${ms(high)} (excess up to ${ms(term.fittedUpToMs)} ms at the fit's speed)`,
    });
  }
  return [...bands.values()];
}
