/**
 * cgroup v2: one sample cgroup (cpu.max, memory.max, memory.swap.max = 0 so swap cannot hide the
 * limit), at the top of the hierarchy where the runner may write there (root), else under the
 * runner's own cgroup delegated to it with the cpu and memory controllers. A cgroup that enables
 * controllers for its children may hold no process itself, so when the runner's cgroup holds
 * processes they first move to a leaf `coldstart-runner-<pid>`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { parseKeyValues, readNumber, readText, nextSampleCgroupName, removeCgroupsSync, smallestLimit, writeControl } from './cgroupfs.ts';
import { SampleCgroup, type MemoryReading } from './sample.ts';
import { limitSettingsError, memoryLimitBytes, quotaUs, type LimitSettings } from './settings.ts';
import { LimitsError, type CpuTime, type LimitsMechanism, type MechanismInfo } from './types.ts';

const NEEDED = ['cpu', 'memory'] as const;

function words(text: string | undefined): string[] {
  return (text ?? '').trim().split(/\s+/).filter(Boolean);
}

/** The controllers of NEEDED missing from a cgroup.controllers or cgroup.subtree_control text. */
export function missingControllers(text: string | undefined): string[] {
  const present = new Set(words(text));
  return NEEDED.filter((c) => !present.has(c));
}

class V2Sample extends SampleCgroup {
  protected readonly killFile = true;

  private get dir(): string {
    return this.dirs[0]!;
  }

  static create(name: string, settings: LimitSettings, parent: string, runnerProcs: string): V2Sample {
    const sample = new V2Sample(name, settings, [`${parent}/${name}`], runnerProcs);
    try {
      mkdirSync(sample.dir);
    } catch (error) {
      throw new LimitsError(`could not make cgroup ${sample.dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    try {
      writeControl(`${sample.dir}/memory.max`, memoryLimitBytes(settings.memoryMB));
      if (existsSync(`${sample.dir}/memory.swap.max`)) writeControl(`${sample.dir}/memory.swap.max`, 0);
      sample.setCpuQuota(quotaUs(settings.initCpus, settings.cpuPeriodUs), settings.cpuPeriodUs);
    } catch (error) {
      removeCgroupsSync(sample.dirs, true);
      throw error;
    }
    sample.track();
    return sample;
  }

  protected procsFiles(): string[] {
    return [`${this.dir}/cgroup.procs`];
  }

  protected setCpuQuota(quota: number, period: number): void {
    writeControl(`${this.dir}/cpu.max`, `${quota} ${period}`);
  }

  protected readMemory(): MemoryReading {
    const peakBytes = readNumber(`${this.dir}/memory.peak`);
    const oomKills = parseKeyValues(readText(`${this.dir}/memory.events`)).oom_kill;
    return { ...(peakBytes !== undefined ? { peakBytes } : {}), ...(oomKills !== undefined ? { oomKills } : {}) };
  }

  protected readCpu(): CpuTime | undefined {
    const stat = parseKeyValues(readText(`${this.dir}/cpu.stat`));
    if (stat.usage_usec === undefined) return undefined;
    return {
      usageMs: stat.usage_usec / 1000,
      ...(stat.throttled_usec !== undefined ? { throttledMs: stat.throttled_usec / 1000 } : {}),
      ...(stat.nr_throttled !== undefined ? { throttledPeriods: stat.nr_throttled } : {}),
    };
  }
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/**
 * Make `dir` able to hold sample cgroups with the cpu and memory controllers: enable them for its
 * children, first moving the processes it holds into a leaf when there are any. Returns what it
 * changed and the cgroup the runner is in now, or throws LimitsError with what is missing.
 */
export function enableControllers(dir: string): { notes: string[]; runnerDir: string } {
  const subtree = `${dir}/cgroup.subtree_control`;
  const missing = missingControllers(readText(subtree));
  if (missing.length === 0) return { notes: [], runnerDir: dir };
  const notes: string[] = [];
  const members = words(readText(`${dir}/cgroup.procs`));
  const leaf = `${dir}/coldstart-runner-${process.pid}`;
  if (members.length > 0) {
    try {
      if (!existsSync(leaf)) mkdirSync(leaf);
      for (const pid of members) {
        try {
          writeControl(`${leaf}/cgroup.procs`, pid);
        } catch (error) {
          // a process that exited meanwhile has nothing to move
          if (existsSync(`/proc/${pid}`)) throw error;
        }
      }
    } catch (error) {
      throw new LimitsError(`cgroup v2: could not move the runner's processes into ${leaf} (${errorCode(error)})`);
    }
    notes.push(`the ${members.length} processes of ${dir} (the runner among them) were moved into ${leaf}, which stays until they exit`);
  }
  try {
    writeControl(subtree, missing.map((c) => `+${c}`).join(' '));
  } catch (error) {
    throw new LimitsError(`cgroup v2: could not enable ${missing.join(' and ')} in ${subtree} (${(error as Error).message})`);
  }
  notes.push(`enabled ${missing.join(' and ')} in ${subtree}`);
  return { notes, runnerDir: members.includes(String(process.pid)) ? leaf : dir };
}

export class CgroupV2 implements LimitsMechanism {
  readonly info: MechanismInfo;

  constructor(
    private readonly parent: string,
    mountPoint: string,
    /** the cgroup the runner is in */
    private readonly runnerDir: string,
    notes: string[],
  ) {
    const limit = smallestLimit(parent, mountPoint, 'memory.max');
    this.info = {
      kind: 'cgroup-v2',
      parents: { unified: parent },
      // without swap accounting there is no memory.swap.max, and no swap to limit through the cgroup
      swapLimited: existsSync(`${parent}/memory.swap.max`),
      ...(limit !== undefined ? { inheritedMemoryLimitBytes: limit } : {}),
      notes,
    };
  }

  create(settings: LimitSettings): V2Sample {
    const invalid = limitSettingsError(settings);
    if (invalid) throw new LimitsError(invalid);
    return V2Sample.create(nextSampleCgroupName(), settings, this.parent, `${this.runnerDir}/cgroup.procs`);
  }
}
