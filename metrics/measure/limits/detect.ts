/**
 * Which limits mechanism this machine allows: cgroup v2 where the runner may make cgroups with the
 * cpu and memory controllers, else cgroup v1 where its hierarchies are writable, else a one-line
 * reason that says what is needed. Detection also removes sample cgroups a killed runner left.
 */
import { mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { aliveSince } from '../owner.ts';
import {
  cgroupDir,
  parseMountinfo,
  parseProcCgroup,
  readText,
  removeCgroupsSync,
  sampleCgroupName,
  type Mount,
  type OwnCgroups,
} from './cgroupfs.ts';
import type { LimitsMechanism } from './types.ts';
import { CgroupV1, v1Parents } from './v1.ts';
import { CgroupV2, enableControllers, missingControllers } from './v2.ts';

export type Detection = { ok: true; mechanism: LimitsMechanism } | { ok: false; reason: string };

/** What detection reads; tests pass their own. */
export interface DetectSources {
  /** /proc/self/mountinfo */
  mountinfo: string;
  /** /proc/self/cgroup */
  selfCgroup: string;
}

/** Cgroups a runner made: `coldstart-<pid>-<n>` per sample, `coldstart-runner-<pid>` for the runner (v2). */
const MADE_BY_A_RUNNER = /^coldstart-(?:runner-(\d+)|(\d+)-\d+)$/;

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/** Can the runner make a cgroup here? Makes and removes `coldstart-<pid>-0`; the error code when not. */
function probe(parent: string): string | undefined {
  const dir = `${parent}/${sampleCgroupName(process.pid, 0)}`;
  try {
    mkdirSync(dir);
  } catch (error) {
    return `cannot make a cgroup in ${parent} (${codeOf(error)})`;
  }
  try {
    rmdirSync(dir);
  } catch (error) {
    return `cannot remove ${dir} (${codeOf(error)})`;
  }
  return undefined;
}

/** Did a live runner make `dir`? Its pid alive and started before the cgroup was made (not a reused pid). */
function madeByLiveRunner(dir: string, pid: number): boolean {
  try {
    return aliveSince(pid, statSync(dir).mtimeMs);
  } catch {
    return true; // gone or unreadable: not ours to remove
  }
}

/**
 * Remove what a runner that no longer lives left in `parent`. A sample cgroup (`coldstart-<pid>-<n>`) holds only
 * the processes of a sample, which the tool started: any still inside are killed. A runner's leaf
 * (`coldstart-runner-<pid>`, v2) holds what its delegated cgroup held when it was made (the user's shell, its
 * editor, another run started from that shell): never killed, the leaf is removed only once it is empty.
 */
export function sweepStale(parent: string): string[] {
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return removed;
  }
  for (const entry of entries) {
    const match = MADE_BY_A_RUNNER.exec(entry);
    const pid = Number(match?.[1] ?? match?.[2]);
    if (!match || pid === process.pid || madeByLiveRunner(`${parent}/${entry}`, pid)) continue;
    try {
      // a runner's leaf: the processes the tool moved there are not the tool's (rmdir refuses while one lives in it)
      if (match[1] !== undefined) rmdirSync(`${parent}/${entry}`);
      else removeCgroupsSync([`${parent}/${entry}`], false);
      removed.push(`${parent}/${entry}`);
    } catch {
      // still busy: left for the next run to try again
    }
  }
  return removed;
}

function tryV2(mounts: Mount[], own: OwnCgroups): LimitsMechanism | string {
  const mount = mounts.find((m) => m.fsType === 'cgroup2');
  if (!mount || own.v2 === undefined) return 'no cgroup v2 hierarchy';
  const dir = cgroupDir(mount, own.v2);
  if (!dir) return `the runner's cgroup ${own.v2} is not visible under ${mount.mountPoint}`;
  const missing = missingControllers(readText(`${dir}/cgroup.controllers`));
  if (missing.length > 0) return `${dir} offers no ${missing.join(' or ')} controller`;
  // already set up for children (a delegated subtree prepared by its owner), or root: make them at the top
  const disabled = missingControllers(readText(`${dir}/cgroup.subtree_control`));
  const candidates = disabled.length === 0 ? [dir] : [];
  if (dir !== mount.mountPoint && missingControllers(readText(`${mount.mountPoint}/cgroup.subtree_control`)).length === 0) {
    candidates.push(mount.mountPoint);
  }
  for (const parent of candidates) {
    if (probe(parent) === undefined) {
      sweepStale(parent);
      return new CgroupV2(parent, mount.mountPoint, dir, []);
    }
  }
  // a delegated subtree: enable the controllers for its children (the root cgroup may hold processes, others not)
  if (disabled.length === 0 || dir === mount.mountPoint) {
    return probe(dir) ?? `${disabled.join(' and ')} not enabled in ${dir}/cgroup.subtree_control`;
  }
  const why = probe(dir);
  if (why) return why;
  let enabled: ReturnType<typeof enableControllers>;
  try {
    enabled = enableControllers(dir);
  } catch (error) {
    return (error as Error).message;
  }
  sweepStale(dir);
  return new CgroupV2(dir, mount.mountPoint, enabled.runnerDir, enabled.notes);
}

function tryV1(mounts: Mount[], own: OwnCgroups): LimitsMechanism | string {
  const parents = v1Parents(mounts, own);
  if (typeof parents === 'string') return parents;
  const dirs = [parents.cpu, parents.memory, ...(parents.cpuacct === undefined ? [] : [parents.cpuacct])];
  for (const parent of dirs) {
    const why = probe(parent);
    if (why) return why;
  }
  for (const parent of dirs) sweepStale(parent);
  const memoryMount = mounts.find((m) => m.fsType === 'cgroup' && m.options.includes('memory'))!;
  const cpuMount = mounts.find((m) => m.fsType === 'cgroup' && m.options.includes('cpu'))!;
  // the runner's own cpu cgroup, where moving the runner is a no-op (not the mount's top when its cgroup is not visible)
  const runnerCpu = cgroupDir(cpuMount, own.v1.get('cpu') ?? '/');
  return new CgroupV1(parents, memoryMount.mountPoint, runnerCpu && `${runnerCpu}/cgroup.procs`);
}

/**
 * Sample cgroups of runners that are no longer alive, removed wherever a runner makes them (v1: the
 * runner's own cgroup of each hierarchy; v2: its cgroup and the top). Without probing: every run
 * calls it, with or without limits. The directories removed.
 */
export function sweepStaleCgroups(sources: DetectSources = readSources()): string[] {
  if (process.platform !== 'linux') return [];
  const mounts = parseMountinfo(sources.mountinfo);
  const own = parseProcCgroup(sources.selfCgroup);
  const parents = new Set<string>();
  const v1 = v1Parents(mounts, own);
  if (typeof v1 !== 'string') for (const dir of [v1.cpu, v1.memory, v1.cpuacct]) if (dir) parents.add(dir);
  const v2 = mounts.find((m) => m.fsType === 'cgroup2');
  if (v2) {
    parents.add(v2.mountPoint);
    const dir = own.v2 === undefined ? undefined : cgroupDir(v2, own.v2);
    if (dir) parents.add(dir);
  }
  return [...parents].flatMap((parent) => sweepStale(parent));
}

export function readSources(): DetectSources {
  return { mountinfo: readText('/proc/self/mountinfo') ?? '', selfCgroup: readText('/proc/self/cgroup') ?? '' };
}

export function detectLimits(sources: DetectSources = readSources()): Detection {
  if (process.platform !== 'linux') return { ok: false, reason: `CPU and memory limits need Linux cgroups (this is ${process.platform})` };
  const mounts = parseMountinfo(sources.mountinfo);
  const own = parseProcCgroup(sources.selfCgroup);
  const v2 = tryV2(mounts, own);
  if (typeof v2 !== 'string') return { ok: true, mechanism: v2 };
  const v1 = tryV1(mounts, own);
  if (typeof v1 !== 'string') return { ok: true, mechanism: v1 };
  return {
    ok: false,
    reason:
      `CPU and memory limits need cgroups the runner can write: run as root (cgroup v1: ${v1}), or inside a delegated ` +
      `cgroup v2 subtree with the cpu and memory controllers, e.g. \`systemd-run --user --scope -p Delegate=yes npm run metrics -- …\`` +
      ` (cgroup v2: ${v2})`,
  };
}
