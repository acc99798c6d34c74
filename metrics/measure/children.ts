/**
 * Child processes of a run. Each sample's child leads its own process group (spawned detached), so
 * it and anything it started can be killed together; the registry kills every live group when the
 * runner itself is interrupted, so no process is ever left behind.
 */
import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();

export function track(child: ChildProcess): void {
  live.add(child);
  child.once('close', () => live.delete(child));
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

/**
 * Stop a child: SIGTERM to its group, SIGKILL after `graceMs`, and a final SIGKILL to the group in
 * any case so that grandchildren that outlive their parent go too.
 */
export async function stopGroup(child: ChildProcess, graceMs = 2000): Promise<void> {
  if (!exited(child)) {
    signalGroup(child, 'SIGTERM');
    if (!(await waitClose(child, graceMs))) signalGroup(child, 'SIGKILL');
  }
  signalGroup(child, 'SIGKILL');
  await waitClose(child, graceMs);
  live.delete(child);
}

/** Kill every live group at once (synchronous: usable from a signal or exit handler). */
export function killAll(): void {
  for (const child of live) signalGroup(child, 'SIGKILL');
}

export interface InterruptGuard {
  /** true once SIGINT or SIGTERM arrived */
  readonly interrupted: boolean;
  /** stop catching the signals (call it in a finally) */
  dispose(): void;
}

/**
 * While a run measures: SIGINT or SIGTERM kills every live group at once and marks the run
 * interrupted (the caller stops after the sample in flight); an exit of the runner kills them too.
 */
export function catchInterrupts(): InterruptGuard {
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    killAll();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', killAll);
  return {
    get interrupted() {
      return interrupted;
    },
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('exit', killAll);
    },
  };
}
