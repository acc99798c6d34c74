/**
 * One sample: spawn a fresh process, let its target say when it is ready and ask it for its first
 * answer, stop the process group. Every failure (spawn error, crash, hang, bad line, wrong answer)
 * becomes a failed sample with a one-line reason; nothing here throws for a bad child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PROTOCOL_PREFIX } from '../../generators/probe.ts';
import type { Contract } from '../../generators/types.ts';
import type { AppSpec } from '../core/app.ts';
import type { Cell } from '../core/cell.ts';
import type { SampleRecord } from '../core/samples.ts';
import type { Launch } from '../plan/launch.ts';
import { stopGroup, track } from './children.ts';
import { killMarked, nextSampleMark, OWNER_ENV } from './marked.ts';
import { containedPid, containment, withContainment } from './contain.ts';
import { makeSweepCgroup } from './sweep-cgroup.ts';
import { warmCgroupMoves } from './limits/cgroupfs.ts';
import { SampleFailure, type SampleIO, type Target } from './targets/target.ts';
import { serverTarget } from './targets/server.ts';
import { oneLine, telling } from './text.ts';

export interface SampleRequest {
  cell: Cell;
  launch: Launch;
  contract: Contract;
  phase: SampleRecord['phase'];
  index: number;
  /** the whole sample (spawn to verified answer) must finish within this */
  timeoutMs: number;
  /** also send an invalid body after the timed answer and expect 4xx */
  checkInvalidBody: boolean;
  /** first requests to this many further routes after the timed answer (0: none) */
  firstHits: number;
  /** how the child runs and is asked (default: the HTTP server target) */
  target?: Target;
  /** the file the child runs (default: the launch's last argument) */
  file?: string;
  /** the user's own app (`measure`): how it is asked and what it must answer */
  app?: AppSpec;
  /** how many times slower than usual the child runs (under valgrind): scales the short waits for optional lines */
  slowdown?: number;
  /** told the runner's clock (performance.now()) at the spawn call, the origin of the sample's marks */
  onSpawn?: (spawnAt: number) => void;
}

/** How many bytes of stderr a failed sample keeps. */
const STDERR_TAIL = 2000;
/** Non-protocol stdout a child may print (banners) before it counts as garbage. */
const STDOUT_LIMIT = 1 << 20;

/**
 * Why a sample failed whose child ended by itself (`how`: `exited with code 1`, `was killed by SIGSEGV`),
 * `ready` once it had printed its ready line, `error` its own error line from stderr. The fake sampler
 * fails with the same text.
 */
export function endedReason(how: string, ready: boolean, error: string | undefined): string {
  return `${how} ${ready ? 'before it answered' : 'before it was ready'}${error ? `: ${oneLine(error)}` : ''}`;
}

/** Why a sample failed whose child said nothing more for `waitMs` (`what`: `ready line`); the last other line it printed, if any. */
export function hungReason(what: string, waitMs: number, lastLine = ''): string {
  const seen = lastLine ? `; last stdout line: ${oneLine(lastLine, 120)}` : '';
  return `no ${what} within ${Math.round(waitMs)} ms (hung or too slow)${seen}`;
}

/**
 * The child's stdout as protocol lines: lines with the prefix are queued for the target, other
 * output is tolerated up to STDOUT_LIMIT. Waiting fails when the child exits, cannot start, prints
 * too much or the deadline passes.
 */
class ProtocolReader {
  private readonly lines: string[] = [];
  private waiting: { resolve: (line: string | undefined) => void; reject: (error: Error) => void } | undefined;
  private failure: SampleFailure | undefined;
  private buffered = '';
  /** past STDOUT_LIMIT: the sample has failed and what the child prints is dropped, not kept */
  private overflowed = false;
  private otherBytes = 0;
  private lastOther = '';
  private delivered = 0;
  /** how the child ended (`exited with code 1: <its error line>`), once it has */
  private exitedHow: string | undefined;
  private readonly exitWaiters = new Set<(how: string) => void>();

  constructor(
    child: ChildProcess,
    stderrTail: () => string,
    private readonly deadline: number,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => this.onData(chunk));
    child.once('error', (error) => this.fail(new SampleFailure(`could not start: ${error.message}`)));
    child.once('exit', (code, signal) => {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      // the child's own error line, when its stderr has one
      const error = telling(stderrTail());
      this.exitedHow = `${how}${error ? ` (${oneLine(error, 160)})` : ''}`;
      for (const waiter of this.exitWaiters) waiter(this.exitedHow);
      this.exitWaiters.clear();
      this.fail(new SampleFailure(endedReason(how, this.delivered > 0, error)), true);
    });
  }

  private onData(chunk: Buffer): void {
    if (this.overflowed) return;
    this.buffered += chunk.toString('utf8');
    // a line with no end is bounded too: past the limit the sample fails and nothing more is kept
    if (this.buffered.length > STDOUT_LIMIT && !this.buffered.includes('\n')) {
      this.overflowed = true;
      this.buffered = '';
      this.fail(new SampleFailure(`printed a stdout line over ${STDOUT_LIMIT} bytes`));
      return;
    }
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline).replace(/\r$/, '');
      this.buffered = this.buffered.slice(newline + 1);
      if (line.startsWith(PROTOCOL_PREFIX)) {
        this.lines.push(line.slice(PROTOCOL_PREFIX.length));
        this.deliver();
        continue;
      }
      this.otherBytes += line.length + 1;
      if (line.trim()) this.lastOther = line;
      if (this.otherBytes > STDOUT_LIMIT) {
        this.overflowed = true;
        this.buffered = '';
        this.fail(new SampleFailure(`printed over ${STDOUT_LIMIT} bytes of stdout without a protocol line`));
        return;
      }
    }
  }

  private deliver(): void {
    if (!this.waiting) return;
    const line = this.lines.shift();
    if (line !== undefined) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      this.delivered++;
      resolve(line);
    } else if (this.failure) {
      const { reject } = this.waiting;
      this.waiting = undefined;
      reject(this.failure);
    }
  }

  /** `exited`: the child is gone, so lines it printed before still count but no more will come. */
  private fail(failure: SampleFailure, exited = false): void {
    this.failure ??= failure;
    if (!exited) this.lines.length = 0;
    this.deliver();
  }

  next(what: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const wait = Math.max(1, this.deadline - performance.now());
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new SampleFailure(hungReason(what, wait, this.lastOther)));
      }, wait);
      this.waiting = {
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line!);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.deliver();
    });
  }

  /** `promise` unless the child exits or the deadline passes first. */
  whileAlive<T>(promise: Promise<T>, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const wait = Math.max(1, this.deadline - performance.now());
      const timer = setTimeout(() => {
        this.exitWaiters.delete(onExit);
        reject(new SampleFailure(hungReason(what, wait)));
      }, wait);
      const onExit = (how: string) => {
        clearTimeout(timer);
        reject(new SampleFailure(`${how} before ${what}`));
      };
      if (this.exitedHow) {
        onExit(this.exitedHow);
        return;
      }
      this.exitWaiters.add(onExit);
      promise.then(
        (value) => {
          clearTimeout(timer);
          this.exitWaiters.delete(onExit);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          this.exitWaiters.delete(onExit);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  optional(ms: number): Promise<string | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        resolve(undefined);
      }, ms);
      const done = (line: string | undefined) => {
        clearTimeout(timer);
        resolve(line);
      };
      this.waiting = { resolve: done, reject: () => done(undefined) };
      this.deliver();
    });
  }
}

export interface SampleHooks {
  /** extra variables for this child (on top of launch.env) */
  env?: Record<string, string>;
  /** wraps the launch (e.g. to start the child inside a cgroup) */
  wrap?: (launch: Launch) => Launch;
  /** the command keeps the pid the runner sees (no PID namespace of its own: valgrind's vgdb finds it by that pid) */
  hostPid?: boolean;
  /** called right after the spawn with how to find the command's pid (a contained command forks from its helper a moment later) */
  spawned?: (pid: () => number | undefined) => void;
  /** called when the target says INIT is over, before the first request */
  endOfInit?: () => Promise<void>;
  /** called once the child and its group are gone, with how it ended before the runner stopped it */
  after?: (record: SampleRecord, exit: { signal: NodeJS.Signals | null }) => Promise<void>;
}

export async function runSample(request: SampleRequest, hooks: SampleHooks = {}): Promise<SampleRecord> {
  const { cell } = request;
  const target = request.target ?? serverTarget;
  const at = new Date().toISOString();
  const record: SampleRecord = { cell, phase: request.phase, index: request.index, ok: false, durationMs: 0, at };
  const file = request.file ?? request.launch.file ?? request.launch.args.at(-1) ?? '';
  const targetSample = await target.open({ cell, file, ...(request.app ? { app: request.app } : {}) });
  let stderr = '';
  // the mark every descendant inherits, so that one that leaves the process group is found too
  const mark = nextSampleMark();
  const base = { ...request.launch, env: { ...request.launch.env, ...targetSample.env, ...hooks.env, [OWNER_ENV]: mark } };
  // nothing the child starts outlives the sample, and the child dies with the runner, even a runner
  // killed with SIGKILL (contain.ts; without the helper, setpriv's parent-death signal and the mark)
  const hostPid = hooks.hostPid ?? false;
  // the helper without a namespace can be killed by the app: a cgroup of the sample's own catches its orphans
  const cgroup = containment(hostPid) === 'helper' ? makeSweepCgroup() : undefined;
  const launch = withContainment(hooks.wrap ? hooks.wrap(base) : base, { hostPid, ...(cgroup ? { cgroupProcs: cgroup.procs } : {}) });
  if (cgroup) warmCgroupMoves(path.join(path.dirname(path.dirname(cgroup.procs)), 'cgroup.procs'));
  // the clock starts after the wrap: a limits wrapper prepares the kernel first, outside the sample
  const spawnAt = performance.now();
  const deadline = spawnAt + request.timeoutMs;
  const child = spawn(launch.command, launch.args, { cwd: launch.cwd, env: launch.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  track(child, launch);
  request.onSpawn?.(spawnAt);
  // under the helper, the command is the helper's child (in a PID namespace, its init's child)
  let commandPid = launch.depth > 0 ? undefined : child.pid;
  const pidOfCommand = () => (commandPid ??= child.pid === undefined ? undefined : containedPid(child.pid, launch.depth));
  hooks.spawned?.(pidOfCommand);
  // how the child ended by itself (a crash, or the kernel's OOM kill), before the runner stopped it
  let stopping = false;
  let ended: { signal: NodeJS.Signals | null } = { signal: null };
  child.once('exit', (_code, signal) => {
    if (!stopping) ended = { signal };
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  const reader = new ProtocolReader(child, () => stderr, deadline);
  const io: SampleIO = {
    cell,
    contract: request.contract,
    ...(request.app ? { app: request.app } : {}),
    checkInvalidBody: request.checkInvalidBody,
    firstHits: request.firstHits,
    spawnAt,
    get pid() {
      return pidOfCommand();
    },
    remaining: () => Math.max(1, deadline - performance.now()),
    protocolLine: (what) => reader.next(what),
    optionalProtocolLine: (ms) => reader.optional(ms * (request.slowdown ?? 1)),
    whileAlive: (promise, what) => reader.whileAlive(promise, what),
    endOfInit: hooks.endOfInit ?? (() => Promise.resolve()),
  };
  try {
    const measured = await targetSample.measure(io);
    Object.assign(record, { ok: true }, measured);
  } catch (error) {
    record.ok = false;
    record.error = error instanceof SampleFailure ? error.message : `runner error: ${(error as Error).message}`;
  } finally {
    stopping = true;
    await stopGroup(child, undefined, () => killMarked(mark));
    // left to the next run's leftovers when it cannot be removed now
    await cgroup?.remove().catch(() => undefined);
    await targetSample.close();
    record.durationMs = performance.now() - spawnAt;
    await hooks.after?.(record, ended);
  }
  if (!record.ok && stderr.trim()) record.stderrTail = stderr.trim().slice(-STDERR_TAIL);
  return record;
}

/** The record of a planned run whose cell is blocked: nothing was spawned. */
export function blockedRecord(
  run: { cell: Cell; phase: SampleRecord['phase']; index: number },
  blocked: { kind: 'failed' | 'unsupported'; reason: string },
): SampleRecord {
  const record: SampleRecord = {
    cell: run.cell,
    phase: run.phase,
    index: run.index,
    ok: false,
    durationMs: 0,
    at: new Date().toISOString(),
  };
  if (blocked.kind === 'unsupported') record.unsupported = blocked.reason;
  else record.error = blocked.reason;
  return record;
}
