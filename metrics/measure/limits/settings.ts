/**
 * What a sample at a Lambda memory size is limited to, as plain numbers: the memory limit, the CPU
 * quota during INIT and the CPU share after it. Lambda gives a function CPU in proportion to its
 * memory, one full vCPU at 1769 MB; the INIT phase of an on-demand function is observed to run at
 * full speed whatever the memory size.
 */
import { MAX_MEMORY_MB, MB_PER_VCPU, MIN_MEMORY_MB } from '../../core/lambda-platform.ts';
import { MAX_CPU_PERIOD_US, MIN_CPU_PERIOD_US, type LimitSpec } from '../../core/run-spec.ts';

export const MIN_CPU_QUOTA_US = 1_000;

export interface LimitSettings {
  /** the Lambda memory size: the memory limit, and the CPU share after INIT */
  memoryMB: number;
  /** vCPUs from spawn to the end of INIT */
  initCpus: number;
  /** the CPU quota's period, µs */
  cpuPeriodUs: number;
  /** vCPUs after INIT when not the memory size's share (a platform with fixed caps: Web Functions' 2 vCPUs) */
  invokeCpus?: number;
}

/** A target's fixed caps (core/kinds.ts `caps`) as settings: its memory, and its vCPUs from spawn to the end. */
export function capSettings(caps: { memoryMB: number; cpus: number }, { cpuPeriodUs }: LimitSpec): LimitSettings {
  return { memoryMB: caps.memoryMB, initCpus: caps.cpus, invokeCpus: caps.cpus, cpuPeriodUs };
}

/** A memory size's limits under the spec's INIT CPU and quota period (their defaults are DEFAULT_SPEC.limits). */
export function limitSettings(memoryMB: number, { initCpus, cpuPeriodUs }: LimitSpec): LimitSettings {
  return { memoryMB, initCpus, cpuPeriodUs };
}

/** The vCPUs Lambda gives a function of `memoryMB` (0.072 at 128 MB, 1 at 1769 MB, 5.79 at 10240 MB). */
export function invokeCpus(memoryMB: number): number {
  return memoryMB / MB_PER_VCPU;
}

/** The quota, µs per period, that grants `cpus` vCPUs. */
export function quotaUs(cpus: number, periodUs: number): number {
  return Math.round(cpus * periodUs);
}

export function memoryLimitBytes(memoryMB: number): number {
  return memoryMB * 2 ** 20;
}

/**
 * Why the kernel would refuse these settings, as one line for the user, or undefined when it
 * accepts them. A short period at a small memory size asks for a quota under the 1 ms minimum.
 */
export function limitSettingsError(settings: LimitSettings): string | undefined {
  const { memoryMB, initCpus, cpuPeriodUs } = settings;
  if (!Number.isInteger(memoryMB) || memoryMB < MIN_MEMORY_MB || memoryMB > MAX_MEMORY_MB) {
    return `memory size ${memoryMB} MB is not a Lambda memory size (${MIN_MEMORY_MB} to ${MAX_MEMORY_MB} MB)`;
  }
  if (!Number.isInteger(cpuPeriodUs) || cpuPeriodUs < MIN_CPU_PERIOD_US || cpuPeriodUs > MAX_CPU_PERIOD_US) {
    return `CPU period ${cpuPeriodUs} µs is outside the kernel's range (${MIN_CPU_PERIOD_US} to ${MAX_CPU_PERIOD_US} µs)`;
  }
  if (!(initCpus > 0) || !Number.isFinite(initCpus)) return `INIT CPUs ${initCpus} is not a positive number of vCPUs`;
  if (quotaUs(initCpus, cpuPeriodUs) < MIN_CPU_QUOTA_US) {
    return `${initCpus} vCPUs over a ${cpuPeriodUs} µs period is a quota under the kernel's 1 ms minimum`;
  }
  const quota = quotaUs(invokeCpus(memoryMB), cpuPeriodUs);
  if (quota < MIN_CPU_QUOTA_US) {
    const shortest = Math.ceil((MIN_CPU_QUOTA_US * MB_PER_VCPU) / memoryMB);
    return (
      `${memoryMB} MB over a ${cpuPeriodUs} µs CPU period is a quota of ${quota} µs, under the kernel's 1 ms minimum: ` +
      `use a period of at least ${shortest} µs`
    );
  }
  return undefined;
}

/** The failure reason of a sample the memory limit killed. */
export function outOfMemoryReason(memoryMB: number): string {
  return `out of memory at ${memoryMB} MB`;
}
