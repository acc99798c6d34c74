/**
 * The registry's answer the tool reads itself (bisect's `npm view PKG versions --json`) is bounded in bytes (issue 46,
 * item 3): an npm that answers endlessly is stopped at REGISTRY_ANSWER_BYTES, with one line, exit 2, the runner's peak
 * resident memory (`/usr/bin/time -v`) under 300 MB, and no npm left running. Nothing here is timed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REGISTRY_ANSWER_BYTES } from '../../metrics/plan/npm-install.ts';
import { CLI, processesWith, ROOT, tempDir } from '../support/helpers.ts';

describe('the registry answer bounded in bytes', { timeout: 180_000 }, () => {
  it('an npm view that answers endlessly ends bisect at the cap, one line, exit 2, under 300 MB', (t) => {
    const dir = tempDir('coldstart-test-registry-');
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    // an "npm" that prints a list that never ends (its marker names it in the process table)
    const marker = 'coldstart-endless-npm-answer';
    writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\n# ${marker}\nexec yes '"1.0.0",'\n`);
    chmodSync(path.join(bin, 'npm'), 0o755);
    const result = spawnSync(
      '/usr/bin/time',
      [
        '-v',
        process.execPath,
        ...CLI,
        'bisect',
        '--package',
        'fastify',
        '--range',
        '4.0.0..4.1.0',
        '-f',
        'fastify',
        '--out',
        path.join(dir, 'b'),
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 150_000, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
    );
    assert.equal(result.status, 2, result.stderr);
    const own = result.stderr.split('\n').filter((line) => line && !line.startsWith('\t') && !line.startsWith('Command exited with'));
    const line = `coldstart: --package fastify: the registry's list of versions: npm's answer passed ${REGISTRY_ANSWER_BYTES} bytes`;
    assert.deepEqual(own, [`${line}: stopped reading it`]);
    const peakKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1]);
    t.diagnostic(`peak resident set ${peakKb} kB`);
    assert.ok(peakKb < 300 * 1024, `peak resident ${peakKb} kB`);
    assert.deepEqual(processesWith(marker), []);
  });
});
