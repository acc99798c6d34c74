/**
 * bisect --from (a folder of `npm pack` tarballs), bounded by kind: a tarball that is a FIFO, a folder or a device
 * is a release that does not install (skipped and said, npm never asked: it would wait on a FIFO forever), and a
 * --from that is not a folder is one line, exit 2 (it was 'cannot scandir', exit 4). The bisect's own folder: an --out
 * that can hold no folder, and a bisect.json that is a FIFO or a device, are one line, exit 2 (they were exit 4, a
 * mkdir looping under /proc, or a read waiting forever). FIFOs need mkfifo: e2e.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ensureVersion } from '../../metrics/plan/versions.ts';
import { runClis } from '../support/helpers.ts';
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

describe("bisect's folder: --out and its bisect.json checked by kind", { timeout: 240_000 }, () => {
  it('--out a file, a FIFO, /dev/null or under /proc; bisect.json a FIFO or /dev/zero: one line, exit 2', async () => {
    const dir = tempDir('coldstart-bisect-out-');
    const from = tempDir('coldstart-bisect-out-from-');
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'kept\n');
    const fifo = path.join(dir, 'a-fifo');
    execFileSync('mkfifo', [fifo]);
    const stateFifo = path.join(dir, 'state-fifo');
    mkdirSync(stateFifo);
    execFileSync('mkfifo', [path.join(stateFifo, 'bisect.json')]);
    const stateZero = path.join(dir, 'state-zero');
    mkdirSync(stateZero);
    symlinkSync('/dev/zero', path.join(stateZero, 'bisect.json'));
    const NOT_OURS = "not a file coldstart wrote): its files are not coldstart's to write; choose a new or empty folder";
    const cases: [string, string][] = [
      [file, `--out: ${file} is not a folder (${file} is a file)`],
      [fifo, `--out: ${fifo} is not a folder (${fifo} is a file)`],
      ['/dev/null', '--out: /dev/null is not a folder (/dev/null is a file)'],
      ['/proc/self/x', '--out: /proc/self/x is on proc, a kernel filesystem that holds no files: choose another folder'],
      // a folder whose bisect.json is not a file is not a bisect's: refused before its state is opened
      [
        stateFifo,
        `--out ${stateFifo} is not empty (bisect.json) and not a bisect folder (its bisect.json is a pipe or socket, ${NOT_OURS}`,
      ],
      [stateZero, `--out ${stateZero} is not empty (bisect.json) and not a bisect folder (its bisect.json is a symbolic link, ${NOT_OURS}`],
    ];
    const args = ['bisect', '--package', 'fastify', '--range', '4.0.0..4.1.0', '--from', from, '-f', 'fastify', '--out'];
    const results = await runClis(
      cases.map(([out]) => [...args, out]),
      2,
      60_000,
    );
    results.forEach((result, i) => {
      assert.equal(result.status, 2, `${cases[i]![0]}: ${result.stderr}`);
      assert.equal(result.stderr, `coldstart: ${cases[i]![1]}\n`);
    });
    assert.equal(readFileSync(file, 'utf8'), 'kept\n');
  });
});
