/**
 * The contract between the runner and a limits mechanism (cgroup v2 or v1): per sample, a cgroup
 * the child is born into, a CPU switch at the end of INIT, what the limit did, and a teardown.
 */
import type { LimitSettings } from './settings.ts';

export type MechanismKind = 'cgroup-v2' | 'cgroup-v1';

/** What meta.json records about the mechanism (the settings are recorded next to it). */
export interface MechanismInfo {
  kind: MechanismKind;
  /** controller → the directory the sample cgroups are made in */
  parents: Record<string, string>;
  /** the memory limit also caps swap (cgroup v1 with memory.memsw, or v2's memory.swap.max) */
  swapLimited: boolean;
  /** the smallest memory limit of the parents' cgroups, bytes, when one is set: it caps every sample too */
  inheritedMemoryLimitBytes?: number;
  /** anything the mechanism changed outside its own sample cgroups (cgroup v2: where the runner was moved) */
  notes: string[];
}

export interface Launch {
  command: string;
  args: string[];
}

export interface CpuTime {
  /** CPU time the cgroup's processes used so far, ms */
  usageMs: number;
  /** time the quota held them back so far, ms, and in how many periods */
  throttledMs?: number;
  throttledPeriods?: number;
}

export interface LimitOutcome {
  memoryMB: number;
  /** the cgroup's memory peak, bytes (page cache the sample read counts too); undefined where the kernel keeps none */
  peakBytes?: number;
  /** the kernel's OOM killer fired in the cgroup (or, where it keeps no count, a SIGKILL with the peak at the limit) */
  outOfMemory: boolean;
  /** "out of memory at M MB" when outOfMemory */
  reason?: string;
}

/** How the child ended before the runner stopped it; it tells an OOM kill where the kernel keeps no count. */
export interface ExitHint {
  signal?: NodeJS.Signals | null;
}

/** One sample's cgroup(s). Every method is safe to call after teardown (it then does nothing or reports nothing). */
export interface SampleLimits {
  /** the cgroup's directory name, `coldstart-<runner pid>-<n>` */
  readonly name: string;
  readonly settings: LimitSettings;
  /**
   * The launch to spawn instead: a shell that joins the cgroup, then execs the real command with the
   * same pid. Call it right before spawning and start the sample's clock after it: it first makes
   * the kernel's cgroup moves fast (a no-op move of the runner), so the join inside the clock is.
   */
  wrap(launch: Launch): Launch;
  /** INIT is over: CPU quota to memoryMB / 1769 vCPUs (call before sending the first request) */
  switchToInvokeCpu(): void;
  /** a snapshot of the cgroup's CPU time; undefined when the kernel does not say */
  cpuTime(): CpuTime | undefined;
  /** what the memory limit did; call after the child has exited (after stopping it), before teardown */
  outcome(hint?: ExitHint): LimitOutcome;
  /** kill whatever is left in the cgroup(s) and remove them (retries briefly while tasks die) */
  teardown(): Promise<void>;
  /** the same, synchronous: for an exit or signal handler */
  teardownSync(): void;
}

export interface LimitsMechanism {
  readonly info: MechanismInfo;
  /** make one sample's cgroup(s), memory limit set and CPU at initCpus; throws LimitsError when the kernel refuses */
  create(settings: LimitSettings): SampleLimits;
}

/** A cgroup operation failed (the kernel refused a write, a directory could not be made or removed). */
export class LimitsError extends Error {}
