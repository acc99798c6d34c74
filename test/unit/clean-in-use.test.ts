/**
 * `clean` refuses while a run uses generated/ (issue 37, class 7): it exited 0 and deleted files a
 * live run still needed, whose later samples then failed. A run marks generated/ for its lifetime
 * (measure/generated-users.ts); a dead runner's mark is stale and does not block.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../metrics/core/errors.ts';
import { generatedUsers, useGenerated } from '../../metrics/measure/generated-users.ts';
import { ownerTag, selfOwner } from '../../metrics/measure/owner.ts';
import { cleanGenerated } from '../../metrics/pipeline/generate.ts';
import { tempDir } from '../support/in-process.ts';

/** A generated/ folder with a file a run needs, and a compile cache beside it. */
function generatedFolder(): { dir: string; cache: string; needed: string } {
  const root = tempDir('coldstart-clean-');
  const dir = path.join(root, 'generated');
  const cache = path.join(root, 'compiled');
  mkdirSync(dir);
  mkdirSync(cache);
  writeFileSync(path.join(dir, 'package.json'), '{}');
  const needed = path.join(dir, '1000-startup-fastify-routes.js');
  writeFileSync(needed, '// a run needs me');
  return { dir, cache, needed };
}

describe('clean and a live run', () => {
  it('refuses (UsageError naming the run) while a live run marks generated/, and deletes nothing', () => {
    const { dir, cache, needed } = generatedFolder();
    const release = useGenerated(dir);
    assert.deepEqual(generatedUsers(dir), [process.pid]);
    assert.throws(
      () => cleanGenerated(dir, cache),
      (error) => error instanceof UsageError && new RegExp(`in use by a run \\(pid ${process.pid}\\)`).test(error.message),
    );
    assert.ok(existsSync(needed) && existsSync(cache));
    release();
    assert.deepEqual(generatedUsers(dir), []);
    cleanGenerated(dir, cache);
    assert.deepEqual(readdirSync(dir), ['package.json']);
    assert.equal(existsSync(cache), false);
  });

  it("a dead runner's mark (this pid with another start time) is stale: removed, and clean goes on", () => {
    const { dir, cache, needed } = generatedFolder();
    const start = selfOwner().start;
    const stale = ownerTag({ pid: process.pid, start: start === undefined ? 1 : start + 1 });
    mkdirSync(path.join(dir, '.in-use'));
    writeFileSync(path.join(dir, '.in-use', stale), '');
    assert.deepEqual(generatedUsers(dir), []);
    cleanGenerated(dir, cache);
    assert.equal(existsSync(needed), false);
  });
});
