/**
 * The code-loading term in the report (analyse/code-loading.ts): its value beside every Init
 * estimate, what it is (coefficient, public data, dates) and how far it held leave-one-out.
 */
import { errorRange, leaveOneOut, termModel } from '../analyse/code-loading.ts';
import { factorText } from '../analyse/estimate-interval.ts';
import { BOOTSTRAP_RESAMPLES } from '../analyse/stats.ts';
import type { CodeLoadingTerm } from '../analyse/code-loading.ts';
import { ms } from '../core/format.ts';
import type { CodeLoadingData } from '../calibration/lambda-code-loading.ts';

const pct = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(1)} %`;

const signedMs = (value: number) => `${value >= 0 ? '+' : '−'}${ms(Math.abs(value))}`;

/**
 * The term of one estimate: "+3.1 (+17.2 here → +9.4 at the fit's speed, × 2.16 on Lambda)", the
 * excess as this run measured it, as the machine the term was fitted on would have (the same ratio
 * to the hello world), and what Lambda makes of it; or "+0" for the reference itself.
 */
export function codeLoadingTermText(term: CodeLoadingTerm | undefined): string {
  if (!term) return '–';
  if (term.excessMs === 0 && term.atFitSpeedMs === 0) return '+0';
  const withheld = withheldTermReason(term);
  if (withheld) return `withheld: ${withheld}`;
  const value = signedMs(term.ms);
  const measured = `${signedMs(term.excessMs)} here → ${signedMs(term.atFitSpeedMs)} at the fit's speed`;
  if (term.atFitSpeedMs <= 0) return `${value} (Init at or below the reference's: ${measured})`;
  const onLambda = Math.round((1 + term.coefficient) * 1000) / 1000;
  const extrapolated =
    term.atFitSpeedMs > term.fittedUpToMs
      ? `; beyond evidence: ${factorText(term.atFitSpeedMs / term.fittedUpToMs).slice(1)}× the largest fitted (${ms(term.fittedUpToMs)})`
      : '';
  return `${value} (${measured}, × ${onLambda} on Lambda${extrapolated})`;
}

/**
 * Why the term of an estimate is not printed, or undefined when it is: loading code cannot take less than
 * nothing, so a negative term is no figure of code loading. It comes from a machine slower than the fit's
 * here (load, mostly: the excess measured here is more than Lambda would pay for it), or from an Init at or
 * below the hello world's (noise or load). The estimate still carries it (it corrects the measured Init).
 */
export function withheldTermReason(term: CodeLoadingTerm): string | undefined {
  if (term.ms >= 0) return undefined;
  const measured = `${signedMs(term.excessMs)} here → ${signedMs(term.atFitSpeedMs)} at the fit's speed`;
  if (term.atFitSpeedMs <= 0) return `Init at or below the reference's (${measured}): no code loading to add (load or noise)`;
  return `negative (${measured}): this machine measured more than Lambda would pay for the loading (load: it ran slower than the fit's)`;
}

function sources(data: CodeLoadingData): string {
  return data.sources.map((s) => `${s.repo} ${s.commit.slice(0, 7)} (${s.date})`).join(', ');
}

/** What the term is, where it comes from and when: printed once above the estimates (plain text: the caller escapes it). */
export function codeLoadingParagraph(data: CodeLoadingData): string {
  const functions = new Set(data.rows.map((r) => r.function)).size;
  const measured = [...new Set(data.measurements.map((m) => m.date))].sort().join(', ');
  const references = data.references.map((r) => `${r.from}–${r.to}`).join(', ');
  const model = termModel(data);
  const lines = [...new Set(data.rows.filter((r) => r.local.referenceInitMs !== undefined).map((r) => r.runtime))].sort();
  const k = data.fit.coefficient;
  return (
    `Init: code loading is the code-loading term: what a new sandbox pays beyond a hello world for the code an app ` +
    `loads (read from Lambda's storage, compiled on its CPU), which the hello world's addition cannot carry. The cell's ` +
    `Init here over the hello-world reference's measured beside it (the median of their ratios, round by round) gives ` +
    `its excess at the speed the term was fitted at: (ratio − 1) × the hello world's Init on this project's machine ` +
    `then (${lines.map((l) => `${l} ${ms(model.helloWorldMs(l))} ms`).join(', ')}; another line ` +
    `${ms(model.helloWorldMs(''))} ms), so a faster, slower or busier machine gives the same estimate. Lambda pays ` +
    `(1 + k) × a positive excess, k = ${k}; the column is that minus the excess measured here, which "Lambda adds" ` +
    `already carries. k is fitted by least squares on ${data.rows.length} real Init Durations of ${functions} public ` +
    `Node.js functions (${sources(data)}), each measured here with this tool (${measured}), against lambda-perf's real ` +
    `hello world of the publications' weeks (${references}), on excesses up to ${ms(model.fittedUpToMs)} ms: beyond ` +
    `that the term is extrapolated, beyond evidence (said in the cell); the data: calibration/lambda-code-loading.json.`
  );
}

function range(values: number[]): string {
  return `${pct(Math.min(...values))} to ${pct(Math.max(...values))}`;
}

/**
 * How far to trust the Init estimate, from the leave-one-out validation of the shipped data: printed
 * with every estimate. The lower-bound wording stays only where a held-out function was still low
 * beyond the bound. Plain text: the caller escapes it for its format.
 */
export function validationNote(data: CodeLoadingData | undefined): string {
  if (!data) return 'How far to trust the Init estimate: no code-loading data, so no validation against real data.';
  const loo = leaveOneOut(data.rows);
  const name = (id: string) => data.functions.find((f) => f.id === id)?.name ?? id;
  const perFunction = Object.entries(data.fit.looErrorPct)
    .map(([id, [low, high]]) => `${name(id)} ${low === high ? pct(low) : `${pct(low)} to ${pct(high)}`}`)
    .join('; ');
  const low = Object.entries(data.fit.looErrorPct).filter(([, [lowest]]) => lowest < -data.fit.boundPct);
  const high = Object.entries(data.fit.looErrorPct).filter(([, [, highest]]) => highest > data.fit.boundPct);
  const beyond = [
    ...(low.length
      ? [
          `${low.map(([id]) => name(id)).join(' and ')} still came out up to ${pct(Math.min(...low.map(([, r]) => r[0])))} ` +
            '(low): read the estimate of an app that loads as much code as a lower bound',
        ]
      : []),
    ...(high.length
      ? [`${high.map(([id]) => name(id)).join(' and ')} came out up to ${pct(Math.max(...high.map(([, r]) => r[1])))} (high)`]
      : []),
  ];
  return (
    'How far to trust the Init estimate: leave-one-out over the public functions (each held out and predicted by the fit ' +
    `on the others), the estimate with the term came within ${range(loo.map((l) => l.nowErrorPct))} of the real Init ` +
    `(${perFunction}), against ${range(loo.map((l) => l.beforeErrorPct))} without it. ` +
    (beyond.length
      ? `Beyond ±${data.fit.boundPct} %: ${beyond.join('; ')}.`
      : `Every function within ±${data.fit.boundPct} %; an app that loads much more code than these is extrapolated.`)
  );
}

/**
 * The coverage the Init interval has, as every interval names it: "n=20 leave-one-out, 65 % of held-out
 * errors within" (analyse/code-loading.ts looCoverage); with a refitted k (a calibration file's), no check
 * was made on its functions, which it says.
 */
export function coverageLabel(data: CodeLoadingData | undefined, refitted = false): string {
  const coverage = data && !refitted ? termModel(data).coverage : undefined;
  if (!coverage) return 'leave-one-out coverage not checked for this fit';
  return `n=${coverage.n} leave-one-out, ${Math.round((100 * coverage.within) / coverage.n)} % of held-out errors within`;
}

/** What an estimate beyond its evidence shows in place of an interval, and why: said under every table that shows one. */
export const BEYOND_EVIDENCE_NOTE =
  '"beyond evidence": no interval is shown, since nothing measured its coverage there: "×F on loading" when the ' +
  "cell's excess over the hello world (at the fit's speed) is F times the largest the code-loading term was fitted on " +
  '(F rounded up), "running part unvalidated" when its INIT has a running part beyond the reference\'s, which no ' +
  "fitted function had (its conversion at Lambda's CPU speed rests on no real Init figure).";

/**
 * How the interval beside every estimate is made (analyse/estimate-interval.ts), with the shipped
 * fit's leave-one-out error range and the coverage it was checked to have. Plain text: the caller escapes it.
 */
export function intervalNote(data: CodeLoadingData, refitted = false): string {
  const range = errorRange(data.fit.looErrorPct);
  const errors = range ? `${pct(range[0])} to ${pct(range[1])}` : 'none';
  const coverage = refitted ? undefined : termModel(data).coverage;
  const functions = new Set(data.rows.map((r) => r.function)).size;
  const checked = coverage
    ? `Its coverage, checked leave-one-out (each function held out, the range built from the other functions' ` +
      `leave-one-out errors): ${coverage.within} of the ${coverage.n} held-out real Init figures ` +
      `(${Math.round((100 * coverage.within) / coverage.n)} %) fell inside, so it is an interval of that coverage, not of 95 %.`
    : 'Its coverage was not checked for this fit (a refitted k): the leave-one-out range is all it has.';
  return (
    'Interval of an estimate, with the coverage it has. Init, within the evidence: the estimate at both ends of a 95 % ' +
    "bootstrap interval of the cell's ratio to the hello world (the median of the per-round ratios, " +
    `${BOOTSTRAP_RESAMPLES} resamples seeded by the cell), each divided by 1 + the leave-one-out relative error at the ` +
    `other end of its range (${errors}, the range of ${data.rows.length} leave-one-out errors of ${functions} functions): ` +
    `low = estimate(ratio low) / (1 + largest error), high = estimate(ratio high) / (1 + smallest error). ${checked} ` +
    "Duration: the estimate at both ends of the bootstrap interval of the cell's median invocation CPU time (95 % of this " +
    "run's resamples; the model is not validated against real Durations). Billed: both ends rounded up to 1 ms and " +
    `added; $: the Billed interval priced. ${BEYOND_EVIDENCE_NOTE} The evidence column says by how much.`
  );
}

/**
 * Biases the checks against real functions held back from the project found (issue 36), beyond the
 * leave-one-out error: not modelled, so printed beside the estimate. Plain text.
 */
export const KNOWN_BIASES =
  'Known biases, from checks against real functions held back from the project (not in the fit, not public): an app ' +
  'bundled into one file that loads no more code than a hello world (express at 1 route) was estimated 14–28 % high, ' +
  'and SDK-heavy nodejs22.x arm64 handlers about 19 % low; both lie beyond the leave-one-out error above and neither ' +
  'is modelled.';
