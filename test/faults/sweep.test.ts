/**
 * The full fault-injection sweep (`npm run test:faults`; not in `npm test`, whose small form is
 * test/pipeline/faults.test.ts and test/e2e/faults.test.ts): every fault of test/support/faults.ts
 * at every step of a run, against the real command line. The full-disk cases need root (a tmpfs);
 * without it they are skipped, saying so. The table of outcomes is written to the test's output.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { FAULTS, faultCases } from '../support/faults.ts';
import { CHILD_FAULTS, ptyAvailable, SmallDisk, sweepChild, sweepOne, sweepTable, type SweepOutcome } from '../support/fault-sweep.ts';
import { tempDir } from '../support/helpers.ts';

const root = process.getuid?.() === 0 && process.platform === 'linux';

describe('the fault sweep: every fault at every step, real processes', () => {
  const base = tempDir('coldstart-sweep-');
  const disk = root ? new SmallDisk(base) : undefined;
  // the disk a full stdout or stderr is written to (the run folder stays on the ordinary one)
  const streams = root ? new SmallDisk(base, 'streams') : undefined;
  const pty = ptyAvailable();
  const outcomes: SweepOutcome[] = [];
  after(() => {
    disk?.unmount();
    streams?.unmount();
    process.stdout.write(`\n${sweepTable(outcomes)}\n`);
  });
  for (const c of faultCases(FAULTS)) {
    const needsDisk = c.fault === 'full-disk' || c.fault === 'full-stdout' || c.fault === 'full-stderr';
    const skip =
      needsDisk && !disk ? 'needs root to mount a small tmpfs' : c.fault.startsWith('eio-') && !pty ? 'needs python3 (pty)' : false;
    it(`${c.fault} at ${c.step}`, { skip }, async () => {
      const outcome = await sweepOne(base, c, disk, streams);
      outcomes.push(outcome);
      assert.deepEqual(outcome.problems, []);
    });
  }
});

describe('the fault sweep: misbehaving children, alone and with SIGTERM while one is in flight', () => {
  const base = tempDir('coldstart-sweep-children-');
  for (const child of CHILD_FAULTS) {
    for (const signal of child.stays ? ([undefined, 'SIGTERM'] as const) : [undefined]) {
      it(`${child.fixture} (${child.what})${signal ? `, ${signal} during its second sample` : ''}`, async () => {
        assert.deepEqual(await sweepChild(base, child, signal), []);
      });
    }
  }
});
