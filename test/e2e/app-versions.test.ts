/**
 * `measure --versions` on a user's app, for real: a tiny server made here that depends on `ms`, its
 * own install at ms 2.1.3 (node_modules and lockfile), measured at ms@2.0.0 and ms@2.1.3 in one run.
 * Each version is installed once into a .versions/ of the test's own (COLDSTART_VERSIONS_DIR) and the
 * app runs from a copy in the run's scratch folder: every output names both versions, meta.json has
 * each one's integrity, the app really loaded each version (it writes the version it loaded into a
 * file), a version that does not exist is skipped and said, the app's folder is unchanged byte for
 * byte, and no copy is left after the run, nor after a run killed with SIGKILL (the next run removes
 * it). Needs the npm registry: skipped with the reason when it is unreachable.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse as parseCsv } from 'csv-parse/sync';
import { CLI, ROOT, runCli, tempDir, waitFor, type CliResult } from '../support/helpers.ts';

const VERSIONS = ['ms@2.0.0', 'ms@2.1.3'];
const registry = spawnSync('npm', ['view', 'ms@2.0.0', 'version'], { encoding: 'utf8', timeout: 60_000 });
const noRegistry = registry.status === 0 && registry.stdout.trim() === '2.0.0' ? false : 'the npm registry is unreachable: test skipped';

/** Every file under `dir` with the sha256 of its bytes. */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const file = path.join(at, name);
      if (lstatSync(file).isDirectory()) walk(file);
      else out[path.relative(dir, file)] = createHash('sha256').update(readFileSync(file)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/** The copies of the app (`apps/ms-app`) in scratch folders of runs in the temp folder. */
function copiesLeft(): string[] {
  return readdirSync(os.tmpdir())
    .filter((name) => name.startsWith('coldstart-run-'))
    .filter((name) => existsSync(path.join(os.tmpdir(), name, 'apps', 'ms-app')));
}

describe('measure --versions on an app: two versions of its dependency in one run', { skip: noRegistry, timeout: 600_000 }, () => {
  const dir = tempDir('coldstart-app-versions-');
  const app = path.join(dir, 'app');
  const out = path.join(dir, 'run');
  const loaded = path.join(dir, 'loaded.txt');
  const env = { ...process.env, COLDSTART_VERSIONS_DIR: path.join(dir, 'versions') };
  const args = (extra: string[]) => [
    'measure',
    '--entry',
    path.join(app, 'server.js'),
    '--name',
    'ms-app',
    '--env',
    `LOADED_FILE=${loaded}`,
    '--expect-body',
    '^ms 2\\.',
    ...extra,
  ];
  let before_: Record<string, string>;
  let killedScratch: string[] = [];
  let result: CliResult;
  before(async () => {
    mkdirSync(app, { recursive: true });
    writeFileSync(path.join(app, 'package.json'), `${JSON.stringify({ name: 'ms-app', private: true, dependencies: { ms: '^2.1.3' } })}\n`);
    writeFileSync(
      path.join(app, 'server.js'),
      "const { appendFileSync } = require('node:fs');\nconst ms = require('ms');\n" +
        "const { version } = require('ms/package.json');\nappendFileSync(process.env.LOADED_FILE, `${version}\\n`);\n" +
        "require('node:http').createServer((q, s) => s.end(`ms ${version} ${ms('1h')}`)).listen(Number(process.env.PORT), '127.0.0.1');\n",
    );
    const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app, encoding: 'utf8' });
    assert.equal(install.status, 0, install.stderr);
    before_ = hashes(app);
    // a run killed while its copies exist: its scratch folder is left, and the next run removes it
    const killed = spawn(
      process.execPath,
      [...CLI, ...args(['--versions', 'ms@2.0.0', '--samples', '50', '--out', path.join(dir, 'killed')])],
      {
        cwd: ROOT,
        env,
        stdio: 'ignore',
      },
    );
    const appeared = await waitFor(() => copiesLeft().length > 0, 120_000, 100);
    killedScratch = copiesLeft();
    killed.kill('SIGKILL');
    await new Promise((resolve) => killed.once('close', resolve));
    assert.ok(appeared, 'the killed run copied the app');
    writeFileSync(loaded, '');
    result = runCli(args(['--versions', `${VERSIONS.join(',')},9.9.9`, '--samples', '1', '--warmup', '0', '--out', out]), {
      env,
      timeoutMs: 600_000,
    });
  });

  it('measures a cell per version, each loading its version', () => {
    assert.equal(result.status, 0, result.stderr);
    const rows = parseCsv<Record<string, string>>(readFileSync(path.join(out, 'summary.csv'), 'utf8'), { columns: true });
    assert.deepEqual(rows.map((r) => r.version).sort(), VERSIONS);
    assert.deepEqual([...new Set(readFileSync(loaded, 'utf8').trim().split('\n'))].sort(), ['2.0.0', '2.1.3']);
  });

  it('names each version in summary.md, report.html, levers.md and compare', () => {
    const compared = path.join(dir, 'compare.md');
    const compare = runCli(['compare', out, out, '--out', compared]);
    assert.equal(compare.status, 0, compare.stderr);
    for (const file of [path.join(out, 'summary.md'), path.join(out, 'report.html'), path.join(out, 'levers.md'), compared]) {
      const text = readFileSync(file, 'utf8');
      for (const v of VERSIONS) assert.ok(text.includes(v), `${path.basename(file)} names ${v}`);
    }
  });

  it("records each version's integrity in meta.json, and the version that does not exist as skipped", () => {
    const meta = JSON.parse(readFileSync(path.join(out, 'meta.json'), 'utf8')) as {
      versions: Record<string, { integrity: string }>;
      skipped: Record<string, string>;
    };
    assert.deepEqual(Object.keys(meta.versions).sort(), VERSIONS);
    for (const v of VERSIONS) assert.match(meta.versions[v]!.integrity, /^sha512-/);
    assert.match(meta.skipped['ms@9.9.9']!, /^does not install: No matching version found for ms@9\.9\.9/);
    assert.match(result.stderr, /ms@9\.9\.9: skipped \(does not install: .*ms-app is not measured at it\)/);
  });

  it("leaves the app's folder as it was, installs into the cache, and leaves no copy behind, nor a killed run's", () => {
    assert.deepEqual(hashes(app), before_);
    const cached = readdirSync(path.join(dir, 'versions')).filter((n) => n.startsWith('app-'));
    assert.deepEqual(cached.map((n) => n.replace(/^app-[0-9a-f]{12}\+/, '')).sort(), VERSIONS);
    // the run after the kill removed the killed run's scratch folder (or another run on this machine did first: the same sweep)
    assert.ok(killedScratch.length > 0);
    for (const name of killedScratch) assert.equal(existsSync(path.join(os.tmpdir(), name)), false, `${name} is left`);
    assert.deepEqual(copiesLeft(), []);
  });
});
