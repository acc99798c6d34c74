/**
 * Two runs started together into one new --out: both find the folder missing, one makes it, and the
 * other's mkdir meets EEXIST. The loser must use the folder as if it had existed (its lock then says
 * "in use by another run"), not fail with "cannot create". The race is made deterministic by a
 * mkdirSync that lets "another process" make the folder first.
 */
import { after, afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs, { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeWritableDir } from '../../metrics/store/out-dir.ts';
import { UsageError } from '../../metrics/core/errors.ts';

const root = mkdtempSync(path.join(tmpdir(), 'coldstart-out-race-'));
after(() => rmSync(root, { recursive: true, force: true }));

const realMkdir = fs.mkdirSync;
afterEach(() => {
  fs.mkdirSync = realMkdir;
  syncBuiltinESMExports();
});

/** mkdirSync as if another process made `target` (as `make` does) just before this one asks. */
function racedBy(target: string, make: (p: string) => void): void {
  fs.mkdirSync = ((p: fs.PathLike, options?: fs.MakeDirectoryOptions) => {
    if (String(p) === target && !existsSync(target)) make(target);
    return realMkdir(p, options);
  }) as typeof fs.mkdirSync;
  syncBuiltinESMExports();
}

describe('makeWritableDir when another run makes the folder first', () => {
  it('uses the folder the other run made, and makes nothing of its own', () => {
    const dir = path.join(root, 'shared');
    racedBy(dir, (p) => realMkdir(p));
    assert.deepEqual(makeWritableDir(dir), [], 'nothing made here: the other run owns the folder');
    assert.ok(existsSync(dir));
  });

  it('still refuses when what appeared is a file, with the option and the code in one line', () => {
    const dir = path.join(root, 'file-instead');
    racedBy(dir, (p) => writeFileSync(p, 'x'));
    assert.throws(
      () => makeWritableDir(dir),
      (e: unknown) => e instanceof UsageError && /^--out: cannot create .* \(EEXIST at /.test(e.message) && !e.message.includes('\n'),
    );
  });
});
