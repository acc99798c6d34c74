/**
 * A sample at a Lambda memory size: the child is born in its own cgroup (memory limit, INIT CPU),
 * its CPU share switches to memory / 1769 vCPUs when INIT is over, and afterwards the record says
 * what the limits did; a sample the memory limit killed fails with "out of memory at M MB". The
 * cgroup is removed after the sample in every case.
 */
import type { SampleRecord } from '../core/samples.ts';
import type { SampleLimits } from './limits/types.ts';
import type { SampleHooks } from './sample.ts';

const round = (ms: number) => Math.round(ms * 1000) / 1000;

export function limitHooks(limits: SampleLimits): SampleHooks {
  let atInitEnd: ReturnType<SampleLimits['cpuTime']>;
  return {
    wrap: (launch) => ({ ...launch, ...limits.wrap(launch) }),
    endOfInit: () => {
      atInitEnd = limits.cpuTime();
      limits.switchToInvokeCpu();
      return Promise.resolve();
    },
    after: async (record: SampleRecord, exit) => {
      try {
        const outcome = limits.outcome(exit);
        const atEnd = limits.cpuTime();
        record.limits = {
          memoryMB: outcome.memoryMB,
          ...(outcome.peakBytes !== undefined ? { peakBytes: outcome.peakBytes } : {}),
          outOfMemory: outcome.outOfMemory,
          ...(atInitEnd ? { initCpuMs: round(atInitEnd.usageMs) } : {}),
          ...(atInitEnd && atEnd ? { requestCpuMs: round(atEnd.usageMs - atInitEnd.usageMs) } : {}),
          ...(atInitEnd?.throttledMs !== undefined && atEnd?.throttledMs !== undefined
            ? { requestThrottledMs: round(atEnd.throttledMs - atInitEnd.throttledMs) }
            : {}),
          ...(atInitEnd?.throttledPeriods !== undefined && atEnd?.throttledPeriods !== undefined
            ? { requestThrottledPeriods: atEnd.throttledPeriods - atInitEnd.throttledPeriods }
            : {}),
        };
        // a child the memory limit killed did not run at that size, whatever it answered before
        if (outcome.outOfMemory) {
          record.ok = false;
          record.error = outcome.reason ?? `out of memory at ${outcome.memoryMB} MB`;
        }
      } finally {
        await limits.teardown();
      }
    },
  };
}
