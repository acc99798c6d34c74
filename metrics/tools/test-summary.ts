/**
 * The one line of totals that `npm test` and `npm run test:all` end with (test-run.ts): the tests,
 * passes, failures and skips of every test layer added up, each step's wall time and the whole.
 * The counts are those Node's runner writes at the end of its TAP output (`# tests 12`, `# pass 11`, …);
 * test-run.ts gives each layer a second TAP reporter into a file and reads them from there.
 */

/** A layer's totals as Node's runner counts them (its top-level `# key N` lines). */
export interface Totals {
  tests: number;
  pass: number;
  fail: number;
  cancelled: number;
  skipped: number;
  todo: number;
}

/** The totals at the end of a TAP stream of Node's runner; undefined when it has none (a step that ended before them). */
export function tapTotals(tap: string): Totals | undefined {
  const found: Partial<Totals> = {};
  // the summary is the last lines at column 0; a test's own `# …` diagnostics are indented under it
  for (const match of tap.matchAll(/^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) {
    found[match[1] as keyof Totals] = Number(match[2]);
  }
  if (found.tests === undefined) return undefined;
  return {
    tests: found.tests,
    pass: found.pass ?? 0,
    fail: found.fail ?? 0,
    cancelled: found.cancelled ?? 0,
    skipped: found.skipped ?? 0,
    todo: found.todo ?? 0,
  };
}

/** One step of a test command as it ended: its wall time, its exit code, and its totals when it ran tests. */
export interface StepEnd {
  name: string;
  seconds: number;
  code: number;
  totals?: Totals | undefined;
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The summary line: `test-run: 1,701 tests, 1,690 pass, 0 fail, 11 skipped; checks 36 s, unit 87 s, smoke 7 s; whole 130 s`.
 * Cancelled tests are counted with the failures (Node's runner fails the run on them); todo tests are named when there are any;
 * a step that failed says so with its exit code, and one that ran no tests (the checks) adds only its time.
 */
export function summaryLine(steps: readonly StepEnd[], wholeSeconds: number): string {
  const sum = (key: keyof Totals): number => steps.reduce((total, step) => total + (step.totals?.[key] ?? 0), 0);
  const todo = sum('todo');
  const counts = [
    `${count(sum('tests'))} tests`,
    `${count(sum('pass'))} pass`,
    `${count(sum('fail') + sum('cancelled'))} fail`,
    `${count(sum('skipped'))} skipped`,
    ...(todo > 0 ? [`${count(todo)} todo`] : []),
  ];
  const times = steps.map((step) => `${step.name} ${Math.round(step.seconds)} s${step.code !== 0 ? ` (exit ${step.code})` : ''}`);
  return `test-run: ${counts.join(', ')}; ${times.join(', ')}; whole ${Math.round(wholeSeconds)} s`;
}
