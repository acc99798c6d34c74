/**
 * The cgroup filesystem, both versions: reading and writing control files, finding the hierarchies
 * and the runner's own cgroups, joining a cgroup before the first instruction, and removing one.
 */
import { readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LimitsError, type Launch } from './types.ts';

export function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A control file holding one number; undefined when absent or not a number. */
export function readNumber(file: string): number | undefined {
  const text = readText(file)?.trim();
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

/** `key value` lines (memory.events, memory.oom_control, cpu.stat) as numbers. */
export function parseKeyValues(text: string | undefined): Record<string, number> {
  const values: Record<string, number> = {};
  for (const line of (text ?? '').split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value !== undefined && /^\d+$/.test(value)) values[key] = Number(value);
  }
  return values;
}

/** v1 writes "no limit" as a number near 2^63 (v2 as "max"): anything above this is no limit. */
const NO_LIMIT_ABOVE = 2 ** 60;

/** The smallest limit `file` sets on `dir` or a cgroup above it, up to the hierarchy's mount point. */
export function smallestLimit(dir: string, mountPoint: string, file: string): number | undefined {
  let smallest: number | undefined;
  for (let at = dir; at.startsWith(mountPoint); at = path.dirname(at)) {
    const limit = readNumber(`${at}/${file}`);
    if (limit !== undefined && limit < NO_LIMIT_ABOVE) smallest = Math.min(smallest ?? limit, limit);
    if (at === mountPoint || at === path.dirname(at)) break;
  }
  return smallest;
}

export function writeControl(file: string, value: string | number): void {
  try {
    writeFileSync(file, String(value));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new LimitsError(`the kernel refused ${JSON.stringify(String(value))} in ${file} (${code})`);
  }
}

export interface Mount {
  mountPoint: string;
  /** the cgroup path the mount shows at its mount point (not "/" inside some containers) */
  root: string;
  fsType: string;
  /** the super options: the controllers of a v1 hierarchy, e.g. ["rw", "cpu", "cpuacct"] */
  options: string[];
}

/** Undo the octal escapes /proc uses for spaces and the like in paths. */
function unescapeMountPath(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** The cgroup mounts of /proc/self/mountinfo. */
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const dash = line.indexOf(' - ');
    if (dash < 0) continue;
    const before = line.slice(0, dash).split(' ');
    const [fsType, , superOptions] = line.slice(dash + 3).split(' ');
    if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
    const root = before[3];
    const mountPoint = before[4];
    if (root === undefined || mountPoint === undefined) continue;
    const options = (superOptions ?? '').split(',');
    mounts.push({ mountPoint: unescapeMountPath(mountPoint), root: unescapeMountPath(root), fsType, options });
  }
  return mounts;
}

export interface OwnCgroups {
  /** v1 controller → the runner's cgroup path in that hierarchy */
  v1: Map<string, string>;
  /** the runner's cgroup path in the v2 hierarchy */
  v2?: string;
}

/** /proc/self/cgroup: `id:controllers:path` lines; id 0 with no controllers is the v2 hierarchy. */
export function parseProcCgroup(text: string): OwnCgroups {
  const own: OwnCgroups = { v1: new Map() };
  for (const line of text.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, id, controllers, path] = match as unknown as [string, string, string, string];
    if (id === '0' && controllers === '') own.v2 = path;
    else for (const controller of controllers.split(',')) if (controller) own.v1.set(controller, path);
  }
  return own;
}

/** The directory of cgroup `path` under a mount, or undefined when the mount does not show it. */
export function cgroupDir(mount: Mount, path: string): string | undefined {
  const root = mount.root === '/' ? '' : mount.root;
  if (root && path !== root && !path.startsWith(`${root}/`)) return undefined;
  const relative = path.slice(root.length).replace(/^\/+/, '');
  return relative ? `${mount.mountPoint}/${relative}` : mount.mountPoint;
}

/**
 * A shell joins every cgroup (writes its own pid to each cgroup.procs), then execs the command:
 * the command's process keeps the pid (and process group) the runner spawned and runs its first
 * instruction inside the cgroups. Every path and argument is passed as an argument, never as code.
 */
const JOIN_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';
/** the shell's exit code when it could not join a cgroup (the command never ran) */
export const JOIN_FAILED_EXIT = 125;

export function joinAndExec(procsFiles: string[], launch: Launch): Launch {
  if (procsFiles.some((file) => file === '--')) throw new LimitsError('a cgroup.procs path cannot be "--"');
  return { command: '/bin/sh', args: ['-c', JOIN_SCRIPT, 'coldstart-limits', ...procsFiles, '--', launch.command, ...launch.args] };
}

/**
 * Moving a process between cgroups takes a kernel lock whose first writer after a quiet spell waits
 * for an RCU grace period (~14 ms on a 2-vCPU VM; then about 0.1 ms for a few ms more). Moving the
 * runner into the cgroup it is already in (a no-op) pays that wait before the launch, so the
 * child's own join, inside the measured time, is fast. Best effort: a failure only costs time.
 */
export function warmCgroupMoves(runnerProcs: string): void {
  try {
    writeFileSync(runnerProcs, String(process.pid), { flag: 'r+' });
  } catch {
    // the child's join pays the wait instead
  }
}

/** How long a teardown waits for a cgroup's tasks to die before it gives up, ms. */
const REMOVE_WITHIN_MS = 3000;
const RETRY_MS = 10;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function killMembers(dir: string, killFile: boolean): void {
  // cgroup v2 (Linux 5.14+) kills the whole cgroup at once, forks in flight included
  if (killFile) {
    try {
      // r+: never create the file where the kernel has none
      writeFileSync(`${dir}/cgroup.kill`, '1', { flag: 'r+' });
      return;
    } catch {
      // older kernel: kill each member
    }
  }
  for (const pid of (readText(`${dir}/cgroup.procs`) ?? '').split('\n')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** One round: kill what is in each directory and remove it; the directories still there. */
function removeRound(dirs: string[], killFile: boolean): string[] {
  const left: string[] = [];
  for (const dir of dirs) {
    killMembers(dir, killFile);
    try {
      rmdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') left.push(dir);
    }
  }
  return left;
}

function notRemoved(dirs: string[]): LimitsError {
  return new LimitsError(`could not remove cgroup ${dirs.join(', ')} within ${REMOVE_WITHIN_MS} ms (tasks still inside)`);
}

/** Kill everything in the cgroup directories and remove them, retrying while the tasks die. */
export async function removeCgroups(dirs: string[], killFile: boolean): Promise<void> {
  const deadline = Date.now() + REMOVE_WITHIN_MS;
  let left = removeRound(dirs, killFile);
  while (left.length > 0) {
    if (Date.now() > deadline) throw notRemoved(left);
    await sleep(RETRY_MS);
    left = removeRound(left, killFile);
  }
}

/** The same, blocking: usable in an exit or signal handler, where no timer fires. */
export function removeCgroupsSync(dirs: string[], killFile: boolean): void {
  const deadline = Date.now() + REMOVE_WITHIN_MS;
  let left = removeRound(dirs, killFile);
  while (left.length > 0) {
    if (Date.now() > deadline) throw notRemoved(left);
    sleepSync(RETRY_MS);
    left = removeRound(left, killFile);
  }
}

export function sampleCgroupName(runnerPid: number, n: number): string {
  return `coldstart-${runnerPid}-${n}`;
}

let made = 0;

/** The next sample cgroup's name; one count per process, so two mechanisms never pick the same name. */
export function nextSampleCgroupName(): string {
  made += 1;
  return sampleCgroupName(process.pid, made);
}
