/**
 * What both cgroup versions share for one sample: joining, the CPU switch, the OOM verdict and the
 * teardown. A version supplies its control files through the hooks.
 */
import { joinAndExec, removeCgroups, removeCgroupsSync, warmCgroupMoves } from './cgroupfs.ts';
import { register, unregister } from './registry.ts';
import { invokeCpus, memoryLimitBytes, outOfMemoryReason, quotaUs, type LimitSettings } from './settings.ts';
import type { CpuTime, ExitHint, Launch, LimitOutcome, SampleLimits } from './types.ts';

export interface MemoryReading {
  peakBytes?: number;
  /** OOM kills the kernel counted in the cgroup; undefined where it keeps no count */
  oomKills?: number;
}

/** A peak this close to the limit counts as "at the limit" (page cache keeps the usage just under it). */
const AT_LIMIT_SHARE = 0.95;

/**
 * Did the memory limit end the sample? The kernel's count decides where it keeps one; without one,
 * a SIGKILL the runner did not send with the peak at the limit.
 */
export function wasOutOfMemory(reading: MemoryReading, limitBytes: number, hint: ExitHint = {}): boolean {
  if (reading.oomKills !== undefined) return reading.oomKills > 0;
  return hint.signal === 'SIGKILL' && reading.peakBytes !== undefined && reading.peakBytes >= AT_LIMIT_SHARE * limitBytes;
}

export abstract class SampleCgroup implements SampleLimits {
  private removed = false;

  constructor(
    readonly name: string,
    readonly settings: LimitSettings,
    /** every directory this sample made, one per hierarchy */
    protected readonly dirs: string[],
    /** the cgroup.procs of the cgroup the runner is in, to warm the kernel's cgroup moves before a launch */
    private readonly runnerProcs: string | undefined,
  ) {}

  /** Register once the cgroup(s) are made and set, so an interrupt removes them. */
  protected track(): void {
    register(this);
  }

  protected abstract procsFiles(): string[];
  protected abstract setCpuQuota(quotaUs: number, periodUs: number): void;
  protected abstract readMemory(): MemoryReading;
  protected abstract readCpu(): CpuTime | undefined;
  /** cgroup v2 can kill a whole cgroup with one write */
  protected abstract readonly killFile: boolean;

  wrap(launch: Launch): Launch {
    if (this.runnerProcs) warmCgroupMoves(this.runnerProcs);
    return joinAndExec(this.procsFiles(), launch);
  }

  switchToInvokeCpu(): void {
    if (this.removed) return;
    const cpus = this.settings.invokeCpus ?? invokeCpus(this.settings.memoryMB);
    this.setCpuQuota(quotaUs(cpus, this.settings.cpuPeriodUs), this.settings.cpuPeriodUs);
  }

  cpuTime(): CpuTime | undefined {
    return this.removed ? undefined : this.readCpu();
  }

  outcome(hint: ExitHint = {}): LimitOutcome {
    const { memoryMB } = this.settings;
    if (this.removed) return { memoryMB, outOfMemory: false };
    const reading = this.readMemory();
    const outOfMemory = wasOutOfMemory(reading, memoryLimitBytes(memoryMB), hint);
    return {
      memoryMB,
      ...(reading.peakBytes !== undefined ? { peakBytes: reading.peakBytes } : {}),
      outOfMemory,
      ...(outOfMemory ? { reason: outOfMemoryReason(memoryMB) } : {}),
    };
  }

  async teardown(): Promise<void> {
    if (this.removed) return;
    await removeCgroups(this.dirs, this.killFile);
    this.removed = true;
    unregister(this);
  }

  teardownSync(): void {
    if (this.removed) return;
    removeCgroupsSync(this.dirs, this.killFile);
    this.removed = true;
    unregister(this);
  }
}
