import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { durationAtMemory, expectedDuration, shareOf, throttledTime } from '../../metrics/analyse/cpu-share.ts';

const close = (actual: number, expected: number, tolerance: number) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} vs ${expected} ± ${tolerance}`);

describe('the CPU share model of an invocation after INIT', () => {
  it('a CPU-bound invocation (1 s of CPU) scales with 1 / memory: 8× from 1024 MB to 128 MB', () => {
    const heavy = { cpuMs: 1000, wallMs: 1000 };
    const ratio = durationAtMemory(heavy, 128) / durationAtMemory(heavy, 1024);
    close(ratio, 1024 / 128, 0.05);
    // and the time is the CPU over the share, within a period
    close(durationAtMemory(heavy, 128) / (1000 / shareOf(128)), 1, 0.005);
  });

  it('a short invocation is slowed less than 1 / memory, never below its own wall time; one within the budget not at all', () => {
    // 3 ms of CPU: over the 128 MB budget of one period (1.3 ms), within the 1024 MB one (10.4 ms)
    const short = { cpuMs: 3, wallMs: 4 };
    const at128 = durationAtMemory(short, 128);
    const at1024 = durationAtMemory(short, 1024);
    const ratio = at128 / at1024;
    assert.ok(ratio > 1.5 && ratio < 8, `ratio ${ratio}`);
    assert.equal(at1024, short.wallMs);
    assert.equal(durationAtMemory({ cpuMs: 1, wallMs: 2 }, 128), 2);
  });

  it('is deterministic and monotonic in memory; above one vCPU a single-threaded invocation is not slowed', () => {
    const inv = { cpuMs: 12, wallMs: 14 };
    assert.equal(durationAtMemory(inv, 512), durationAtMemory(inv, 512));
    const sizes = [128, 256, 512, 1024, 1769];
    const times = sizes.map((m) => durationAtMemory(inv, m));
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! <= times[i - 1]!, `${sizes[i]} MB: ${times[i]} > ${times[i - 1]}`);
    assert.equal(durationAtMemory(inv, 3008), 14);
  });

  it('time waiting on anything but the CPU is added as it is; no CPU, no slowdown', () => {
    assert.equal(expectedDuration({ cpuMs: 0, wallMs: 5 }, { share: 0.1, periodMs: 20 }), 5);
    const a = expectedDuration({ cpuMs: 2, wallMs: 2 }, { share: 0.1, periodMs: 20 });
    const b = expectedDuration({ cpuMs: 2, wallMs: 7 }, { share: 0.1, periodMs: 20 });
    close(b - a, 5, 1e-9);
  });

  it('throttledTime: runs the budget left, then a full budget per period', () => {
    // 0.1 vCPU, 10 ms period: 1 ms per period. 3 ms of CPU, boundary at 4 ms, 0.5 ms left:
    // 0.5 ms, wait to 4 ms, then 1 ms per period (at 4, 14, 24 ms): the last 0.5 ms ends at 24.5 ms
    close(throttledTime(3, 1, { share: 0.1, periodMs: 10 }, 4, 0.5), 24.5, 1e-9);
    // fits in what is left: full speed
    close(throttledTime(0.4, 1, { share: 0.1, periodMs: 10 }, 4, 0.5), 0.4, 1e-9);
  });
});
