/**
 * The deadline of every child the tool waits on that had none of its own, in one table (the short `spawnSync`
 * ones, npm, esbuild's builds, the runtime client's build), and the one line a child that did not end well
 * makes: a tool that hangs (a `sync` on a wedged disk, a `git` waiting on a lock or a credential prompt, a
 * `strace` stuck in ptrace) is stopped at its deadline and named with the time it was allowed, never a run
 * that waits. Others have their own bounds: a sample its `--timeout`, hyperfine the cell's budget, a snapshot
 * build 120 s.
 */

/** Each deadline, s, with its reason. */
export const CHILD_DEADLINES_S = {
  /** `strace -V`, `sh -c 'command -v TOOL'`: a version or a lookup on PATH, milliseconds when it works */
  probe: 10,
  /** `git rev-parse --show-toplevel` (bisect --git): a local lookup; as the gate's other git calls (60 s) */
  git: 60,
  /** `sync --data` of a cell's files (a few thousand at most, a fresh bundle among them): seconds on a slow disk */
  sync: 120,
  /** a cold file-cache cell's eviction (`dd iflag=nocache count=0` a file, no data read): seconds for thousands */
  evict: 120,
  /** `npm install` of a runtime, a package's versions, a bisect step's app (plan/npm-install.ts): a download and an unpack */
  npmInstall: 600,
  /** `npm view PKG versions --json` (bisect --package): one registry answer */
  registry: 120,
  /**
   * one esbuild build through its service (plan/esbuild-service.ts; not a spawnSync, the same rule): a bundle of an
   * app or of a 5,000-route file takes seconds; past this the service is taken as hung and stopped
   */
  esbuild: 300,
  /**
   * the Runtime Interface Client's build (plan/ric-build.ts: npm, cmake, make, g++; its supervisor stops it): 34 s on a
   * quiet machine, 939 s at load 4–31 (issue 51); half an hour leaves twice the slowest seen
   */
  ricBuild: 1800,
} as const;

export type ChildDeadline = keyof typeof CHILD_DEADLINES_S;

/** The environment variable that sets every deadline of this table, s (for tests: a stand-in that sleeps). */
export const CHILD_DEADLINE_ENV = 'COLDSTART_CHILD_DEADLINE_S';

/** The deadline of `which`, ms: the table's, or the environment's for every child (CHILD_DEADLINE_ENV, a positive number). */
export function childDeadlineMs(which: ChildDeadline, env: NodeJS.ProcessEnv): number {
  const given = Number(env[CHILD_DEADLINE_ENV]);
  return (Number.isFinite(given) && given > 0 ? given : CHILD_DEADLINES_S[which]) * 1000;
}

/** What `spawnSync` returns that says how a child ended. */
export interface ChildEnd {
  error?: Error | undefined;
  status: number | null;
  signal?: NodeJS.Signals | null;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Whether spawnSync stopped the child at its deadline (`timeout`). */
export function deadlinePassed(end: ChildEnd): boolean {
  return end.error !== undefined && 'code' in end.error && end.error.code === 'ETIMEDOUT';
}

/**
 * One line for a child that did not end well (undefined when it exited 0): stopped at its deadline (the time it was
 * allowed), not started, or its exit code (or the signal that ended it). `what` names the command.
 */
export function childFailureLine(what: string, end: ChildEnd, deadlineMs: number): string | undefined {
  if (deadlinePassed(end)) return `${what} did not end within its ${seconds(deadlineMs)} deadline: stopped it`;
  if (end.error) return `${what} did not run: ${end.error.message.split('\n')[0]!}`;
  if (end.status === 0) return undefined;
  return end.status === null ? `${what} was ended by ${end.signal ?? 'a signal'}` : `${what} exited with code ${end.status}`;
}
