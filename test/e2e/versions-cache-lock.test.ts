/**
 * The versions cache is held while a version is installed into it (issue 46, item 2d): two bisects sharing an emptied
 * `.versions/` removed each other's half-installed folders (evict) and both lost their good end. Here this process
 * holds the cache (measure/run-lock.ts) as a first bisect would; a child installing a version into it, as bisect's
 * real deps do, says it waits and makes nothing; once released it installs, and finds a version already there
 * without installing it again. Nothing is timed: the child's own lines are what is waited for.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { lockFolder } from '../../metrics/measure/run-lock.ts';
import { versionDir } from '../../metrics/plan/versions.ts';
import { ROOT, tempDir } from '../support/helpers.ts';

/** One release of a small package, packed into `dir`/tarballs. */
function packed(dir: string): string {
  const tarballs = path.join(dir, 'tarballs');
  const src = path.join(dir, 'src');
  mkdirSync(tarballs, { recursive: true });
  mkdirSync(src, { recursive: true });
  writeFileSync(path.join(src, 'package.json'), JSON.stringify({ name: 'cs-lock-dep', version: '1.0.0', main: 'index.js' }));
  writeFileSync(path.join(src, 'index.js'), 'module.exports = 1;\n');
  const pack = spawnSync('npm', ['pack', src, '--pack-destination', tarballs], { encoding: 'utf8' });
  assert.equal(pack.status, 0, pack.stderr);
  return tarballs;
}

/** A child that installs cs-lock-dep@1.0.0 into the cache `root` as bisect does; its stdout lines, and its outcome. */
function installer(root: string, from: string, onLine: (line: string) => void): Promise<{ status: number | null; stdout: string }> {
  const script = `
import { ensureVersion } from ${JSON.stringify(path.join(ROOT, 'metrics', 'plan', 'versions.ts'))};
import { versionsCacheLock } from ${JSON.stringify(path.join(ROOT, 'metrics', 'measure', 'run-lock.ts'))};
const log = (line) => console.log(line);
const options = { root: ${JSON.stringify(root)}, from: ${JSON.stringify(from)}, lock: versionsCacheLock('bisect', log) };
const outcome = ensureVersion('cs-lock-dep@1.0.0', log, options);
console.log('outcome ' + JSON.stringify({ ok: outcome.ok }));
`;
  const file = path.join(path.dirname(root), `installer-${Math.random().toString(36).slice(2)}.mts`);
  writeFileSync(file, script);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stdout += text;
      for (const line of text.split('\n')) if (line) onLine(line);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout });
    });
  });
}

describe('the versions cache held while a version is installed', { timeout: 300_000 }, () => {
  it('a second writer waits, saying so, then installs; a third finds it installed', async () => {
    const dir = tempDir('coldstart-versions-lock-');
    const from = packed(dir);
    const root = path.join(dir, 'cache');
    mkdirSync(root);
    const target = versionDir('cs-lock-dep@1.0.0', root);
    const held = lockFolder(root, 'bisect', () => undefined);
    let releasedWhileWaiting = false;
    let madeWhileHeld = false;
    const second = installer(root, from, (line) => {
      if (!line.startsWith('waiting for the versions cache') || releasedWhileWaiting) return;
      // it waits: nothing of the version is made while the cache is held
      madeWhileHeld = existsSync(target);
      releasedWhileWaiting = true;
      held.release();
    });
    const result = await second;
    held.release();
    assert.equal(result.status, 0, result.stdout);
    assert.ok(releasedWhileWaiting, `the child never said it waits:\n${result.stdout}`);
    assert.equal(madeWhileHeld, false);
    assert.match(result.stdout, /^waiting for the versions cache .*cache \(in use by bisect pid \d+, since [^)]+\)$/m);
    assert.match(result.stdout, /^installing cs-lock-dep@1\.0\.0 into /m);
    assert.match(result.stdout, /^outcome \{"ok":true\}$/m);
    // a third run finds it installed, installs nothing
    const third = await installer(root, from, () => undefined);
    assert.equal(third.status, 0, third.stdout);
    assert.doesNotMatch(third.stdout, /installing|waiting/);
    assert.match(third.stdout, /^outcome \{"ok":true\}$/m);
  });
});
