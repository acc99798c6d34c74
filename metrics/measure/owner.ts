/**
 * Who owns a leftover: a runner is named by its pid and its start time (clock ticks since boot,
 * /proc/<pid>/stat), so a pid the kernel reused for another process never passes for the runner.
 * Everything a run leaves on the machine while it works (its folder's lock, its scratch folder,
 * the environment marker of its children) carries this tag; a later run cleans only what belongs
 * to a runner that is no longer alive.
 */
import { readFileSync } from 'node:fs';

export interface Owner {
  pid: number;
  /** start time in clock ticks since boot; undefined where /proc is not readable */
  start: number | undefined;
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces). */
export function processStart(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): field 22 is fields[19]
  const start = Number(fields[19]);
  return Number.isSafeInteger(start) ? start : undefined;
}

let self: Owner | undefined;

export function selfOwner(): Owner {
  self ??= { pid: process.pid, start: processStart(process.pid) };
  return self;
}

/** `<pid>.<start>` (or `<pid>` without /proc): safe in file names and environment values. */
export function ownerTag(owner: Owner = selfOwner()): string {
  return owner.start === undefined ? `${owner.pid}` : `${owner.pid}.${owner.start}`;
}

export function parseOwnerTag(tag: string): Owner | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(tag);
  if (!match) return undefined;
  return { pid: Number(match[1]), start: match[2] === undefined ? undefined : Number(match[2]) };
}

/** Whether a process with this pid exists (EPERM: it does, run by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Is this runner still running? The same pid with another start time is another process. */
export function ownerAlive(owner: Owner): boolean {
  if (owner.pid === process.pid) return owner.start === undefined || owner.start === selfOwner().start;
  if (!processAlive(owner.pid)) return false;
  if (owner.start === undefined) return true;
  const start = processStart(owner.pid);
  return start === undefined || start === owner.start;
}

/** Linux counts process start times in USER_HZ ticks, 100 per second on every architecture it runs on. */
const TICKS_PER_SECOND = 100;
/** The boot time (/proc/stat btime) has whole seconds: comparisons allow this much. */
const BOOT_TIME_SLACK_MS = 2000;

function bootTimeMs(): number | undefined {
  try {
    const match = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return match ? Number(match[1]) * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Could the live process `pid` have made something at `madeAtMs` (a cgroup's or folder's mtime)? A
 * process with that pid that started later is another process on a reused pid.
 */
export function aliveSince(pid: number, madeAtMs: number): boolean {
  if (!processAlive(pid)) return false;
  const ticks = processStart(pid);
  const boot = bootTimeMs();
  if (ticks === undefined || boot === undefined) return true;
  return boot + (ticks * 1000) / TICKS_PER_SECOND <= madeAtMs + BOOT_TIME_SLACK_MS;
}
