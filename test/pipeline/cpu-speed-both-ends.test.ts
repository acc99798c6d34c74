/**
 * The CPU reference's loop converts a run's first Durations to Lambda's speed. It is timed before the
 * samples and again after them, and meta.json keeps both timings: the host's speed can move by 2 ×
 * within an hour, and one timing at the start converted a whole run at the wrong speed. Not after an
 * interrupted run, and not for a run without local Lambda cells. In-process with the fake deps.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { specOfArgv } from '../../metrics/cli/main.ts';
import { cpuSpeedsOf } from '../../metrics/calibration/lambda-cpu-reference.ts';
import type { LocalCpuSpeed } from '../../metrics/core/meta.ts';
import { readMeta } from '../../metrics/store/meta-file.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { cpuSpeedBothEnds } from '../../metrics/pipeline/meta.ts';
import { runPipeline } from '../../metrics/pipeline/run.ts';
import { tempDir } from '../support/in-process.ts';

/** A loop that takes 10 ms a timing before the samples, then 20 ms (a host slowed down meanwhile). */
function slowingLoop(): { cpuSpeed: () => LocalCpuSpeed; calls: () => number } {
  let calls = 0;
  return {
    cpuSpeed: () => ({ iterations: 1000, cpuMs: calls++ === 0 ? [10, 10, 10] : [20, 20, 20] }),
    calls: () => calls,
  };
}

async function runWith(args: string[], loop: ReturnType<typeof slowingLoop>): Promise<string> {
  const out = path.join(tempDir('coldstart-cpu-ends-'), 'run');
  const spec = await specOfArgv([...args, '--samples', '2', '--warmup', '0', '--out', out]);
  assert.ok(spec);
  await runPipeline(spec, { ...fakeDeps(), cpuSpeed: loop.cpuSpeed });
  return out;
}

describe('the CPU loop, before and after the samples', () => {
  it('a run with Lambda cells keeps both timings, so their median spans the run', async () => {
    const loop = slowingLoop();
    const out = await runWith(['run', '--target', 'lambda', '-f', 'node-http', '-r', '1'], loop);
    assert.equal(loop.calls(), 2, 'once before, once after');
    const speeds = cpuSpeedsOf(readMeta(out)!.lambda);
    assert.deepEqual(Object.values(speeds)[0], { iterations: 1000, cpuMs: [10, 10, 10, 20, 20, 20] });
  });

  it('a server run times no loop', async () => {
    const loop = slowingLoop();
    const out = await runWith(['run', '-f', 'node-http', '-r', '1'], loop);
    assert.equal(loop.calls(), 0);
    assert.deepEqual(cpuSpeedsOf(readMeta(out)!.lambda), {});
  });

  it('joins only the same loop: another iteration count after the samples is left out', () => {
    const before = { node: { iterations: 1000, cpuMs: [10] } };
    assert.deepEqual(cpuSpeedBothEnds(before, { node: { iterations: 500, cpuMs: [5] } }), before);
    assert.deepEqual(cpuSpeedBothEnds(before, undefined), before);
    assert.deepEqual(cpuSpeedBothEnds(before, { node: { iterations: 1000, cpuMs: [30] } }), {
      node: { iterations: 1000, cpuMs: [10, 30] },
    });
  });
});
