/**
 * Every short child the tool waits on has a deadline (issue 51; core/child-deadlines.ts): a stand-in that
 * sleeps where the real tool would hang, and every deadline set to 1 s through COLDSTART_CHILD_DEADLINE_S,
 * is stopped there and named in one line with the time it was allowed. Before, each of these waited for
 * the stand-in (600 s) until the test's own guard. No timing is asserted: only that each call returns.
 */
import assert from 'node:assert/strict';
import { chmodSync, closeSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CHILD_DEADLINE_ENV, childDeadlineMs, childFailureLine } from '../../metrics/core/child-deadlines.ts';
import { evictFiles, straceProblem } from '../../metrics/measure/file-cache.ts';
import { npmInstall } from '../../metrics/plan/npm-install.ts';
import { ricBuildProblem } from '../../metrics/plan/ric.ts';
import { runCli, tempDir } from '../support/helpers.ts';

/** A folder holding a stand-in for each of `tools` that sleeps 600 s (exec'd: no grandchild keeps a pipe open). */
function sleepingTools(...tools: string[]): string {
  const bin = tempDir('coldstart-deadline-bin-');
  for (const tool of tools) {
    writeFileSync(path.join(bin, tool), '#!/bin/sh\nexec sleep 600\n');
    chmodSync(path.join(bin, tool), 0o755);
  }
  return bin;
}

const SHORT = { [CHILD_DEADLINE_ENV]: '1' };

// a guard, not a timing: a deadline that does not fire would leave the file waiting on the stand-ins
describe('a child that hangs is stopped at its deadline and named', { timeout: 240_000 }, () => {
  it('the table and the environment: each deadline, or the one COLDSTART_CHILD_DEADLINE_S sets', () => {
    assert.equal(childDeadlineMs('git', {}), 60_000);
    assert.equal(childDeadlineMs('npmInstall', {}), 600_000);
    assert.equal(childDeadlineMs('sync', SHORT), 1000);
    assert.equal(childDeadlineMs('sync', { [CHILD_DEADLINE_ENV]: 'soon' }), 120_000);
    assert.equal(childFailureLine('`x`', { status: 0 }, 1000), undefined);
    assert.equal(childFailureLine('`x`', { status: 3 }, 1000), '`x` exited with code 3');
    assert.equal(childFailureLine('`x`', { status: null, signal: 'SIGSEGV' }, 1000), '`x` was ended by SIGSEGV');
  });

  it('`strace -V` (the cold file cache asks for strace)', () => {
    const bin = sleepingTools('strace');
    const problem = straceProblem({ PATH: `${bin}:/usr/bin:/bin`, ...SHORT });
    assert.equal(problem, '`strace -V` did not end within its 1 s deadline: stopped it');
  });

  it("`command -v` (the runtime client's build tools): the first lookup's line", () => {
    // sh itself is the stand-in: the lookup is a `sh -c 'command -v TOOL'`
    const bin = sleepingTools('sh');
    const problem = ricBuildProblem({ PATH: `${bin}:/usr/bin:/bin`, ...SHORT });
    assert.match(problem ?? '', /^building aws-lambda-ric: `command -v \w+` did not end within its 1 s deadline: stopped it$/);
  });

  it('npm install (a runtime, a version, a bisect step): a failure with the time it was allowed', () => {
    const bin = sleepingTools('npm');
    const prefix = tempDir('coldstart-deadline-npm-');
    const outcome = npmInstall(prefix, ['left-pad@1.3.0'], { env: { PATH: `${bin}:/usr/bin:/bin`, ...SHORT } });
    assert.deepEqual(outcome, { ok: false, kind: 'other', reason: 'npm install did not end within its 1 s deadline: stopped it' });
  });

  describe("a cold cell's eviction: a FIFO among its files holds dd as a hung disk would", () => {
    const fifo = path.join(tempDir('coldstart-deadline-fifo-'), 'pipe');
    after(() => {
      // the dd the deadline left behind waits to open the FIFO: a writer lets it end
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader left
      }
    });

    it('is one line: the cell fails with it, not a cell that runs warm', () => {
      execFileSync('mkfifo', [fifo]);
      const failed = evictFiles([fifo], { ...SHORT });
      assert.equal(failed, "the cold file cache's eviction of 1 file did not end within its 1 s deadline: stopped it");
    });
  });

  it('bisect --git: `git rev-parse` is one line and exit 2', () => {
    const bin = sleepingTools('git');
    const app = tempDir('coldstart-deadline-app-');
    mkdirSync(path.join(app, 'src'));
    writeFileSync(path.join(app, 'src', 'server.js'), 'require("node:http").createServer().listen(0)\n');
    const run = runCli(['bisect', '--git', 'v1..v2', '--entry', path.join(app, 'src', 'server.js'), '--cwd', app], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, ...SHORT },
      timeoutMs: 180_000,
    });
    assert.equal(run.status, 2, run.stderr);
    assert.equal(
      run.stderr.trim().split('\n').at(-1),
      'coldstart: --git: `git rev-parse --show-toplevel` did not end within its 1 s deadline: stopped it',
    );
  });
});
