/**
 * The folders two runs may share are held by one writer at a time (issue 46, item 2d), in-process: while a live run
 * holds a `lambda:import --out` folder or a `bisect --out` folder (here: this process, through measure/run-lock.ts), a
 * second writer is one line, exit 2, and writes nothing; once released, the same command goes on. The versions
 * cache, where a second writer waits instead, is test/e2e/versions-cache-lock.test.ts's.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LOCK_FILE, lockFolder } from '../../metrics/measure/run-lock.ts';
import { SAMPLES_FILE } from '../../metrics/core/samples.ts';
import { fixture, tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const REPORTS = fixture(path.join('cloud', 'coldstart-fastify-100-validated.txt'));

describe('shared folders: a second writer is refused in one line', () => {
  it('lambda:import into a folder another import holds: exit 2, one line naming the holder, nothing written', async () => {
    const out = path.join(tempDir('coldstart-import-lock-'), 'run');
    mkdirSync(out);
    const held = lockFolder(out, 'lambda:import', () => undefined);
    try {
      const second = await mainInProcess(['lambda-import', REPORTS, '--out', out]);
      assert.equal(second.code, 2, second.stderr);
      assert.match(
        second.stderr,
        /^coldstart: .*run is in use by another run \(lambda:import pid \d+, since [^)]+\): choose another --out\n$/,
      );
      assert.deepEqual(readdirSync(out), [LOCK_FILE]);
    } finally {
      held.release();
    }
    // released: the import goes on, and leaves no lock behind
    const first = await mainInProcess(['lambda-import', REPORTS, '--out', out]);
    assert.equal(first.code, 0, first.stderr);
    assert.ok(existsSync(path.join(out, SAMPLES_FILE)));
    assert.ok(!existsSync(path.join(out, LOCK_FILE)));
  });

  it('a refused lambda:import removes the folder it made, and a failed one too', async () => {
    const parent = tempDir('coldstart-import-lock-');
    const out = path.join(parent, 'new');
    const failed = await mainInProcess(['lambda-import', fixture(path.join('cloud', 'unnamed.txt')), '--out', out]);
    assert.equal(failed.code, 2, failed.stderr);
    assert.ok(!existsSync(out), 'the folder the import made and wrote nothing into is gone');
  });

  it('bisect into a folder another bisect holds: exit 2, one line naming the holder, nothing written', async () => {
    const dir = tempDir('coldstart-bisect-lock-');
    const out = path.join(dir, 'bisect');
    const from = path.join(dir, 'tarballs');
    mkdirSync(out);
    mkdirSync(from);
    const held = lockFolder(out, 'bisect', () => undefined);
    try {
      const second = await mainInProcess([
        'bisect',
        '--package',
        'fastify',
        '--range',
        '4.0.0..4.1.0',
        '--from',
        from,
        '-f',
        'fastify',
        '--out',
        out,
      ]);
      assert.equal(second.code, 2, second.stderr);
      assert.match(second.stderr, /^coldstart: .*bisect is in use by another run \(bisect pid \d+, since [^)]+\): choose another --out\n$/);
      assert.deepEqual(readdirSync(out), [LOCK_FILE]);
    } finally {
      held.release();
    }
    // released: the same bisect goes on to its own check (no such releases in the empty folder), and releases its lock
    const after = await mainInProcess([
      'bisect',
      '--package',
      'fastify',
      '--range',
      '4.0.0..4.1.0',
      '--from',
      from,
      '-f',
      'fastify',
      '--out',
      out,
    ]);
    assert.equal(after.code, 2, after.stderr);
    assert.match(after.stderr, /--range 4\.0\.0\.\.4\.1\.0: both must be published versions of fastify/);
    assert.ok(!existsSync(path.join(out, LOCK_FILE)));
  });
});
