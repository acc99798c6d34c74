/**
 * The code-loading term in the report (analyse/code-loading.ts): its value beside every Init
 * estimate, what it is (coefficient, public data, dates) and how far it held leave-one-out.
 */
import { leaveOneOut } from '../analyse/code-loading.ts';
import type { CodeLoadingTerm } from '../analyse/code-loading.ts';
import { ms } from '../core/format.ts';
import type { CodeLoadingData } from '../core/lambda-code-loading.ts';

const pct = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(1)} %`;

/** The term of one estimate: "+113 (1.196 × 94)", or why it is 0. */
export function codeLoadingTermText(term: CodeLoadingTerm | undefined): string {
  if (!term) return '–';
  if (term.excessMs === 0) return '+0';
  if (term.excessMs < 0) return `+0 (Init ${ms(-term.excessMs)} below the reference)`;
  return `+${ms(term.ms)} (${term.coefficient} × ${ms(term.excessMs)})`;
}

function sources(data: CodeLoadingData): string {
  return data.sources.map((s) => `${s.repo} ${s.commit.slice(0, 7)} (${s.date})`).join(', ');
}

/** What the term is, where it comes from and when: printed once above the estimates (plain text: the caller escapes it). */
export function codeLoadingParagraph(data: CodeLoadingData): string {
  const functions = new Set(data.rows.map((r) => r.function)).size;
  const measured = [...new Set(data.measurements.map((m) => m.date))].sort().join(', ');
  const references = data.references.map((r) => `${r.from}–${r.to}`).join(', ');
  return (
    `Init: code loading is the code-loading term: k × what the cell's Init measured here exceeds the hello-world ` +
    `reference's measured beside it, what a new sandbox pays beyond a hello world for the code an app loads (read from ` +
    `Lambda's storage, compiled on its CPU), which the hello world's addition cannot carry. k = ${data.fit.coefficient}, ` +
    `fitted by least squares on ${data.rows.length} real Init Durations of ${functions} public Node.js functions ` +
    `(${sources(data)}), each measured here with this tool (${measured}), against lambda-perf's real hello world of ` +
    `the publications' weeks (${references}); the data: core/lambda-code-loading.json.`
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
