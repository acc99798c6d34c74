/**
 * The fake sampler, as hyperfine's MockExecutor behind its hidden --debug-mode: it spawns nothing
 * and answers every planned run at once with a record the real runner could have written. Its marks
 * are a pure function of the cell (a base and a cost per route for each framework, from a seed of
 * its name, split into phases at fixed shares), its jitter is seeded by the cell's key and the run's
 * index, so a run is the same every time; counted cells get instruction counts (exact, as valgrind's
 * are), Lambda cells their REPORT figures, cells at a memory size a limits record. Scripted failures
 * use the runner's own reasons (a crash, a hang, a wrong answer), and `interruptAfter` plays Ctrl-C
 * after that many runs without a signal reaching the process.
 */
import seedrandom from 'seedrandom';
import { firstHitRoutes } from '../../../generators/routes.ts';
import { answerProblem, requestText } from '../app-answer.ts';
import { cellKey, type Cell } from '../../core/cell.ts';
import type { InstructionMarks, LambdaFigures, LimitsRecord, Marks, SampleRecord } from '../../core/samples.ts';
import { isRicBootstrap } from '../../plan/lambda-bootstrap.ts';
import type { PlannedRun } from '../../plan/order.ts';
import { COUNT_SLOWDOWN } from '../counting.ts';
import type { RunContext } from '../planned-run.ts';
import { blockedRecord, endedReason, hungReason } from '../sample.ts';
import { CellRoutes, wrongAnswerReason } from '../targets/first-hits.ts';
import { billedMs } from '../targets/lambda.ts';
import { lambdaMemorySize } from '../../core/lambda-platform.ts';
import { isRunStep, RUN_STEPS, type RunStep } from '../../core/run-steps.ts';
import { isCounted } from '../../core/dimensions.ts';
import { targetKind } from '../../core/kinds.ts';

/** How a scripted run fails, each with the text the real runner gives that failure. */
export const FAKE_FAILURES = ['crash', 'hang', 'wrong'] as const;
export type FakeFailure = (typeof FAKE_FAILURES)[number];

/** What a script may do to one run: fail it, or change its record (return the record to keep). */
export type FakeScript = (run: PlannedRun, record: SampleRecord) => FakeFailure | SampleRecord | undefined;

export interface FakeSamplerOptions {
  /** the jitter's coefficient of variation (default 0.05; 0: every sample of a cell the same) */
  cv?: number;
  /** every run of these frameworks fails so */
  fail?: Readonly<Record<string, FakeFailure>>;
  /** per run: a failure, or a changed record (after `fail`) */
  script?: FakeScript;
  /** after this many runs, the next one is cut short by an interrupt (as Ctrl-C during it): `interrupt` is called */
  interruptAfter?: number;
  /** how the interrupt reaches the run (default: SIGINT emitted on this process, which the run's guard catches; no signal is sent) */
  interrupt?: () => void;
  /** the records' `at` (default a fixed date, so records are the same every time) */
  now?: () => Date;
  /** not the sampler's: the fake deps stop the run at this step until stdin says go on (measure/debug-pause.ts) */
  pauseAt?: RunStep;
}

/**
 * The phases' shares of the first response (as test/support/synthetic.ts): boot 10 %, import 20 %, routes 20 %,
 * listen 40 %, answer 10 %.
 */
const SHARES = { processStart: 0.05, start: 0.1, imported: 0.3, startup: 0.5, ready: 0.9 } as const;
/** The child's CPU time at each mark: this share of its wall time. */
const CPU_SHARE = 0.8;
/** Instructions per fake millisecond of a counted cell. */
const INSTRUCTIONS_PER_MS = 2_000_000;
const FIXED_AT = new Date('2026-01-01T00:00:00.000Z');

/** A framework's base and per-route cost, ms: from a seed of its name (20–80 ms and 0.01–0.1 ms per route). */
export function frameworkCost(framework: string): { baseMs: number; perRouteMs: number } {
  const random = seedrandom(`coldstart fake ${framework}`);
  return { baseMs: 20 + 60 * random(), perRouteMs: 0.01 + 0.09 * random() };
}

/** How the levers change a cell's time: fixed factors, so that lever tables show a difference. */
function leverFactor(cell: Cell): number {
  let factor = 1;
  if (cell.build === 'bundle') factor *= 0.85;
  if (cell.build === 'bundle-min') factor *= 0.8;
  if (cell.build === 'snapshot') factor *= 0.5;
  if (cell.compileCache === 'warm') factor *= 0.8;
  if (cell.compileCache === 'cold') factor *= 1.05;
  if (cell.runtime === 'bun') factor *= 0.7;
  if (cell.fileCache === 'cold') factor *= 1.3;
  if (targetKind(cell.target).handler && isRicBootstrap(cell.bootstrap)) factor *= 1.1;
  // a small memory size has a small CPU share
  if (cell.memory > 0) factor *= 1 + 512 / cell.memory;
  return factor;
}

/** The cell's first response without jitter, ms: base + perRoute × routes, times its levers' factor. */
export function fakeFirstResponse(cell: Cell): number {
  const { baseMs, perRouteMs } = frameworkCost(cell.framework);
  return (baseMs + perRouteMs * cell.routes) * leverFactor(cell);
}

/** A standard normal draw (Box–Muller) from a seeded source. */
function normal(random: () => number): number {
  const u = Math.max(random(), Number.EPSILON);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;

/** The marks of a run at `firstResponse` ms: listen (a server) or init (a Lambda handler) at the ready share. */
function marksAt(cell: Cell, firstResponse: number): Marks {
  const ready = targetKind(cell.target).ready;
  return {
    processStart: round3(SHARES.processStart * firstResponse),
    start: round3(SHARES.start * firstResponse),
    imported: round3(SHARES.imported * firstResponse),
    startup: round3(SHARES.startup * firstResponse),
    [ready]: round3(SHARES.ready * firstResponse),
    firstResponse: round3(firstResponse),
  };
}

/** A counted cell's instructions at its marks: exact, a function of the cell only (as valgrind's counts under --predictable). */
export function fakeInstructions(cell: Cell): InstructionMarks {
  const total = Math.round(fakeFirstResponse(cell) * INSTRUCTIONS_PER_MS);
  const at = (share: number) => Math.round(share * total);
  const ready = targetKind(cell.target).ready;
  return {
    start: at(SHARES.start),
    imported: at(SHARES.imported),
    startup: at(SHARES.startup),
    [ready]: at(SHARES.ready),
    firstResponse: total,
  };
}

function lambdaFigures(cell: Cell, marks: Marks): LambdaFigures {
  const initMs = marks.init ?? 0;
  const durationMs = round3(marks.firstResponse - initMs);
  return {
    initMs,
    durationMs,
    billedMs: billedMs(initMs, durationMs),
    memorySizeMB: lambdaMemorySize(cell.memory),
    maxMemoryUsedMB: 60 + Math.round(cell.routes / 50),
    invokeCpuMs: round3(durationMs * CPU_SHARE),
  };
}

function limitsRecord(cell: Cell, marks: Marks): LimitsRecord {
  const ready = marks.listen ?? marks.init ?? 0;
  return {
    memoryMB: cell.memory,
    peakBytes: (50 + cell.routes / 20) * 1024 * 1024,
    outOfMemory: false,
    initCpuMs: round3(ready * CPU_SHARE),
    requestCpuMs: round3((marks.firstResponse - ready) * CPU_SHARE),
    requestThrottledMs: 0,
    requestThrottledPeriods: 0,
  };
}

export class FakeSampler {
  /** every planned run asked for, in the order asked */
  readonly calls: PlannedRun[] = [];
  private readonly cv: number;

  constructor(private readonly options: FakeSamplerOptions = {}) {
    this.cv = options.cv ?? 0.05;
  }

  /** The record of one run, at once; a blocked cell's record as the real sampler gives it. */
  measure(run: PlannedRun, context: Pick<RunContext, 'timeoutMs' | 'firstHits'>): Promise<SampleRecord> {
    this.calls.push(run);
    const { interruptAfter } = this.options;
    if (interruptAfter !== undefined && this.calls.length === interruptAfter + 1) (this.options.interrupt ?? emitInterrupt)();
    const { planned } = run;
    if (!planned.launch) {
      const blocked = blockedRecord(run, planned.blocked ?? { kind: 'failed', reason: 'no file to run' });
      return Promise.resolve({ ...blocked, at: this.at() });
    }
    let record = this.record(run, context);
    const failure = this.options.fail?.[run.cell.framework];
    if (failure) record = this.failed(run, record, failure, context.timeoutMs);
    const scripted = this.options.script?.(run, record);
    if (typeof scripted === 'string') record = this.failed(run, record, scripted, context.timeoutMs);
    else if (scripted) record = scripted;
    return Promise.resolve(record);
  }

  /** A successful record: the cell's marks with this run's jitter, and what its kind of cell records. */
  record(run: PlannedRun, context: Pick<RunContext, 'firstHits'>): SampleRecord {
    const { cell } = run;
    const counted = isCounted(cell);
    const random = seedrandom(`${cellKey(cell)}|${run.phase}|${run.index}`);
    // a counted child runs under valgrind: slower, but its counts do not move
    const firstResponse = fakeFirstResponse(cell) * Math.max(0.5, 1 + this.cv * normal(random)) * (counted ? COUNT_SLOWDOWN : 1);
    // the Runtime Interface Client prints none of the probe's lines: the runner sees INIT's end and the answer only
    const bare = targetKind(cell.target).handler && isRicBootstrap(cell.bootstrap);
    const all = marksAt(cell, firstResponse);
    const marks: Marks = bare ? { init: all.init!, firstResponse: all.firstResponse } : all;
    const cpu = Object.fromEntries(
      (['start', 'imported', 'startup', 'listen', 'firstResponse'] as const)
        .filter((m) => marks[m] !== undefined)
        .map((m) => [m, round3(marks[m]! * CPU_SHARE)]),
    );
    const record: SampleRecord = {
      cell,
      phase: run.phase,
      index: run.index,
      ok: true,
      marks,
      ...(bare
        ? {}
        : {
            cpu,
            rss: Math.round((50 + cell.routes / 20) * 1e6),
            heapUsed: Math.round((8 + cell.routes / 100) * 1e6),
            runtimeVersion: `node ${process.version}`,
          }),
      durationMs: round3(firstResponse + 5),
      at: this.at(),
    };
    if (counted) record.instructions = fakeInstructions(cell);
    if (targetKind(cell.target).handler) record.lambda = lambdaFigures(cell, marks);
    if (cell.memory > 0 && !counted) record.limits = limitsRecord(cell, marks);
    const hits = run.planned.app ? [] : firstHitRoutes(cell.routes, context.firstHits);
    if (hits.length) {
      const latencyMs = hits.map((_, i) => round3(0.5 + 0.01 * i));
      record.firstHits = { routes: hits, latencyMs, allWarm: round3(firstResponse + latencyMs.reduce((a, b) => a + b, 0)) };
    }
    if (run.checkInvalidBody) record.invalidBody = { ok: true, status: 400 };
    return record;
  }

  private at(): string {
    return (this.options.now?.() ?? FIXED_AT).toISOString();
  }

  /** The record of a failed run, with the real runner's reason for that failure. */
  private failed(run: PlannedRun, record: SampleRecord, failure: FakeFailure, timeoutMs: number): SampleRecord {
    const { cell, phase, index, at } = record;
    const base = { cell, phase, index, ok: false, at };
    const { app } = run.planned;
    switch (failure) {
      case 'crash': {
        const stderr = 'Error: fake crash';
        return { ...base, error: endedReason('exited with code 1', false, stderr), stderrTail: stderr, durationMs: 12 };
      }
      case 'hang':
        return { ...base, error: hungReason(app ? 'listening server' : 'ready line', timeoutMs), durationMs: timeoutMs };
      case 'wrong': {
        const answer = { status: 500, body: { error: 'fake wrong answer' } };
        const error = app
          ? (answerProblem(requestText(app.request), app.expect, answer.status, JSON.stringify(answer.body)) ?? 'wrong answer')
          : wrongAnswerReason(this.lastRequest(cell, run), answer);
        return { ...base, error, durationMs: record.durationMs };
      }
    }
  }

  private lastRequest(cell: Cell, run: PlannedRun) {
    const routes = new CellRoutes(cell, run.planned.contract);
    return routes.request(routes.last);
  }
}

function emitInterrupt(): void {
  process.emit('SIGINT', 'SIGINT');
}

/**
 * The --debug-mode script: comma-separated `crash=<framework>`, `hang=<framework>`, `wrong=<framework>`,
 * `interrupt-after=<n>`, `cv=<number>`; empty for a run where everything succeeds.
 */
export function parseFakeScript(text: string): FakeSamplerOptions | string {
  const fail: Record<string, FakeFailure> = {};
  const options: FakeSamplerOptions = { fail };
  for (const item of text.split(',').filter(Boolean)) {
    const [name = '', value = ''] = item.split('=', 2);
    const failure = FAKE_FAILURES.find((f) => f === name);
    if (failure && value) fail[value] = failure;
    else if (name === 'interrupt-after' && /^\d+$/.test(value)) options.interruptAfter = Number(value);
    else if (name === 'cv' && Number.isFinite(Number(value)) && Number(value) >= 0) options.cv = Number(value);
    else if (name === 'pause-at' && isRunStep(value)) options.pauseAt = value;
    else return `"${item}" is not crash=, hang=, wrong=<framework>, interrupt-after=<n>, cv=<number> or pause-at=<${RUN_STEPS.join('|')}>`;
  }
  return options;
}
