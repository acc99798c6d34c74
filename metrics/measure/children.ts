/**
 * Child processes of a run. Each sample's child leads its own process group (spawned detached), so
 * it and anything it started can be killed together; the registry kills every live group when the
 * runner itself is interrupted, so no process is ever left behind (descendants that leave the group
 * stay under the containment helper, contain.ts, or are found by their mark, marked.ts; children die
 * with a killed runner, parent-death.ts). And the
 * runner's interrupt guard, from the first Ctrl-C to the end of the report.
 */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { CLOSED_OUTPUT_EVENT } from '../core/interrupts.ts';
import { killBelow } from './process-tree.ts';

const live = new Set<ChildProcess>();
/** children started under the containment helper (contain.ts): SIGUSR1 asks it to kill its whole tree */
const contained = new WeakSet<ChildProcess>();
/** children that are their PID namespace's init (util-linux unshare, no helper): SIGTERM does not stop them */
const selfInit = new WeakSet<ChildProcess>();

export function track(child: ChildProcess, how: { contained?: boolean; selfInit?: boolean } = {}): void {
  live.add(child);
  if (how.contained) contained.add(child);
  if (how.selfInit) selfInit.add(child);
  child.once('close', () => live.delete(child));
}

/**
 * Kill the child's whole tree now. A group SIGKILL would kill a containment helper before it could
 * sweep the descendants that left the group, so a contained child's helper is asked instead
 * (SIGUSR1: it SIGKILLs every descendant, then ends as its command did).
 */
function killTree(child: ChildProcess): void {
  if (contained.has(child) && !exited(child) && child.pid !== undefined) {
    try {
      process.kill(child.pid, 'SIGUSR1');
      // a helper the app stopped would never act on it
      process.kill(child.pid, 'SIGCONT');
      return;
    } catch {
      // gone: the group below
    }
  }
  signalGroup(child, 'SIGKILL');
}

export function liveChildren(): number {
  return live.size;
}

/** Send a signal to the child's whole process group; false when the group is already gone. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Wait for 'close' (exit and stdio drained), at most `ms`; true when it closed. */
function waitClose(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child) && !live.has(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Wait for the child's exit, at most `ms`; true when it exited. */
function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** How long the pipes may stay open after the child exited before the runner closes them. */
const PIPES_AFTER_EXIT_MS = 250;

/**
 * Stop a child: SIGTERM to its group, SIGKILL after `graceMs`, and a final SIGKILL to the group in
 * any case so that grandchildren that outlive their parent go too; then `sweep` (descendants that
 * left the group). A process that still holds the child's stdout or stderr (a daemon started with
 * setsid that escaped every kill) cannot keep the runner waiting: the runner closes its ends.
 */
export async function stopGroup(child: ChildProcess, graceMs = 2000, sweep?: () => void): Promise<void> {
  if (!exited(child)) {
    // a namespace's init ignores SIGTERM: waiting for it would only cost the grace
    if (!selfInit.has(child)) signalGroup(child, 'SIGTERM');
    if (selfInit.has(child) || !(await waitExit(child, graceMs))) {
      killTree(child);
      await waitExit(child, graceMs);
    }
  }
  // a helper the app stopped (SIGSTOP) never sweeps: the runner kills its tree, then the helper, before
  // the group SIGKILL below would hand the tree to init
  if (contained.has(child) && !exited(child) && child.pid !== undefined) killBelow(child.pid);
  signalGroup(child, 'SIGKILL');
  sweep?.();
  await waitExit(child, graceMs);
  if (!(await waitClose(child, PIPES_AFTER_EXIT_MS))) {
    child.stdout?.destroy();
    child.stderr?.destroy();
    await waitClose(child, graceMs);
  }
  live.delete(child);
}

/** Kill every live group at once (synchronous: usable from a signal or exit handler). */
export function killAll(): void {
  for (const child of live) killTree(child);
}

/** The signals that interrupt a run, each handled as Ctrl-C is: a closed terminal or SSH session (SIGHUP) too. */
export const INTERRUPT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface InterruptGuard {
  /** true once one of INTERRUPT_SIGNALS arrived while the samples ran */
  readonly interrupted: boolean;
  /** the first of them, which the run exits with (128 + its number) */
  readonly signal: NodeJS.Signals | undefined;
  /** the report of run folder `dir` is being written: a signal now asks for it once, a later one aborts */
  writingReport(dir: string): void;
  /** stop catching the signals (call it in a finally) */
  dispose(): void;
}

/**
 * Signals closer together than this are one interrupt: a terminal's Ctrl-C reaches every process of
 * the foreground group, and launchers (npm, make) forward it again, so one key press arrives two or
 * three times within milliseconds; a nervous double press comes a few hundred ms later.
 */
export const SAME_INTERRUPT_MS = 1000;

/**
 * From the first interrupt (INTERRUPT_SIGNALS) of a run to the end of its report: the first kills every live
 * group at once and marks the run interrupted (the caller stops after the sample in flight and
 * writes the report of what finished); copies within SAME_INTERRUPT_MS do nothing more. While the
 * report is written, a signal that is not such a copy of the last one aborts the report (exit 130;
 * every finished sample stays in samples.jsonl, and files are written whole or not at all). An exit
 * of the runner kills the groups too.
 */
export function catchInterrupts(say: (line: string) => void = (line) => process.stderr.write(`coldstart: ${line}\n`)): InterruptGuard {
  let interrupted = false;
  let first: NodeJS.Signals | undefined;
  let report: string | undefined;
  let last = -Infinity;
  let warned = false;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = performance.now();
    const copy = now - last < SAME_INTERRUPT_MS;
    last = now;
    first ??= signal;
    killAll();
    if (copy) return;
    if (report !== undefined && (interrupted || warned)) {
      say(
        `${signal}: report aborted; ${report}/samples.jsonl keeps every finished sample: \`npm run report -- ${report}\` writes the report`,
      );
      process.exit(exitCodeOfSignal(first));
    }
    if (report !== undefined) {
      warned = true;
      say(`${signal}: every sample is done, writing the report; press Ctrl-C again to abort it`);
      return;
    }
    interrupted = true;
    say(`${signal}: stopping; the report of the finished samples follows (press Ctrl-C again while it is written to abort it)`);
  };
  const onClosedOutput = () => onSignal('SIGPIPE');
  for (const signal of INTERRUPT_SIGNALS) process.on(signal, onSignal);
  process.on(CLOSED_OUTPUT_EVENT, onClosedOutput);
  process.on('exit', killAll);
  return {
    get interrupted() {
      return interrupted;
    },
    get signal() {
      return first;
    },
    writingReport(dir: string) {
      report = dir;
    },
    dispose() {
      for (const signal of INTERRUPT_SIGNALS) process.off(signal, onSignal);
      process.off(CLOSED_OUTPUT_EVENT, onClosedOutput);
      process.off('exit', killAll);
    },
  };
}

/** What a run interrupted by `signal` exits with: 128 + its number (130 for SIGINT, 143 SIGTERM, 129 SIGHUP, 141 SIGPIPE). */
export function exitCodeOfSignal(signal: NodeJS.Signals | undefined): number {
  return 128 + (signal ? os.constants.signals[signal] : os.constants.signals.SIGINT);
}
