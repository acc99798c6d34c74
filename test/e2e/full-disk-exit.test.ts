/**
 * The exit code table is the contract: a full disk is the machine's refusal (exit 4, one line naming
 * the file), whichever command writes, never a usage error (2) or an internal one (1).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const GOLDEN = path.join(ROOT, 'test', 'fixtures', 'golden-run');
const root = process.getuid?.() === 0 && process.platform === 'linux';

function cli(args: string[]): { status: number | null; stderr: string } {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'metrics', 'cli', 'main.ts'), ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, stderr: result.stderr };
}

describe('a full disk is exit 4 for every command that writes', { skip: root ? false : 'needs root to mount a small tmpfs' }, () => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'coldstart-test-disk-'));
  const disk = path.join(base, 'disk');
  mkdirSync(disk);
  const mounted = root && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]).status === 0;
  after(() => {
    if (mounted) spawnSync('umount', ['-l', disk]);
    rmSync(base, { recursive: true, force: true });
  });

  it('lambda:import: samples.jsonl named, no staging folder left', (t) => {
    if (!mounted) {
      t.skip('mount -t tmpfs failed');
      return;
    }
    const reports = path.join(base, 'coldstart-fastify-100-validated.txt');
    const line = (i: number) =>
      `2026-09-01T10:00:${String(i % 60).padStart(2, '0')}.000Z REPORT RequestId: r${String(i).padStart(6, '0')}-a\t` +
      'Duration: 3.1 ms\tBilled Duration: 4 ms\tMemory Size: 1024 MB\tMax Memory Used: 70 MB\tInit Duration: 140.00 ms\n';
    writeFileSync(reports, Array.from({ length: 3000 }, (_, i) => line(i)).join(''));
    const run = cli(['lambda-import', reports, '--out', path.join(disk, 'imported')]);
    assert.equal(run.status, 4, run.stderr);
    assert.match(run.stderr.trim().split('\n').at(-1)!, /^coldstart: cannot write .*samples\.jsonl \(ENOSPC: no space left on device\)$/);
    assert.deepEqual(readdirSync(disk), [], 'no staging folder, no half run');
  });

  it('compare --out: the file named', (t) => {
    if (!mounted) {
      t.skip('mount -t tmpfs failed');
      return;
    }
    try {
      writeFileSync(path.join(disk, 'filler'), Buffer.alloc(128 * 1024));
    } catch {
      // ENOSPC: the disk is full, as wanted
    }
    const run = cli(['compare', GOLDEN, GOLDEN, '--out', path.join(disk, 'compare.md')]);
    assert.equal(run.status, 4, run.stderr);
    assert.match(run.stderr, /^coldstart: --out: cannot write .*compare\.md \(ENOSPC: no space left on device\)\n$/);
    rmSync(path.join(disk, 'filler'));
  });
});
