/**
 * Where a sample runs under the containment helper without a PID namespace (contain.ts), the app
 * can SIGKILL the helper, and the helper's orphans then go to init, out of the runner's reach. Where
 * the runner may make cgroups (root, cgroup v1 `pids` or `freezer` hierarchy, or its own cgroup v2),
 * the helper joins a fresh cgroup made for the sample before anything forks; every descendant
 * stays in it wherever it is reparented, and the runner kills it whole after the sample. No limit is
 * set in it: it only tracks membership. Stale ones (a killed runner's) go with the next run's
 * leftovers (leftovers.ts).
 */
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import {
  cgroupDir,
  nextSampleCgroupName,
  parseMountinfo,
  parseProcCgroup,
  readText,
  removeCgroups,
  removeCgroupsSync,
} from './limits/cgroupfs.ts';
import { register, unregister } from './limits/registry.ts';

let parent: string | null | undefined;

/** The runner's own cgroup in a hierarchy it may make cgroups in (v1 pids or freezer, else v2), or undefined. */
export function sweepCgroupParent(): string | undefined {
  if (parent !== undefined) return parent ?? undefined;
  parent = null;
  if (process.platform !== 'linux') return undefined;
  const mounts = parseMountinfo(readText('/proc/self/mountinfo') ?? '');
  const own = parseProcCgroup(readText('/proc/self/cgroup') ?? '');
  const candidates: string[] = [];
  for (const controller of ['pids', 'freezer']) {
    const mount = mounts.find((m) => m.fsType === 'cgroup' && m.options.includes(controller));
    const path = own.v1.get(controller);
    const dir = mount && path !== undefined ? cgroupDir(mount, path) : undefined;
    if (dir) candidates.push(dir);
  }
  const v2 = mounts.find((m) => m.fsType === 'cgroup2');
  const v2Dir = v2 && own.v2 !== undefined ? cgroupDir(v2, own.v2) : undefined;
  if (v2Dir) candidates.push(v2Dir);
  for (const dir of candidates) {
    const probe = `${dir}/${nextSampleCgroupName()}`;
    try {
      mkdirSync(probe);
      rmdirSync(probe);
      return (parent = dir);
    } catch {
      // not writable: the next hierarchy
    }
  }
  return undefined;
}

export interface SweepCgroup {
  /** the cgroup.procs file the helper joins (its --cgroup) */
  procs: string;
  /** kill everything inside and remove it */
  remove(): Promise<void>;
}

/** A fresh cgroup for one sample, registered so that an interrupted run removes it; undefined where none can be made. */
export function makeSweepCgroup(): SweepCgroup | undefined {
  const top = sweepCgroupParent();
  if (!top) return undefined;
  const name = nextSampleCgroupName();
  const dir = `${top}/${name}`;
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  const killFile = existsSync(`${dir}/cgroup.kill`);
  const entry = { name: dir, teardownSync: () => removeCgroupsSync([dir], killFile) };
  register(entry);
  return {
    procs: `${dir}/cgroup.procs`,
    remove: async () => {
      await removeCgroups([dir], killFile);
      unregister(entry);
    },
  };
}
