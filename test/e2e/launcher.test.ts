/**
 * Launcher errors as one line (issue 37, class 10): an unwritable TMPDIR (tsx keeps its compile cache
 * there) and a low open-file limit are refused by bin/preflight.js before tsx loads, through the bin
 * script and through an npm script: one line on stderr, exit 4, no stack trace. Before, each was a
 * trace from inside tsx or esbuild (TMPDIR=/proc spun forever).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/helpers.ts';

const launchers: Record<string, string> = {
  bin: `exec node ${path.join('bin', 'coldstart.js')} report no-such-run`,
  'npm script': 'exec npm run -s report -- no-such-run',
};

function launch(line: string, env: NodeJS.ProcessEnv, ulimit?: number) {
  const script = ulimit === undefined ? line : `ulimit -n ${ulimit} && ${line}`;
  return spawnSync('/bin/sh', ['-c', script], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
}

function assertOneLine(result: ReturnType<typeof launch>, pattern: RegExp): void {
  assert.equal(result.status, 4, result.stderr);
  const lines = result.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
}

describe('the launcher refuses what tsx cannot start with, in one line', () => {
  for (const [name, line] of Object.entries(launchers)) {
    it(`${name}: TMPDIR that is not a writable folder (a file, /proc)`, () => {
      for (const tmp of ['/dev/null', '/proc']) {
        const result = launch(line, { ...process.env, TMPDIR: tmp });
        assertOneLine(
          result,
          new RegExp(`^coldstart: the temporary folder ${tmp} \\(TMPDIR\\) cannot be written \\(E[A-Z]+\\): set TMPDIR`),
        );
      }
    });

    it(`${name}: an open-file limit of 50`, () => {
      const result = launch(line, process.env, 50);
      assertOneLine(result, /^coldstart: the open-file limit is 50 \(ulimit -n\), under the 128 the tool needs: raise it/);
    });
  }

  it('with both fine, the command itself answers (a usage error of its own)', () => {
    const result = launch(launchers.bin!, process.env, 256);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^coldstart: .*no-such-run.* does not exist/);
  });
});
