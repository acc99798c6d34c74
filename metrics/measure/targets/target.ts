/**
 * A target is how a cell runs and is asked for its first answer: a long-running HTTP server today
 * (server.ts), a handler under a Runtime API next. The sample runner (../sample.ts) spawns the child,
 * watches it and stops it; a target says when the child is ready, sends the first request, checks the
 * answer and returns the sample's marks. Targets throw SampleFailure for anything the child did wrong.
 */
import type { Contract } from '../../../generators/types.ts';
import type { AppSpec } from '../../core/app.ts';
import type { Cell } from '../../core/cell.ts';
import { performance } from 'node:perf_hooks';
import type { CpuMarks, FirstHits, InvalidBodyCheck, LambdaFigures, Marks } from '../../core/samples.ts';

/** How long, once the answer is verified, a target waits for the child's after-answer line (its CPU time). */
export const AFTER_LINE_WAIT_MS = 1000;

/** A failure of the measured child (not of the runner): becomes the sample's one-line reason. */
export class SampleFailure extends Error {}

/** What the sample runner gives a target while a child runs. */
export interface SampleIO {
  cell: Cell;
  contract: Contract;
  /** the user's own app (`measure`): its request or event and the answer it must give, instead of the contract's */
  app?: AppSpec;
  /** also send an invalid body after the timed answer and expect 4xx */
  checkInvalidBody: boolean;
  /** after the timed answer, first requests to this many further distinct routes (0: none) */
  firstHits: number;
  /** the runner's clock (performance.now()) at the spawn call: the origin of every mark */
  spawnAt: number;
  /** the child's pid */
  pid: number | undefined;
  /** ms left until the sample's deadline (at least 1) */
  remaining(): number;
  /**
   * The next line the child prints with the protocol prefix, without the prefix. Rejects with a
   * SampleFailure when the child exits, cannot start, prints too much without one, or the deadline
   * passes (`no <what> within … ms`).
   */
  protocolLine(what: string): Promise<string>;
  /** The same, but resolves undefined after `ms` (or when the child is gone) instead of failing. */
  optionalProtocolLine(ms: number): Promise<string | undefined>;
  /**
   * `promise`, unless the child exits or the deadline passes first: then a SampleFailure
   * (`exited with code 1 before <what>`, `no <what> within … ms`).
   */
  whileAlive<T>(promise: Promise<T>, what: string): Promise<T>;
  /**
   * The target calls this once, when the child has finished its initialisation and before the first
   * request: where a CPU limit switches from the INIT share to the memory size's share.
   */
  endOfInit(): Promise<void>;
}

/** What a target measured in one sample. */
export interface Measured {
  marks: Marks;
  /** the figures Lambda's REPORT line gives, for targets that play Lambda */
  lambda?: LambdaFigures;
  cpu?: CpuMarks;
  rss?: number;
  heapUsed?: number;
  runtimeVersion?: string;
  invalidBody?: InvalidBodyCheck;
  firstHits?: FirstHits;
  /**
   * a server probed from outside (lambda-web): its own listen mark, ms on the timeline, beside `marks.listen`
   * (when its address accepted a connection)
   */
  ownListen?: number;
}

/** One sample's resources on the target side (a Runtime API server, for instance). */
export interface TargetSample {
  /** variables the child needs on top of its clean environment */
  env: Record<string, string>;
  measure(io: SampleIO): Promise<Measured>;
  /** release what open() made; called after the child is gone */
  close(): Promise<void>;
}

export interface Target {
  name: string;
  /** Per sample, before the spawn: `file` is what the child runs (its folder is the task root on Lambda). */
  open(sample: { cell: Cell; file: string; app?: AppSpec }): Promise<TargetSample>;
}

/** The marks a child reports on its own clock, before it is ready (the user's app, through the preload, only `start`). */
export interface ChildMarks {
  start: number;
  imported?: number;
  startup?: number;
}

/** Below this, a difference between the wall clock and this process's timeline is Date.now's resolution, not a step. */
const WALL_STEP_MS = 2;

/**
 * A moment of this process's timeline (performance.now()) as wall-clock epoch ms, the clock a child's
 * performance.timeOrigin is read on. performance.timeOrigin was read once, when this process started: a
 * wall clock stepped since (a VM paused and resumed, the clock set) moved every child's marks by the step,
 * and a long run's samples then all failed as "the child's clock disagrees" (a versions run, after a minute
 * of installs). The step is measured now and added; under WALL_STEP_MS it is none, so a clock that did not
 * step gives the figures it always gave.
 */
export function wallEpochOf(
  at: number,
  now: { wall: number; timeline: number } = { wall: Date.now(), timeline: performance.now() },
): number {
  const step = now.wall - (performance.timeOrigin + now.timeline);
  return performance.timeOrigin + at + (Math.abs(step) >= WALL_STEP_MS ? step : 0);
}

/**
 * The child's marks moved onto the sample's timeline (ms since the runner's spawn call), through the
 * child's performance.timeOrigin; `ready` (listen, or the end of INIT) is already on that timeline.
 * The two clocks must agree to within a few ms, or every mark is suspect: a SampleFailure then.
 */
export function timelineMarks(
  child: { timeOrigin: number; marks: ChildMarks },
  spawnAt: number,
  ready: { name: 'listen' | 'init'; at: number },
  firstResponse: number,
): Marks {
  const spawnAbs = wallEpochOf(spawnAt);
  const onTimeline = (childMs: number) => child.timeOrigin + childMs - spawnAbs;
  const processStart = onTimeline(0);
  if (processStart < -5 || ready.at > firstResponse + 5) {
    throw new SampleFailure(`the child's clock disagrees with the runner's (process start at ${processStart.toFixed(1)} ms)`);
  }
  const { imported, startup } = child.marks;
  return {
    processStart,
    start: onTimeline(child.marks.start),
    ...(imported !== undefined ? { imported: onTimeline(imported) } : {}),
    ...(startup !== undefined ? { startup: onTimeline(startup) } : {}),
    [ready.name]: ready.at,
    firstResponse,
  };
}
