/**
 * The fault-injection suite's small form with real processes (the full sweep is `npm run
 * test:faults`): one case of each kind of fault, each at a step where it matters, injected from
 * outside into the real command line paused there (`--debug-mode pause-at=STEP`).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Fault } from '../support/faults.ts';
import { CHILD_FAULTS, SmallDisk, sweepChild, sweepOne } from '../support/fault-sweep.ts';
import { tempDir } from '../support/helpers.ts';
import type { RunStep } from '../../metrics/core/run-steps.ts';

const root = process.getuid?.() === 0 && process.platform === 'linux';

const CASES: { fault: Fault; step: RunStep }[] = [
  { fault: 'SIGTERM', step: 'between' },
  { fault: 'SIGHUP', step: 'report' },
  { fault: 'closed-stderr', step: 'sample' },
  { fault: 'SIGKILL', step: 'between' },
  { fault: 'full-disk', step: 'between' },
];

describe('faults injected into the real command line', () => {
  const base = tempDir('coldstart-faults-');
  const disk = root ? new SmallDisk(base) : undefined;
  after(() => disk?.unmount());
  for (const c of CASES) {
    it(`${c.fault} at ${c.step}`, { skip: c.fault === 'full-disk' && !disk ? 'needs root to mount a small tmpfs' : false }, async () => {
      const outcome = await sweepOne(base, c, disk);
      assert.deepEqual(outcome.problems, []);
    });
  }
  const grandchild = CHILD_FAULTS.find((c) => c.fixture === 'grandchild.js')!;
  it('SIGTERM while a child that forked a grandchild hangs: neither survives, the finished sample is reported', async () => {
    assert.deepEqual(await sweepChild(base, grandchild, 'SIGTERM'), []);
  });
});
