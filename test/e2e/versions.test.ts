/**
 * Versions as a dimension and bisect, for real. `--versions` runs two fastify majors and two express
 * majors side by side in one timed run (1 route, one sample: no timing is asserted), every output
 * showing the version and meta.json each one's integrity (needs the npm registry: skipped with the
 * reason when it is unreachable; installs are cached in .versions/). A bisect over 18 releases of a
 * tiny package made here (npm pack tarballs, no registry), one of which plants start-up work, finds
 * that release from a server entry in about log2(18) counted runs (valgrind; skipped without it),
 * steps around a release whose tarball does not install and says so, and leaves the app's folder as
 * it was.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse as parseCsv } from 'csv-parse/sync';
import { findCountTools } from '../../metrics/measure/counting.ts';
import { stepsFor } from '../../metrics/pipeline/bisect.ts';
import { runCli, tempDir, type CliResult } from '../support/helpers.ts';

const VERSIONS = ['fastify@4.28.1', 'fastify@5.6.1', 'express@4.21.2', 'express@5.1.0'];
const registry = spawnSync('npm', ['view', 'fastify@4.28.1', 'version'], { encoding: 'utf8', timeout: 60_000 });
const noRegistry =
  registry.status === 0 && registry.stdout.trim() === '4.28.1' ? false : 'the npm registry is unreachable: --versions test skipped';
const noValgrind = findCountTools() ? false : 'valgrind (and vgdb) not on PATH: apt-get install valgrind; counted bisect skipped';

describe('--versions: two fastify and two express majors in one run', { skip: noRegistry, timeout: 900_000 }, () => {
  const out = path.join(tempDir('coldstart-versions-'), 'run');
  let result: CliResult;
  before(() => {
    result = runCli(
      [
        'run',
        '-f',
        'fastify,express',
        '-r',
        '1',
        '--samples',
        '1',
        '--warmup',
        '0',
        '--versions',
        ...VERSIONS.slice(0, 2),
        '--versions',
        'express@4.21.2,5.1.0',
        '--out',
        out,
      ],
      { timeoutMs: 900_000 },
    );
  });
  it('runs a cell per version', () => {
    assert.equal(result.status, 0, result.stderr);
    const rows = parseCsv<Record<string, string>>(readFileSync(path.join(out, 'summary.csv'), 'utf8'), { columns: true });
    assert.deepEqual(rows.map((r) => r.version).sort(), [...VERSIONS].sort());
    for (const row of rows) assert.ok(row.version!.startsWith(`${row.framework}@`), `${row.framework} at ${row.version}`);
  });
  it('shows each version in summary.md, report.html and levers.md, and compare', () => {
    const compared = path.join(tempDir('coldstart-versions-'), 'compare.md');
    const compare = runCli(['compare', out, out, '--out', compared]);
    assert.equal(compare.status, 0, compare.stderr);
    for (const file of [path.join(out, 'summary.md'), path.join(out, 'report.html'), path.join(out, 'levers.md'), compared]) {
      const text = readFileSync(file, 'utf8');
      for (const v of VERSIONS) assert.ok(text.includes(v), `${path.basename(file)} names ${v}`);
    }
  });
  it('records each version with its integrity in meta.json', () => {
    const meta = JSON.parse(readFileSync(path.join(out, 'meta.json'), 'utf8')) as {
      versions: Record<string, { integrity: string }>;
      spec: { cells: { versions: string[] } };
    };
    assert.deepEqual(meta.spec.cells.versions, VERSIONS);
    assert.deepEqual(Object.keys(meta.versions).sort(), [...VERSIONS].sort());
    for (const v of VERSIONS) assert.match(meta.versions[v]!.integrity, /^sha512-/);
  });
});

/** 18 releases of cs-fake-dep as npm pack tarballs; from `planted` on, its require does more work; `broken` is not a tarball. */
interface LoadedFile {
  packages: { name: string; modules: number; bytes: number }[];
}

function fakeReleases(dir: string, planted: number, broken: number): string {
  const tarballs = path.join(dir, 'tarballs');
  mkdirSync(tarballs, { recursive: true });
  for (let i = 0; i < 18; i++) {
    const src = path.join(dir, 'src', String(i));
    mkdirSync(src, { recursive: true });
    writeFileSync(path.join(src, 'package.json'), JSON.stringify({ name: 'cs-fake-dep', version: `1.0.${i}`, main: 'index.js' }));
    const work = i >= planted ? "const a = []; for (let i = 0; i < 20000; i++) a.push('x' + i);\n" : '';
    writeFileSync(path.join(src, 'index.js'), `${work}module.exports = { release: ${i} };\n`);
    const pack = spawnSync('npm', ['pack', src, '--pack-destination', tarballs], { encoding: 'utf8' });
    assert.equal(pack.status, 0, pack.stderr);
  }
  writeFileSync(path.join(tarballs, `cs-fake-dep-1.0.${broken}.tgz`), 'not a tarball');
  return tarballs;
}

describe('bisect over 18 local releases of a package, on a server entry', { skip: noValgrind, timeout: 1_800_000 }, () => {
  const dir = tempDir('coldstart-bisect-');
  const app = path.join(dir, 'app');
  const out = path.join(dir, 'bisect');
  let tarballs: string;
  let result: CliResult;
  before(() => {
    // 1.0.8 is the first middle the search tries: it does not install, so the search steps around it
    tarballs = fakeReleases(dir, 11, 8);
    mkdirSync(app, { recursive: true });
    writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'bisect-app', private: true, dependencies: { 'cs-fake-dep': '^1.0.0' } }),
    );
    writeFileSync(
      path.join(app, 'server.js'),
      "const http = require('node:http');\nconst dep = require('cs-fake-dep');\n" +
        'http.createServer((req, res) => res.end(JSON.stringify({ release: dep.release })))' +
        ".listen(Number(process.env.PORT), '127.0.0.1');\n",
    );
    result = runCli(
      [
        'bisect',
        '--package',
        'cs-fake-dep',
        '--range',
        '1.0.0..1.0.17',
        '--from',
        tarballs,
        '--entry',
        path.join(app, 'server.js'),
        '--cwd',
        app,
        '--out',
        out,
      ],
      { timeoutMs: 1_800_000 },
    );
  });
  it('finds the planted release in about log2(n) counted runs', () => {
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /culprit: cs-fake-dep@1\.0\.11 \(last good 1\.0\.10\)/);
    const state = JSON.parse(readFileSync(path.join(out, 'bisect.json'), 'utf8')) as { steps: string[] };
    // the two ends, log2 of the 16 between, and the one skipped
    assert.ok(state.steps.length <= stepsFor(18) + 1, `${state.steps.length} runs: ${state.steps.join(', ')}`);
  });
  it('skips the release that does not install, and says so', () => {
    assert.match(result.stderr, /cs-fake-dep@1\.0\.8 skipped \(does not install/);
    assert.match(readFileSync(path.join(out, 'bisect.md'), 'utf8'), /\| 1\.0\.8 \| – \| – \| skipped: does not install/);
  });
  it('reports the change per phase, and leaves the app folder as it was', () => {
    const report = readFileSync(path.join(out, 'bisect.md'), 'utf8');
    assert.match(report, /## Change per phase, 1\.0\.10 → 1\.0\.11/);
    assert.match(report, /\| ready \| [\d,]+ \| [\d,]+ \| \+\d+\.\d\d % \|/);
    assert.deepEqual(readdirSync(app).sort(), ['package.json', 'server.js']);
  });
  it("lists the package whose loaded code changed: the planted release's bigger index.js, in bisect.md and on stdout", () => {
    const report = readFileSync(path.join(out, 'bisect.md'), 'utf8');
    assert.match(report, /## Packages whose loaded code changed most, 1\.0\.10 → 1\.0\.11\n/);
    const row = /\| cs-fake-dep \| 1 \| 1 \| \+0 \| 0\.0 \| 0\.1 \| \+0\.1 \(\+\d+\.\d\d %\) \|/;
    assert.match(report, row);
    assert.match(result.stdout, row);
    const bytes = (step: string) =>
      (JSON.parse(readFileSync(path.join(out, 'steps', step, 'loaded-packages.json'), 'utf8')) as LoadedFile).packages.find(
        (p) => p.name === 'cs-fake-dep',
      )?.bytes;
    assert.equal(bytes('1.0.10'), Buffer.byteLength('module.exports = { release: 10 };\n'));
    assert.equal(
      bytes('1.0.11'),
      Buffer.byteLength("const a = []; for (let i = 0; i < 20000; i++) a.push('x' + i);\nmodule.exports = { release: 11 };\n"),
    );
    // the step folders keep no report.html (npm run report writes it again)
    assert.equal(existsSync(path.join(out, 'steps', '1.0.11', 'report.html')), false);
    assert.ok(existsSync(path.join(out, 'steps', '1.0.11', 'samples.jsonl')));
  });
  it('refuses a package the app does not depend on (one line, exit 2, before anything is installed)', () => {
    const refused = runCli(['bisect', '--package', 'ms', '--range', '2.0.0..2.1.3', '--entry', path.join(app, 'server.js'), '--cwd', app]);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /^coldstart: --package ms is not a dependency of the app \(not in the dependencies, .*package\.json\)\n$/);
  });
  it('a finished bisect re-run from its folder measures nothing again', () => {
    const again = runCli(
      [
        'bisect',
        '--package',
        'cs-fake-dep',
        '--range',
        '1.0.0..1.0.17',
        '--from',
        tarballs,
        '--entry',
        path.join(app, 'server.js'),
        '--cwd',
        app,
        '--out',
        out,
      ],
      { timeoutMs: 300_000 },
    );
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /culprit: cs-fake-dep@1\.0\.11 .*; 0 run\(s\) now/);
  });
});

/** A repository of 17 commits of a small server; commit `planted` (1-based) adds about 2 % more start-up work. */
function plantedRepository(dir: string, planted: number): string[] {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-C', dir, '-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };
  git('init', '-q');
  writeFileSync(
    path.join(dir, 'server.js'),
    "const http = require('node:http');\nconst { work } = require('./work.js');\n" +
      "http.createServer((req, res) => res.end(JSON.stringify({ work }))).listen(Number(process.env.PORT), '127.0.0.1');\n",
  );
  const commits: string[] = [];
  for (let i = 1; i <= 17; i++) {
    const extra = i >= planted ? "for (let i = 0; i < 4000; i++) a.push('x' + i);\n" : '';
    writeFileSync(path.join(dir, 'work.js'), `// revision ${i}\nconst a = [];\n${extra}exports.work = a.length;\n`);
    git('add', '-A');
    git('commit', '-q', '-m', `revision ${i}`);
    commits.push(git('rev-parse', '--short=12', 'HEAD'));
  }
  return commits;
}

describe('bisect --git over a repository made here, on its server entry', { skip: noValgrind, timeout: 1_800_000 }, () => {
  const dir = tempDir('coldstart-bisect-git-');
  const repo = path.join(dir, 'repo');
  const out = path.join(dir, 'bisect');
  let commits: string[];
  let result: CliResult;
  before(() => {
    commits = plantedRepository(repo, 12);
    const range = `${commits[0]}..${commits[16]}`;
    result = runCli(['bisect', '--git', range, '--entry', path.join(repo, 'server.js'), '--cwd', repo, '--out', out], {
      timeoutMs: 1_800_000,
    });
  });
  it('finds the commit that adds about 2 % start-up work, in about log2(n) counted runs', () => {
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`culprit: commit ${commits[11]} \\(last good ${commits[10]}\\)`));
    const state = JSON.parse(readFileSync(path.join(out, 'bisect.json'), 'utf8')) as { steps: string[] };
    assert.ok(state.steps.length <= stepsFor(17), `${state.steps.length} runs`);
    const report = readFileSync(path.join(out, 'bisect.md'), 'utf8');
    const change = /\| ready \| [\d,]+ \| [\d,]+ \| \+(\d+\.\d\d) % \|/.exec(report);
    assert.ok(change && Number(change[1]) > 1, `the ready phase grew by more than 1 %: ${change?.[0] ?? report}`);
  });
  it('leaves the repository as it was', () => {
    const status = spawnSync('git', ['-C', repo, 'status', '--porcelain'], { encoding: 'utf8' });
    assert.equal(status.stdout, '');
    assert.deepEqual(readdirSync(repo).sort(), ['.git', 'server.js', 'work.js']);
  });
});
