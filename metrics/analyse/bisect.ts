/**
 * The search of `bisect`: which release (or commit) first makes a cell's count pass a threshold over
 * the good end. Pure: the list of candidates, the measurements so far (a count, or a skip: it did not
 * install or did not answer right, as `git bisect skip`), and from them the next one to measure or the
 * verdict. Binary search, so n candidates take about log2(n) measurements after the two ends.
 */

/** Release versions in order: `x.y.z` with an optional pre-release (`5.0.0-alpha.1` < `5.0.0`). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.split('+')[0]!.split(/-(.*)/s);
    return { nums: core.split('.').map(Number), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  const xs = x.pre.split('.');
  const ys = y.pre.split('.');
  for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
    const p = xs[i];
    const q = ys[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

export const isPrerelease = (v: string) => v.split('+')[0]!.includes('-');

/**
 * The versions of `all` from `good` to `bad`, both included, in release order; pre-releases only
 * with `pre`; `step` > 1 keeps every step-th one (both ends always kept). Undefined when an end is
 * not among them.
 */
export function versionRange(
  all: readonly string[],
  good: string,
  bad: string,
  options: { pre: boolean; step: number },
): string[] | undefined {
  const sorted = [...new Set(all)].filter((v) => options.pre || !isPrerelease(v) || v === good || v === bad).sort(compareVersions);
  const from = sorted.indexOf(good);
  const to = sorted.indexOf(bad);
  if (from < 0 || to < 0 || from >= to) return undefined;
  const range = sorted.slice(from, to + 1);
  if (options.step <= 1) return range;
  return range.filter((_, i) => i % options.step === 0 || i === range.length - 1);
}

/** One candidate's measurement: its count (and its phases), or why it was skipped. */
export type BisectResult = { kind: 'measured'; value: number; phases: Record<string, number> } | { kind: 'skipped'; reason: string };

export interface BisectInput {
  /** the candidates in order: the first is the good end, the last the bad end */
  candidates: readonly string[];
  results: Readonly<Record<string, BisectResult>>;
  /** the share over the good end's value that makes a candidate bad (0.01 = 1 %) */
  threshold: number;
}

export type BisectNext =
  | { kind: 'measure'; candidate: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'no-change'; good: number; bad: number }
  /** the first bad candidate, with the last good one before it; `between`: skipped candidates that could be it too */
  | { kind: 'found'; culprit: string; lastGood: string; between: string[] };

/** Whether a measured candidate is bad: over the good end by more than the threshold. */
export function isBad(value: number, goodValue: number, threshold: number): boolean {
  return value > goodValue * (1 + threshold);
}

/**
 * What to do next: measure the good end, then the bad end, then the middle of what is left (a skipped
 * middle tries its nearest neighbours), or the verdict.
 */
export function bisectNext({ candidates, results, threshold }: BisectInput): BisectNext {
  const good = candidates[0]!;
  const bad = candidates[candidates.length - 1]!;
  for (const end of [good, bad]) {
    const r = results[end];
    if (!r) return { kind: 'measure', candidate: end };
    if (r.kind === 'skipped') return { kind: 'failed', reason: `the ${end === good ? 'good' : 'bad'} end ${end} was skipped: ${r.reason}` };
  }
  const goodValue = (results[good] as Extract<BisectResult, { kind: 'measured' }>).value;
  const badValue = (results[bad] as Extract<BisectResult, { kind: 'measured' }>).value;
  if (!isBad(badValue, goodValue, threshold)) return { kind: 'no-change', good: goodValue, bad: badValue };
  // hi: the first candidate known bad; lo: the last known good before it
  const measured = (i: number) => {
    const r = results[candidates[i]!];
    return r?.kind === 'measured' ? r.value : undefined;
  };
  let hi = candidates.length - 1;
  for (let i = 1; i < hi; i++) {
    const v = measured(i);
    if (v !== undefined && isBad(v, goodValue, threshold)) hi = i;
  }
  let lo = 0;
  for (let i = 1; i < hi; i++) if (measured(i) !== undefined) lo = i;
  const open = [];
  for (let i = lo + 1; i < hi; i++) if (results[candidates[i]!]?.kind !== 'skipped') open.push(i);
  if (!open.length) {
    const between = candidates.slice(lo + 1, hi);
    return { kind: 'found', culprit: candidates[hi]!, lastGood: candidates[lo]!, between };
  }
  const mid = Math.floor((lo + hi) / 2);
  // the open candidate nearest the middle (a skipped middle is stepped around)
  const next = open.reduce((best, i) => (Math.abs(i - mid) < Math.abs(best - mid) ? i : best), open[0]!);
  return { kind: 'measure', candidate: candidates[next]! };
}

/** One package's loaded code at two releases (0 where it was not loaded). */
export interface LoadChange {
  name: string;
  before: { modules: number; bytes: number };
  after: { modules: number; bytes: number };
}

/**
 * The packages whose loaded code changed most from `before` to `after`, by the change in modules (then
 * in bytes, then the name: Node's own modules have no bytes), at most `top`, unchanged ones left out.
 */
export function loadChanges(
  before: readonly { name: string; modules: number; bytes: number }[],
  after: readonly { name: string; modules: number; bytes: number }[],
  top = 8,
): LoadChange[] {
  const zero = { modules: 0, bytes: 0 };
  const at = (list: typeof before, name: string) => {
    const p = list.find((x) => x.name === name);
    return p ? { modules: p.modules, bytes: p.bytes } : zero;
  };
  const names = [...new Set([...before.map((p) => p.name), ...after.map((p) => p.name)])];
  const bytes = (c: LoadChange) => Math.abs(c.after.bytes - c.before.bytes);
  const modules = (c: LoadChange) => Math.abs(c.after.modules - c.before.modules);
  return names
    .map((name) => ({ name, before: at(before, name), after: at(after, name) }))
    .filter((c) => bytes(c) > 0 || modules(c) > 0)
    .sort((a, b) => modules(b) - modules(a) || bytes(b) - bytes(a) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, top);
}
