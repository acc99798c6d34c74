/**
 * The fault-injection suite's in-process form (the full sweep with real processes is `npm run
 * test:faults`): every fault that can be played in this process (a signal, as the runner's own guard
 * receives it; a closed output, as the CLI raises it; a full disk, every write failing with ENOSPC)
 * at every step of a run (metrics/core/run-steps.ts), with the fake deps. Each case checks the exit
 * code, the samples kept, the report written or not, the lock released and no temporary file left
 * (test/support/faults.ts says what each must end with).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, it, mock } from 'node:test';
import { specOfArgv } from '../../metrics/cli/main.ts';
import { EnvironmentError } from '../../metrics/core/errors.ts';
import { raiseClosedOutput } from '../../metrics/core/interrupts.ts';
import type { RunStep } from '../../metrics/core/run-steps.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { exitCodeOf, runPipeline } from '../../metrics/pipeline/run.ts';
import { expectedOf, FAULT_RUN_ARGS, faultCases, violations, type Fault } from '../support/faults.ts';
import { tempDir } from '../support/in-process.ts';

const IN_PROCESS: readonly Fault[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'closed-stdout', 'full-disk'];

/** From now on every write fails as on a full disk; returns the undo. */
function fillDisk(): () => void {
  mock.method(fs, 'writeSync', () => {
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
  });
  syncBuiltinESMExports();
  return () => {
    mock.restoreAll();
    syncBuiltinESMExports();
  };
}

function play(fault: Fault): (() => void) | undefined {
  if (fault === 'full-disk') return fillDisk();
  if (fault === 'closed-stdout') raiseClosedOutput();
  else process.emit(fault as 'SIGINT', fault as 'SIGINT');
  return undefined;
}

/** This process's scratch folders (measure/leftovers.ts names them coldstart-run-<pid>.<start>-…). */
function scratchFolders(): string[] {
  return fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`coldstart-run-${process.pid}.`));
}

/** One run with `fault` at `step`: its exit code (the CLI's: 4 for the machine's refusal) and what it printed. */
async function runWithFault(out: string, fault: Fault, step: RunStep): Promise<{ exit: number; stderr: string }> {
  const spec = await specOfArgv(['run', ...FAULT_RUN_ARGS, '--out', out]);
  assert.ok(spec);
  let undo: (() => void) | undefined;
  const deps = fakeDeps({
    step: (reached) => {
      if (reached === step && !undo) undo = play(fault) ?? (() => undefined);
    },
  });
  try {
    const result = await runPipeline(spec, deps);
    return { exit: exitCodeOf(result, false), stderr: deps.err + deps.progressText };
  } catch (error) {
    assert.ok(error instanceof EnvironmentError, `the machine's refusal, not ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    assert.match(error.message, /ENOSPC/);
    return { exit: 4, stderr: deps.err + deps.progressText + error.message };
  } finally {
    undo?.();
  }
}

describe('faults at every step of a run (in-process, fake deps)', () => {
  const base = tempDir('coldstart-faults-');
  const before = scratchFolders();
  for (const { fault, step } of faultCases(IN_PROCESS)) {
    it(`${fault} at ${step}`, async () => {
      const out = path.join(base, `${fault}-${step}`);
      const expected = expectedOf(fault, step);
      const { exit, stderr } = await runWithFault(out, fault, step);
      assert.equal(exit, expected.exit, stderr);
      assert.deepEqual(violations(out, stderr, expected), []);
      assert.deepEqual(scratchFolders(), before, 'the scratch folder is removed');
    });
  }
});
