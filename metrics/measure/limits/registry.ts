/**
 * The sample cgroups that exist right now, so an exit or a Ctrl-C of the runner removes them all
 * (and kills what is inside) even when the sample that made one never reaches its own teardown.
 */
import { INTERRUPT_SIGNALS } from '../children.ts';

interface Removable {
  readonly name: string;
  teardownSync(): void;
}

const live = new Set<Removable>();

export function register(cgroup: Removable): void {
  live.add(cgroup);
}

export function unregister(cgroup: Removable): void {
  live.delete(cgroup);
}

/** Names of the sample cgroups not torn down yet. */
export function liveCgroups(): string[] {
  return [...live].map((c) => c.name);
}

/** Tear every live sample cgroup down, synchronously; errors are printed, not thrown (an exit handler cannot throw). */
export function teardownAllSync(): void {
  for (const cgroup of [...live]) {
    try {
      cgroup.teardownSync();
    } catch (error) {
      process.stderr.write(`coldstart: ${(error as Error).message}\n`);
    }
  }
}

export interface LimitsGuard {
  dispose(): void;
}

/**
 * While samples run under limits: an interrupt (INTERRUPT_SIGNALS) and the runner's exit tear every live sample
 * cgroup down. Pair it with the run's interrupt guard, which decides that the run stops: a
 * listener here keeps node from dying of the signal by itself.
 */
export function guardLimits(): LimitsGuard {
  for (const signal of INTERRUPT_SIGNALS) process.on(signal, teardownAllSync);
  process.on('exit', teardownAllSync);
  return {
    dispose() {
      for (const signal of INTERRUPT_SIGNALS) process.off(signal, teardownAllSync);
      process.off('exit', teardownAllSync);
    },
  };
}
