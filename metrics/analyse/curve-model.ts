/**
 * The models a route's cost is fitted with (a line, a quadratic, a piecewise line), their weighted
 * least-squares fit on the samples, and the choice between them by AICc: the fitting half of curve.ts,
 * which adds the bootstrap, the growth class and the budget.
 */
import { linearRegression } from 'simple-statistics';
import { MIN_CURVE_POINTS, MIN_FIT_POINTS } from './scaling.ts';

/** A curved model must lower AICc by more than this below the line's to be chosen (a difference of 2 or less is no evidence). */
export const AICC_MARGIN = 2;

export const MODEL_KINDS = ['linear', 'quadratic', 'piecewise'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];
export type GrowthClass = 'sub-linear' | 'linear' | 'super-linear' | 'flat';

/**
 * What the resamples say of the growth: a class held in at least GROWTH_SHARE of them (`share`), or
 * not determined: too few route counts for a curve (`routeCounts`), or the most frequent class with
 * its share below GROWTH_SHARE.
 */
export type Growth =
  | { determined: true; growth: GrowthClass; share: number }
  | { determined: false; routeCounts: number }
  | { determined: false; leading: GrowthClass; share: number };

/**
 * A fitted curve, ms at N routes. linear: [a, b]; quadratic: [a, b, c]; piecewise: [a, b, d] with
 * the slope b up to `breakpoint` and b + d above it.
 */
export interface Model {
  kind: ModelKind;
  coefficients: number[];
  breakpoint?: number;
}

export function predict(model: Model, n: number): number {
  const [a = 0, b = 0, c = 0] = model.coefficients;
  if (model.kind === 'linear') return a + b * n;
  if (model.kind === 'quadratic') return a + b * n + c * n * n;
  return a + b * n + c * Math.max(0, n - model.breakpoint!);
}

/** The derivative at N, ms per route; at a piecewise breakpoint, the slope below it. */
export function marginalCost(model: Model, n: number): number {
  const [, b = 0, c = 0] = model.coefficients;
  if (model.kind === 'linear') return b;
  if (model.kind === 'quadratic') return b + 2 * c * n;
  return n > model.breakpoint! ? b + c : b;
}

/** The coefficient the growth class is read from: the slope of a line, the N² term, the slope change at the breakpoint. */
export function growthTerm(model: Model): number {
  return model.kind === 'linear' ? model.coefficients[1]! : model.coefficients[2]!;
}

/** The samples of one route count. */
export interface RouteGroup {
  routes: number;
  values: number[];
}

/** A route count's samples reduced to what least squares needs: their count, mean and sum of squares about the mean. */
export interface Moments {
  x: number;
  w: number;
  mean: number;
  within: number;
}

/** Moments with the weight of each of their samples: 1 / the route count's variance. */
interface Weighted extends Moments {
  weight: number;
}

export function momentsOf(routes: number, values: ArrayLike<number>, count = values.length): Moments {
  let sum = 0;
  for (let i = 0; i < count; i++) sum += values[i]!;
  const mean = sum / count;
  let within = 0;
  for (let i = 0; i < count; i++) within += (values[i]! - mean) ** 2;
  return { x: routes, w: count, mean, within };
}

/**
 * Each route count's samples weighted by 1 / their variance, read from a variance function: the
 * route counts' standard deviations fitted as a power of their means (log sd = α + β·log mean, least
 * squares), since one route count's 10 samples give its own variance only to about ±47 % (√(2/9)). With fewer
 * than 2 route counts that have a spread (or no fit), every sample weighs 1.
 */
export function weigh(groups: readonly Moments[]): Weighted[] {
  const known = groups.filter((g) => g.w > 1 && g.within > 0 && g.mean > 0);
  const line = known.length >= 2 ? linearRegression(known.map((g) => [Math.log(g.mean), 0.5 * Math.log(g.within / (g.w - 1))])) : undefined;
  if (!line || !Number.isFinite(line.m) || !Number.isFinite(line.b)) return groups.map((g) => ({ ...g, weight: 1 }));
  return groups.map((g) => {
    const sd = Math.exp(line.b + line.m * Math.log(Math.max(g.mean, Number.MIN_VALUE)));
    return { ...g, weight: Number.isFinite(sd) && sd > 0 ? 1 / (sd * sd) : 1 };
  });
}

/** The columns of a model's design at x (x scaled to [0, 1] by `scale` for conditioning). */
function design(kind: ModelKind, x: number, scale: number, breakpoint = 0): number[] {
  const u = x / scale;
  if (kind === 'linear') return [1, u];
  if (kind === 'quadratic') return [1, u, u * u];
  return [1, u, Math.max(0, u - breakpoint / scale)];
}

/** Solve A·β = y (A square) by Gauss-Jordan elimination with partial pivoting; undefined when singular. */
function solve(a: number[][], y: number[]): number[] | undefined {
  const p = y.length;
  const m = a.map((row, i) => [...row, y[i]!]);
  const size = Math.max(...m.flat().map(Math.abs), 1e-300);
  for (let col = 0; col < p; col++) {
    let pivot = col;
    for (let row = col + 1; row < p; row++) if (Math.abs(m[row]![col]!) > Math.abs(m[pivot]![col]!)) pivot = row;
    if (Math.abs(m[pivot]![col]!) < 1e-12 * size) return undefined;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let row = 0; row < p; row++) {
      if (row === col) continue;
      const f = m[row]![col]! / m[col]![col]!;
      for (let k = col; k <= p; k++) m[row]![k]! -= f * m[col]![k]!;
    }
  }
  return m.map((row, i) => row[p]! / row[i]!);
}

export interface Fitted {
  model: Model;
  /** the weighted sum of squared residuals over every sample */
  sse: number;
}

/** Weighted least squares on the route counts' means (weights = sample count × sample weight): the same fit as on every sample. */
function fitWith(kind: ModelKind, groups: readonly Weighted[], breakpoint?: number): Fitted | undefined {
  const scale = Math.max(...groups.map((g) => Math.abs(g.x))) || 1;
  const p = kind === 'linear' ? 2 : 3;
  const xtx = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  const xty = new Array<number>(p).fill(0);
  for (const g of groups) {
    const row = design(kind, g.x, scale, breakpoint);
    const w = g.w * g.weight;
    for (let i = 0; i < p; i++) {
      xty[i]! += w * row[i]! * g.mean;
      for (let j = 0; j < p; j++) xtx[i]![j]! += w * row[i]! * row[j]!;
    }
  }
  const beta = solve(xtx, xty);
  if (!beta) return undefined;
  // back from x/scale to x
  const coefficients = kind === 'quadratic' ? [beta[0]!, beta[1]! / scale, beta[2]! / scale ** 2] : beta.map((v, i) => (i ? v / scale : v));
  const model: Model = breakpoint === undefined ? { kind, coefficients } : { kind, coefficients, breakpoint };
  let sse = 0;
  for (const g of groups) sse += g.weight * (g.within + g.w * (g.mean - predict(model, g.x)) ** 2);
  return { model, sse };
}

/** The route counts a piecewise fit may break at: every measured one strictly inside the range. */
function breakpoints(groups: readonly Moments[]): number[] {
  return groups.slice(1, -1).map((g) => g.x);
}

/** The least-squares fit of a kind (a curve only with MIN_CURVE_POINTS route counts); piecewise: the best break (ties: the smallest). */
export function fitKind(kind: ModelKind, groups: readonly Weighted[]): Fitted | undefined {
  if (groups.length < (kind === 'linear' ? MIN_FIT_POINTS : MIN_CURVE_POINTS)) return undefined;
  if (kind !== 'piecewise') return fitWith(kind, groups);
  let best: Fitted | undefined;
  for (const k of breakpoints(groups)) {
    const fitted = fitWith('piecewise', groups, k);
    if (fitted && (!best || fitted.sse < best.sse)) best = fitted;
  }
  return best;
}

/** The parameters AICc counts: the coefficients, the breakpoint when it is chosen, and the residual variance. */
export const PARAMETERS: Record<ModelKind, number> = { linear: 3, quadratic: 4, piecewise: 5 };

/** AICc of a least-squares fit on n samples; undefined when n leaves no degree of freedom for the correction. */
export function aicc(sse: number, n: number, parameters: number, floor: number): number | undefined {
  if (n - parameters - 1 <= 0) return undefined;
  return n * Math.log(Math.max(sse, floor) / n) + 2 * parameters + (2 * parameters * (parameters + 1)) / (n - parameters - 1);
}

/** The model AICc chooses: the lowest, unless the line is within AICC_MARGIN of it. */
export function chooseModel(scores: Partial<Record<ModelKind, number>>): ModelKind | undefined {
  const ranked = MODEL_KINDS.filter((k) => scores[k] !== undefined).sort((a, b) => scores[a]! - scores[b]!);
  const best = ranked[0];
  if (best === undefined) return undefined;
  if (scores.linear !== undefined && scores.linear - scores[best]! <= AICC_MARGIN) return 'linear';
  return best;
}
