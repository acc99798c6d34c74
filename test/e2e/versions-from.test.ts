/**
 * bisect --from (a folder of `npm pack` tarballs), bounded by kind: a tarball that is a FIFO, a folder or a device
 * is a release that does not install (skipped and said, npm never asked: it would wait on a FIFO forever), and a
 * --from that is not a folder is one line, exit 2 (it was 'cannot scandir', exit 4). FIFOs need mkfifo: e2e.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ensureVersion } from '../../metrics/plan/versions.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

describe('bisect --from: tarballs and the folder checked by kind', { timeout: 120_000 }, () => {
  it('a FIFO or a folder in place of a tarball does not install, with its reason; npm is not run', () => {
    const from = tempDir('coldstart-versions-from-');
    const root = tempDir('coldstart-versions-root-');
    execFileSync('mkfifo', [path.join(from, 'fastify-4.0.0.tgz')]);
    mkdirSync(path.join(from, 'fastify-4.1.0.tgz'));
    const logged: string[] = [];
    assert.deepEqual(
      ensureVersion('fastify@4.0.0', (line) => logged.push(line), { from, root }),
      {
        ok: false,
        reason: 'fastify-4.0.0.tgz in the folder given is a pipe or socket, not a tarball',
      },
    );
    assert.deepEqual(
      ensureVersion('fastify@4.1.0', (line) => logged.push(line), { from, root }),
      {
        ok: false,
        reason: 'fastify-4.1.0.tgz in the folder given is a folder, not a tarball',
      },
    );
    assert.deepEqual(
      ensureVersion('fastify@4.2.0', (line) => logged.push(line), { from, root }),
      {
        ok: false,
        reason: 'no tarball fastify-4.2.0.tgz in the folder given',
      },
    );
    // nothing installed, nothing made in the cache
    assert.deepEqual(logged, []);
    assert.ok(!existsSync(path.join(root, 'fastify@4.0.0')));
  });

  it('a --from that is a file or a FIFO: one line, exit 2', async () => {
    const dir = tempDir('coldstart-versions-from-arg-');
    const file = path.join(dir, 'releases.txt');
    writeFileSync(file, '4.0.0\n');
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    for (const from of [file, fifo]) {
      const result = await mainInProcess(['bisect', '--package', 'fastify', '--range', '4.0.0..4.1.0', '--from', from, '-f', 'fastify']);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr, `coldstart: --from: ${from} is not a folder of npm pack tarballs\n`);
    }
  });
});
