/**
 * The levers' answer (issue 29): for each app (framework × routes × everything that is not a build or
 * deploy choice), every variant of the levers a user changes (CHANGE_DIMENSIONS: build, compile
 * cache, runtime) with its cold start (median and p25–p75 of firstResponse), its Lambda Init estimate
 * (a local Lambda cell's calibration), its $ per million cold starts (cost.ts), the bytes it ships
 * (meta.json's `shipped`), and the Pareto front of the ranked ones: a variant is on it when no other
 * is at least as good on every objective and better on one. The objectives are the ones every ranked
 * variant has a figure for (cold start always; cost and size when known). A variant that is
 * unsupported, never answered or answered differently from the plain build is listed with its reason
 * and not ranked.
 */
import { ANSWERS_DIFFERENTLY } from '../core/app.ts';
import { cellKey, type Cell } from '../core/cell.ts';
import { CHANGE_DIMENSIONS } from '../core/dimensions.ts';
import { REFERENCE_FRAMEWORK } from '../core/lambda-platform.ts';
import type { ShippedMeta } from '../core/meta.ts';
import { quartiles, type CellSummary } from './aggregate.ts';
import type { Calibration } from './calibration.ts';
import { cellCost, type CellCost, type CostSettings } from './cost.ts';
import { beyondEvidenceText, type Interval } from './estimate-interval.ts';

export interface Spread {
  p50: number;
  p25: number;
  p75: number;
  n: number;
}

/** The bytes a variant ships: its code, and the compile cache beside it when it ships one. */
export interface ShippedBytes {
  bytes: number;
  code: number;
  compileCache?: number;
  /** what the code is, in words */
  what: string;
}

export interface AnswerVariant {
  summary: CellSummary;
  coldStart?: Spread;
  /**
   * a local Lambda cell: its measured Init and the estimate on Lambda, with the estimate's interval within its
   * evidence, or the mark it carries beyond it (estimate-interval.ts)
   */
  init?: { measured: number; estimate: number; interval?: Interval; beyondEvidence?: string };
  cost?: CellCost;
  /** the cost at the Billed interval's ends, for an estimate with one */
  costInterval?: Interval;
  shipped?: ShippedBytes;
  /** why it is not ranked (absent: ranked) */
  unranked?: string;
  front: boolean;
  fastest: boolean;
  cheapest: boolean;
  smallest: boolean;
}

export type Objective = 'coldStart' | 'cost' | 'bytes';

export interface AnswerGroup {
  /** the group's first cell (its change dimensions are the first variant's) */
  cell: Cell;
  /** ranked ones first, fastest to slowest; then the unranked */
  variants: AnswerVariant[];
  /** the objectives the front was decided on */
  objectives: Objective[];
}

export interface AnswerInputs {
  cost: CostSettings;
  /** local Lambda cells: cellKey → calibration (first architecture) */
  calibration: Map<string, Calibration>;
  shipped?: ShippedMeta;
}

/**
 * Which points are on the Pareto front, every objective minimised: a point is dominated when
 * another is at most its value on every objective and below it on at least one. Equal points are
 * all on the front.
 */
export function paretoFront(points: readonly (readonly number[])[]): boolean[] {
  return points.map((p, i) => points.every((q, j) => j === i || !(q.every((v, k) => v <= p[k]!) && q.some((v, k) => v < p[k]!))));
}

function spreadOf(summary: CellSummary): Spread | undefined {
  const stats = summary.metrics.firstResponse;
  if (!stats || stats.values.length === 0) return undefined;
  return { p50: stats.median, ...quartiles(stats), n: stats.n };
}

/** Why a variant is not ranked: unsupported, answered differently, or no sample answered. */
function unrankedReason(summary: CellSummary): string | undefined {
  if (summary.unsupported) return `unsupported: ${summary.unsupported}`;
  const differs = summary.errors.find((e) => e.reason.includes(ANSWERS_DIFFERENTLY));
  if (differs) return differs.reason;
  if (summary.ok === 0) return `failed: ${summary.errors[0]?.reason ?? 'no sample answered'}`;
  return undefined;
}

function shippedOf(summary: CellSummary, shipped: ShippedMeta | undefined): ShippedBytes | undefined {
  const key = cellKey(summary.cell);
  const code = shipped?.code[key];
  if (code?.bytes === undefined) return undefined;
  const cache = summary.cell.compileCache === 'warm' ? shipped?.compileCache?.[key] : undefined;
  return { bytes: code.bytes + (cache ?? 0), code: code.bytes, ...(cache !== undefined ? { compileCache: cache } : {}), what: code.what };
}

function initOf(init: NonNullable<Calibration['init']>): NonNullable<AnswerVariant['init']> {
  const beyondEvidence = beyondEvidenceText(init);
  return {
    measured: init.measured,
    estimate: init.estimate,
    ...(init.interval ? { interval: init.interval } : {}),
    ...(beyondEvidence ? { beyondEvidence } : {}),
  };
}

/** The cost at both ends of a Billed interval, priced as the estimate is. */
function costInterval(summary: CellSummary, inputs: AnswerInputs, billed: Interval): Interval | undefined {
  const low = cellCost(summary, inputs.cost, billed.low)?.perMillion;
  const high = cellCost(summary, inputs.cost, billed.high)?.perMillion;
  return low === undefined || high === undefined ? undefined : { low, high };
}

function variantOf(summary: CellSummary, inputs: AnswerInputs): AnswerVariant {
  const calibration = inputs.calibration.get(cellKey(summary.cell));
  const coldStart = spreadOf(summary);
  const cost = cellCost(summary, inputs.cost, calibration?.billedEstimate);
  const shipped = shippedOf(summary, inputs.shipped);
  const unranked = unrankedReason(summary) ?? (coldStart ? undefined : 'failed: no firstResponse recorded');
  return {
    summary,
    ...(coldStart ? { coldStart } : {}),
    ...(calibration?.init ? { init: initOf(calibration.init) } : {}),
    ...(cost ? { cost } : {}),
    ...(cost && calibration?.billedInterval ? { costInterval: costInterval(summary, inputs, calibration.billedInterval) } : {}),
    ...(shipped ? { shipped } : {}),
    ...(unranked ? { unranked } : {}),
    front: false,
    fastest: false,
    cheapest: false,
    smallest: false,
  };
}

const OBJECTIVE_VALUE: Record<Objective, (v: AnswerVariant) => number | undefined> = {
  coldStart: (v) => v.coldStart?.p50,
  cost: (v) => v.cost?.perMillion,
  bytes: (v) => v.shipped?.bytes,
};

/** The first variant with the lowest value of `objective` (undefined when none has one). */
function lowest(variants: AnswerVariant[], objective: Objective): AnswerVariant | undefined {
  let best: AnswerVariant | undefined;
  for (const v of variants) {
    const value = OBJECTIVE_VALUE[objective](v);
    if (value !== undefined && (best === undefined || value < OBJECTIVE_VALUE[objective](best)!)) best = v;
  }
  return best;
}

/** Rank one app's variants: the objectives every ranked variant has, the front, the fastest, cheapest and smallest. */
function rankGroup(variants: AnswerVariant[]): AnswerGroup {
  const ranked = variants.filter((v) => !v.unranked).sort((a, b) => a.coldStart!.p50 - b.coldStart!.p50);
  const unranked = variants.filter((v) => v.unranked);
  const objectives = (['coldStart', 'cost', 'bytes'] as const).filter(
    (o) => ranked.length > 0 && ranked.every((v) => OBJECTIVE_VALUE[o](v) !== undefined),
  );
  const front = paretoFront(ranked.map((v) => objectives.map((o) => OBJECTIVE_VALUE[o](v)!)));
  ranked.forEach((v, i) => (v.front = front[i]!));
  const mark = (objective: Objective, set: (v: AnswerVariant) => void) => {
    const best = objectives.includes(objective) ? lowest(ranked, objective) : undefined;
    if (best) set(best);
  };
  mark('coldStart', (v) => (v.fastest = true));
  mark('cost', (v) => (v.cheapest = true));
  mark('bytes', (v) => (v.smallest = true));
  return { cell: variants[0]!.summary.cell, variants: [...ranked, ...unranked], objectives };
}

/** The key of a cell's app: every dimension but the ones a user changes. */
function subjectKey(cell: Cell): string {
  return JSON.stringify({ ...cell, ...Object.fromEntries(CHANGE_DIMENSIONS.map((d) => [d, null])) });
}

/**
 * Whether some app of a run has more than one variant (the answer table is written, and what each cell
 * ships recorded, only then): a server beside a Lambda cell differs in runtime, but as two apps.
 */
export function hasVariants(cells: readonly Cell[]): boolean {
  const seen = new Map<string, string>();
  for (const cell of cells) {
    if (cell.framework === REFERENCE_FRAMEWORK) continue;
    const subject = subjectKey(cell);
    const variant = CHANGE_DIMENSIONS.map((d) => cell[d]).join('|');
    if ((seen.get(subject) ?? variant) !== variant) return true;
    seen.set(subject, variant);
  }
  return false;
}

/** Whether a run's summaries have an answer table. */
export function hasAnswer(summaries: readonly CellSummary[]): boolean {
  return hasVariants(summaries.map((s) => s.cell));
}

/**
 * The answer of every app with more than one variant, in the summaries' order (framework, routes, …).
 * The hello-world reference of a Lambda run is the calibration's, not an app: it is left out.
 */
export function leverAnswer(summaries: readonly CellSummary[], inputs: AnswerInputs): AnswerGroup[] {
  if (!hasAnswer(summaries)) return [];
  const groups = new Map<string, AnswerVariant[]>();
  for (const summary of summaries) {
    if (summary.cell.framework === REFERENCE_FRAMEWORK) continue;
    const key = subjectKey(summary.cell);
    const group = groups.get(key) ?? [];
    group.push(variantOf(summary, inputs));
    groups.set(key, group);
  }
  return [...groups.values()].filter((g) => g.length > 1).map(rankGroup);
}
