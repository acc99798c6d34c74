/**
 * The real cold starts of Lambda Web Functions (their platform.initReport durations), per function: how
 * many, their median and p95, the failed INITs, and the margin each leaves to the 10 s a server has to
 * listen; and, beside an estimate, the estimate's error against the real median.
 */
import { quantileSorted } from 'simple-statistics';
import { WEB_FUNCTION_INIT_LIMIT_MS } from '../core/web-platform.ts';

export interface WebInit {
  functionName: string;
  status: string;
  initMs?: number;
}

export interface WebColdStarts {
  functionName: string;
  /** successful INITs with a duration */
  n: number;
  p50: number;
  p95: number;
  /** INITs that did not succeed (timeout, error, failure) */
  failed: number;
  /** 10 s − p50 and 10 s − p95, ms (negative: over the limit) */
  marginP50Ms: number;
  marginP95Ms: number;
}

export interface WebEstimate {
  p50: number;
  interval?: { low: number; high: number };
  /** the local median × Lambda arm64's CPU ratio (report/web-functions.ts): a model no real Web Function calibrates (✱) */
  modelled?: number;
}

export interface WebBesideReal extends WebColdStarts {
  estimate: WebEstimate;
  /** (estimate − real) / real of the medians, % */
  errorP50Pct: number;
  /** whether the real median lies within the estimate's interval (absent without one) */
  withinInterval?: boolean;
}

/** Per function, in name order; a function whose INITs all failed has n 0 and no figures (NaN). */
export function webColdStarts(inits: readonly WebInit[]): WebColdStarts[] {
  const byName = new Map<string, { ok: number[]; failed: number }>();
  for (const init of inits) {
    const entry = byName.get(init.functionName) ?? { ok: [], failed: 0 };
    if (init.status === 'success' && init.initMs !== undefined) entry.ok.push(init.initMs);
    else entry.failed++;
    byName.set(init.functionName, entry);
  }
  return [...byName.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([functionName, { ok, failed }]) => {
      const sorted = [...ok].sort((a, b) => a - b);
      const p50 = sorted.length > 0 ? quantileSorted(sorted, 0.5) : Number.NaN;
      const p95 = sorted.length > 0 ? quantileSorted(sorted, 0.95) : Number.NaN;
      return {
        functionName,
        n: sorted.length,
        p50,
        p95,
        failed,
        marginP50Ms: WEB_FUNCTION_INIT_LIMIT_MS - p50,
        marginP95Ms: WEB_FUNCTION_INIT_LIMIT_MS - p95,
      };
    });
}

/** An estimate beside the real cold starts of the same function. */
export function besideReal(real: WebColdStarts, estimate: WebEstimate): WebBesideReal {
  const row: WebBesideReal = { ...real, estimate, errorP50Pct: ((estimate.p50 - real.p50) / real.p50) * 100 };
  if (estimate.interval) row.withinInterval = real.p50 >= estimate.interval.low && real.p50 <= estimate.interval.high;
  return row;
}

const signedPct = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(0)} %`;
const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : '–');

/** The lines lambda:import prints: one per function, and the estimate beside it when there is one. */
export function webColdStartLines(rows: readonly (WebColdStarts | WebBesideReal)[]): string[] {
  return rows.map((r) => {
    const real = `${r.functionName}: ${r.n} cold start${r.n === 1 ? '' : 's'}, median ${ms(r.p50)}, p95 ${ms(r.p95)}`;
    const margin = r.n > 0 ? `, margin to 10 s ${ms(r.marginP50Ms)} (median) and ${ms(r.marginP95Ms)} (p95)` : '';
    const failed = r.failed > 0 ? `, ${r.failed} failed INIT${r.failed === 1 ? '' : 's'}` : '';
    if (!('estimate' in r)) return `${real}${margin}${failed}`;
    const sign = r.errorP50Pct >= 0 ? '+' : '';
    const within = r.withinInterval === undefined ? '' : r.withinInterval ? ', within its interval' : ', outside its interval';
    const { modelled } = r.estimate;
    const model =
      modelled === undefined
        ? ''
        : `; modelled on Lambda ✱ ${ms(modelled)} (${signedPct(((modelled - r.p50) / r.p50) * 100)}, no interval)`;
    return `${real}${margin}${failed}; estimate ${ms(r.estimate.p50)} (${sign}${r.errorP50Pct.toFixed(0)} %${within})${model}`;
  });
}
