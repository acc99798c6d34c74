/**
 * The cold file cache: the files a run reads are found from strace's record of a real run, and
 * eviction drops exactly those from the page cache (fincore says what is resident), nothing else.
 * The parts that need strace or fincore (util-linux) are skipped with the reason when absent.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { writeAppFiles } from '../../generators/app-probe.ts';
import { contractOf, defaultContract } from '../../generators/contract.ts';
import { loadGenerators, PROJECT_ROOT } from '../../generators/registry.ts';
import { writeGenerated } from '../../generators/write.ts';
import type { AppSpec } from '../../metrics/core/app.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { sampleRoots } from '../../metrics/measure/file-cache-run.ts';
import {
  evictFiles,
  parseStraceOpens,
  SampleFileCache,
  sampleFiles,
  straceProblem,
  type DiscoveryRun,
} from '../../metrics/measure/file-cache.ts';
import { runSample } from '../../metrics/measure/sample.ts';
import { tempDir } from '../support/helpers.ts';

const hex = (text: string) => [...Buffer.from(text)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');

/** Bytes of `file` in the page cache, by fincore; undefined without fincore. */
function resident(file: string): number | undefined {
  const out = spawnSync('fincore', ['--bytes', '--noheadings', '--raw', '--output', 'RES', file], { encoding: 'utf8' });
  return out.status === 0 ? Number(out.stdout.trim()) : undefined;
}
const noFincore =
  resident(path.join(PROJECT_ROOT, 'package.json')) === undefined ? 'fincore (util-linux) is not installed; skipped' : false;
const noStrace = straceProblem() ? `${straceProblem()}; skipped` : false;

describe("strace's record", () => {
  it('gives the opened and executed paths, hex-decoded, relative ones against the working folder, each once', () => {
    const record = [
      `41 execve("${hex('/rt/bin/node')}", ["${hex('node')}"], 0x7ff /* 3 vars */) = 0`,
      `41 openat(AT_FDCWD, "${hex('/app/node_modules/a b/"q".js')}", O_RDONLY|O_CLOEXEC) = 17`,
      `42 openat(AT_FDCWD, "${hex('rel.js')}", O_RDONLY) = 18`,
      `42 openat(AT_FDCWD, "${hex('/app/node_modules/a b/"q".js')}", O_RDONLY) = 19`,
      `42 openat(AT_FDCWD, "${hex('/missing')}", O_RDONLY) = -1 ENOENT (No such file or directory)`,
    ].join('\n');
    assert.deepEqual(parseStraceOpens(record, '/cwd'), ['/rt/bin/node', '/app/node_modules/a b/"q".js', '/cwd/rel.js']);
  });

  it("keeps regular files under the roots, never the scratch folder's nor the machine's", () => {
    const root = tempDir();
    const scratch = path.join(root, 'scratch');
    const own = path.join(root, 'own.js');
    writeFileSync(own, '1');
    spawnSync('mkdir', [scratch]);
    writeFileSync(path.join(scratch, 'cache.bin'), '1');
    const opened = [own, path.join(scratch, 'cache.bin'), '/etc/hostname', root, path.join(root, 'gone.js')];
    assert.deepEqual(sampleFiles(opened, [root], [scratch]), [own]);
  });

  it("for a user's app, also keeps files of any node_modules folder (packages hoisted above its own folder)", () => {
    const root = tempDir();
    const app = path.join(root, 'app');
    const hoisted = path.join(root, 'node_modules', 'hoisted', 'index.js');
    mkdirSync(path.dirname(hoisted), { recursive: true });
    mkdirSync(app);
    writeFileSync(hoisted, '1');
    writeFileSync(path.join(root, 'other.js'), '1');
    const opened = [hoisted, path.join(root, 'other.js')];
    assert.deepEqual(sampleFiles(opened, [app], []), []);
    assert.deepEqual(sampleFiles(opened, [app], [], { anyPackage: true }), [hoisted]);
  });

  it('keeps the files of a root reached through a symlink (a linked node_modules or runtimes folder)', () => {
    const base = tempDir();
    const elsewhere = path.join(base, 'elsewhere');
    const project = path.join(base, 'project');
    spawnSync('mkdir', ['-p', path.join(elsewhere, 'pkg'), project]);
    const file = path.join(elsewhere, 'pkg', 'index.js');
    writeFileSync(file, '1');
    symlinkSync(elsewhere, path.join(project, 'node_modules'));
    const opened = [path.join(project, 'node_modules', 'pkg', 'index.js'), file];
    assert.deepEqual(sampleFiles(opened, [path.join(project, 'node_modules')], []), [file]);
    assert.deepEqual(sampleFiles(opened, [project], []), [], 'the symlink alone does not make elsewhere part of the project');
  });
});

describe('eviction', () => {
  it('drops exactly the given files from the page cache', { skip: noFincore }, () => {
    const dir = tempDir();
    const files = ['own-1.js', 'own-2.js', 'other.js'].map((name) => path.join(dir, name));
    for (const file of files) writeFileSync(file, 'x'.repeat(64 * 1024));
    spawnSync('sync', ['--data', '--', ...files]);
    for (const file of files) readFileSync(file);
    for (const file of files) assert.ok(resident(file)! > 0, `${file} is cached before`);
    evictFiles(files.slice(0, 2));
    assert.equal(resident(files[0]!), 0);
    assert.equal(resident(files[1]!), 0);
    assert.ok(resident(files[2]!)! > 0, 'a file not in the list stays cached');
  });

  it(
    "a cold cell's discovery finds the handler and its node_modules, and its eviction drops only them",
    { skip: noStrace || noFincore },
    async () => {
      const fastify = (await loadGenerators('server')).find((g) => g.name === 'fastify')!;
      const { file } = await writeGenerated(fastify, 1, 'validated');
      const scratch = tempDir();
      const cell = makeCell({ framework: 'fastify', variant: 'validated', routes: 1, fileCache: 'cold' });
      const cache = new SampleFileCache(scratch, sampleRoots());
      let traced: string[] = [];
      const problem = await cache.prepare(cell, (wrap) => {
        const launch = wrap({ command: process.execPath, args: [file], cwd: scratch, env: childEnvironment().env });
        traced = launch.args;
        return runSample({
          cell,
          launch,
          contract: contractOf(fastify),
          phase: 'warmup',
          index: 0,
          timeoutMs: 60_000,
          checkInvalidBody: false,
          firstHits: 0,
        });
      });
      assert.equal(problem, undefined);
      assert.equal(traced[0], '-f', 'the discovery run ran under strace');
      const count = Number(Object.values(cache.counts())[0]);
      assert.ok(count > 50, `fastify reads its node_modules: ${count} files`);
      const files = cache.filesOf(cell)!;
      assert.ok(files.includes(file), 'the handler is in the list');
      assert.ok(
        files.some((f) => f.includes(`${path.sep}node_modules${path.sep}fastify${path.sep}`)),
        'fastify itself is in the list',
      );
      const roots = sampleRoots().map((r) => realpathSync(r) + path.sep);
      assert.ok(
        files.every((f) => roots.some((r) => f.startsWith(r))),
        'nothing outside the project, its node_modules and the runtimes folder',
      );
      const control = path.join(PROJECT_ROOT, 'README.md');
      readFileSync(control);
      // cold again: every listed file leaves the cache, the README (not read by the sample) stays
      await cache.prepare(cell, () => Promise.reject(new Error('discovery runs once')));
      for (const f of files) assert.equal(resident(f), 0, `${f} was evicted`);
      assert.ok(resident(control)! > 0, 'a project file the sample does not read stays cached');
    },
  );

  it(
    "a user's app outside the project: its own files, the packages next to it and those hoisted above it are evicted",
    { skip: noStrace || noFincore },
    async () => {
      const root = tempDir('coldstart-user-app-');
      const dir = path.join(root, 'app');
      const packages = [path.join(dir, 'node_modules', 'near'), path.join(root, 'node_modules', 'hoisted')];
      for (const pkg of packages) {
        mkdirSync(pkg, { recursive: true });
        writeFileSync(path.join(pkg, 'index.js'), `module.exports = ${JSON.stringify('x'.repeat(64 * 1024))};\n`);
      }
      const entry = path.join(dir, 'server.js');
      writeFileSync(
        entry,
        "require('near');\nrequire('hoisted');\n" +
          "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT));\n",
      );
      const app: AppSpec = { name: 'user', kind: 'server', file: entry, args: [], cwd: dir, expect: { status: 200 }, port: 'auto' };
      const cell = makeCell({ framework: 'user', variant: 'plain', routes: 1, source: 'app', fileCache: 'cold' });
      const scratch = tempDir();
      const cache = new SampleFileCache(scratch, [PROJECT_ROOT]);
      const { preload } = writeAppFiles();
      const discover: DiscoveryRun = (wrap) =>
        runSample({
          cell,
          launch: wrap({ command: process.execPath, args: ['--require', preload, entry], cwd: dir, env: childEnvironment().env }),
          contract: defaultContract,
          app,
          phase: 'warmup',
          index: 0,
          timeoutMs: 60_000,
          checkInvalidBody: false,
          firstHits: 0,
        });
      assert.equal(await cache.prepare(cell, discover, { roots: [dir] }), undefined);
      const files = cache.filesOf(cell)!;
      const wanted = [entry, ...packages.map((p) => path.join(p, 'index.js'))];
      for (const file of wanted) assert.ok(files.includes(file), `${file} is in the list: ${files.join(', ')}`);
      for (const file of wanted) readFileSync(file);
      await cache.prepare(cell, () => Promise.reject(new Error('discovery runs once')), { roots: [dir] });
      for (const file of wanted) assert.equal(resident(file), 0, `${file} was evicted`);
    },
  );
});
