/**
 * cgroup v1: a sample cgroup in the cpu hierarchy (cpu.cfs_quota_us / cpu.cfs_period_us), the memory
 * hierarchy (memory.limit_in_bytes, and memory.memsw.limit_in_bytes where swap is accounted, so
 * swap cannot hide the limit) and, where it is a hierarchy of its own, cpuacct (CPU time). Each is
 * made under the runner's own cgroup of that hierarchy.
 */
import { existsSync, mkdirSync } from 'node:fs';
import {
  cgroupDir,
  parseKeyValues,
  readNumber,
  readText,
  removeCgroupsSync,
  nextSampleCgroupName,
  smallestLimit,
  writeControl,
  type Mount,
  type OwnCgroups,
} from './cgroupfs.ts';
import { SampleCgroup, type MemoryReading } from './sample.ts';
import { limitSettingsError, memoryLimitBytes, quotaUs, type LimitSettings } from './settings.ts';
import { LimitsError, type CpuTime, type LimitsMechanism, type MechanismInfo } from './types.ts';

export interface V1Parents {
  cpu: string;
  memory: string;
  /** absent where cpuacct shares the cpu hierarchy or is not mounted */
  cpuacct?: string;
}

/** The runner's own cgroup directory for each controller v1 needs, or why there is none. */
export function v1Parents(mounts: Mount[], own: OwnCgroups): V1Parents | string {
  const dirOf = (controller: string): { dir: string; mount: Mount } | undefined => {
    const mount = mounts.find((m) => m.fsType === 'cgroup' && m.options.includes(controller));
    if (!mount) return undefined;
    return { dir: cgroupDir(mount, own.v1.get(controller) ?? '/') ?? mount.mountPoint, mount };
  };
  const cpu = dirOf('cpu');
  const memory = dirOf('memory');
  if (!cpu || !memory) return `no cgroup v1 ${!cpu ? 'cpu' : 'memory'} hierarchy is mounted`;
  const cpuacct = dirOf('cpuacct');
  const separate = cpuacct && cpuacct.mount.mountPoint !== cpu.mount.mountPoint;
  return { cpu: cpu.dir, memory: memory.dir, ...(separate ? { cpuacct: cpuacct.dir } : {}) };
}

class V1Sample extends SampleCgroup {
  protected readonly killFile = false;

  constructor(
    name: string,
    settings: LimitSettings,
    private readonly cpu: string,
    private readonly memory: string,
    private readonly cpuacct: string | undefined,
    runnerProcs: string | undefined,
  ) {
    super(name, settings, cpuacct ? [cpu, memory, cpuacct] : [cpu, memory], runnerProcs);
  }

  /** Make the directories and set the limits; on any refusal remove what was made. */
  static create(name: string, settings: LimitSettings, parents: V1Parents, runnerProcs: string | undefined): V1Sample {
    const dir = (parent: string) => `${parent}/${name}`;
    const cpuacct = parents.cpuacct && dir(parents.cpuacct);
    const sample = new V1Sample(name, settings, dir(parents.cpu), dir(parents.memory), cpuacct, runnerProcs);
    const made: string[] = [];
    try {
      for (const d of sample.dirs) {
        mkdirSync(d);
        made.push(d);
      }
      const bytes = memoryLimitBytes(settings.memoryMB);
      // memsw (memory + swap) may never be below the memory limit: set the memory limit first
      writeControl(`${sample.memory}/memory.limit_in_bytes`, bytes);
      if (existsSync(`${sample.memory}/memory.memsw.limit_in_bytes`)) writeControl(`${sample.memory}/memory.memsw.limit_in_bytes`, bytes);
      sample.setCpuQuota(quotaUs(settings.initCpus, settings.cpuPeriodUs), settings.cpuPeriodUs);
    } catch (error) {
      removeCgroupsSync(made, false);
      if (error instanceof LimitsError) throw error;
      throw new LimitsError(`could not make cgroup ${name}: ${(error as Error).message}`);
    }
    sample.track();
    return sample;
  }

  protected procsFiles(): string[] {
    return this.dirs.map((d) => `${d}/cgroup.procs`);
  }

  protected setCpuQuota(quota: number, period: number): void {
    writeControl(`${this.cpu}/cpu.cfs_period_us`, period);
    writeControl(`${this.cpu}/cpu.cfs_quota_us`, quota);
  }

  protected readMemory(): MemoryReading {
    const peakBytes = readNumber(`${this.memory}/memory.max_usage_in_bytes`);
    const oomKills = parseKeyValues(readText(`${this.memory}/memory.oom_control`)).oom_kill;
    return { ...(peakBytes !== undefined ? { peakBytes } : {}), ...(oomKills !== undefined ? { oomKills } : {}) };
  }

  protected readCpu(): CpuTime | undefined {
    const usageNs = readNumber(`${this.cpuacct ?? this.cpu}/cpuacct.usage`);
    if (usageNs === undefined) return undefined;
    const stat = parseKeyValues(readText(`${this.cpu}/cpu.stat`));
    return {
      usageMs: usageNs / 1e6,
      ...(stat.throttled_time !== undefined ? { throttledMs: stat.throttled_time / 1e6 } : {}),
      ...(stat.nr_throttled !== undefined ? { throttledPeriods: stat.nr_throttled } : {}),
    };
  }
}

export class CgroupV1 implements LimitsMechanism {
  readonly info: MechanismInfo;

  constructor(
    private readonly parents: V1Parents,
    memoryMountPoint: string,
    /** the cgroup.procs of the runner's own cpu cgroup, when the runner's cgroup is visible */
    private readonly runnerProcs: string | undefined,
  ) {
    const inherited = smallestLimit(parents.memory, memoryMountPoint, 'memory.limit_in_bytes');
    this.info = {
      kind: 'cgroup-v1',
      parents: { ...parents },
      swapLimited: existsSync(`${parents.memory}/memory.memsw.limit_in_bytes`),
      ...(inherited !== undefined ? { inheritedMemoryLimitBytes: inherited } : {}),
      notes: [],
    };
  }

  create(settings: LimitSettings): V1Sample {
    const invalid = limitSettingsError(settings);
    if (invalid) throw new LimitsError(invalid);
    return V1Sample.create(nextSampleCgroupName(), settings, this.parents, this.runnerProcs);
  }
}
