/**
 * The ownership check of an existing --out folder (store/out-dir.ts, checkOwnFolder; issue 46 item 6):
 * empty, or holding only the tool's own leftovers, or carrying its kind's marker written by the tool.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../metrics/core/errors.ts';
import { RUN_FOLDER } from '../../metrics/store/meta-file.ts';
import { checkOutDir } from '../../metrics/store/out-dir.ts';
import { ownedDir, ownedPath, writeOwnedFile } from '../../metrics/store/files.ts';
import { fixture, tempDir } from '../support/in-process.ts';

const refusedAsUsers = (error: unknown) => error instanceof UsageError && /is not empty .* and not a run folder/.test(error.message);

describe('an existing --out folder is the tool’s own, empty, or refused', () => {
  it('takes an empty folder, one holding only the tool’s lock, and a run folder (meta.json of a run, or hyperfine.json)', () => {
    const empty = tempDir('coldstart-own-');
    assert.deepEqual(checkOutDir(empty, '--out', RUN_FOLDER), []);
    const locked = tempDir('coldstart-own-');
    writeFileSync(path.join(locked, '.coldstart.lock'), '');
    checkOutDir(locked, '--out', RUN_FOLDER);
    const run = tempDir('coldstart-own-');
    copyFileSync(path.join(fixture('golden-run'), 'meta.json'), path.join(run, 'meta.json'));
    writeFileSync(path.join(run, 'summary.md'), 'old report\n');
    checkOutDir(run, '--out', RUN_FOLDER);
    const hyperfine = tempDir('coldstart-own-');
    writeFileSync(path.join(hyperfine, 'hyperfine.json'), '{}');
    checkOutDir(hyperfine, '--out', RUN_FOLDER);
  });

  it("refuses a folder of the user's: a stray dot file, a meta.json that is not a run's, a meta.json that is a link or a folder", () => {
    const dotted = tempDir('coldstart-own-');
    writeFileSync(path.join(dotted, '.DS_Store'), '');
    assert.throws(() => checkOutDir(dotted, '--out', RUN_FOLDER), refusedAsUsers);
    const config = tempDir('coldstart-own-');
    writeFileSync(path.join(config, 'meta.json'), '[1, 2]');
    assert.throws(() => checkOutDir(config, '--out', RUN_FOLDER), refusedAsUsers);
    const linked = tempDir('coldstart-own-');
    symlinkSync(path.join(fixture('golden-run'), 'meta.json'), path.join(linked, 'meta.json'));
    assert.throws(() => checkOutDir(linked, '--out', RUN_FOLDER), refusedAsUsers);
    const folder = tempDir('coldstart-own-');
    mkdirSync(path.join(folder, 'meta.json'));
    assert.throws(() => checkOutDir(folder, '--out', RUN_FOLDER), refusedAsUsers);
  });

  it('names at most three of the entries, in one line', () => {
    const many = tempDir('coldstart-own-');
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e\nf.txt']) writeFileSync(path.join(many, name), '');
    assert.throws(
      () => checkOutDir(many, '--out', RUN_FOLDER),
      (error: unknown) => error instanceof UsageError && /\(a\.txt, b\.txt, c\.txt, … \(5 entries\)\)/.test(error.message),
    );
  });

  it('without a kind (an option that is no --out folder of a run) nothing is asked of the folder’s content', () => {
    const dotted = tempDir('coldstart-own-');
    writeFileSync(path.join(dotted, 'notes.txt'), '');
    assert.deepEqual(checkOutDir(dotted), []);
  });
});

describe('ownedPath, ownedDir and writeOwnedFile: no part of a path inside an owned folder is a link', () => {
  it('refuses a link at any depth, and ".." out of the folder; the owned folder itself may be a link', () => {
    const real = tempDir('coldstart-owned-real-');
    const elsewhere = tempDir('coldstart-owned-elsewhere-');
    mkdirSync(path.join(real, 'steps'));
    symlinkSync(elsewhere, path.join(real, 'steps', '1.0.0'));
    assert.throws(() => writeOwnedFile(real, 'steps/1.0.0/summary.md', 'x'), /1\.0\.0 is a symbolic link inside/);
    assert.throws(() => ownedDir(real, 'steps/1.0.0/inner'), /1\.0\.0 is a symbolic link inside/);
    assert.deepEqual(readdirSync(elsewhere), []);
    assert.throws(() => ownedPath(real, '../x'), /leads out of/);
    // the folder the user named may be a link: followed, and the file made inside it
    const named = path.join(tempDir('coldstart-owned-named-'), 'run');
    symlinkSync(real, named);
    assert.equal(writeOwnedFile(named, 'steps/2.0.0.md', 'made\n'), path.join(named, 'steps', '2.0.0.md'));
    assert.equal(readFileSync(path.join(real, 'steps', '2.0.0.md'), 'utf8'), 'made\n');
    assert.equal(ownedDir(real, 'a/b'), path.join(real, 'a', 'b'));
  });
});
