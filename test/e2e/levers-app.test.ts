/**
 * `measure --levers` on an app written here (express and zod from node_modules): every variant is
 * built and measured, or reported with its reason, and the minified bundle, which answers otherwise
 * (the app answers with a function's own name, which the minifier renames), is caught before it is
 * measured and not ranked (issue 29). And the same on a Lambda handler written here (zod and qs): every
 * variant built, verified and measured with its Lambda estimate, a startup snapshot reported with why
 * it cannot apply to a handler, the fastest and the cheapest marked, and how to ship the winner.
 */
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { cellKey } from '../../metrics/core/cell.ts';
import { readMeta } from '../../metrics/store/meta-file.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { ROOT, runCli, tempDir, type CliResult } from '../support/helpers.ts';

const APP = `const express = require('express');
const { z } = require('zod');
function greeting(name) { return 'hello ' + name; }
const Query = z.object({ name: z.string().default('world') });
const app = express();
// "by": the function's own name, which a minifier renames: the planted difference of bundle-min
app.get('/', (req, res) => res.json({ text: greeting(Query.parse(req.query).name), by: greeting.name }));
app.listen(Number(process.env.PORT), '127.0.0.1');
`;

describe('measure --levers on an express and zod app', () => {
  let dir: string;
  let run: CliResult;
  let samples: SampleRecord[];

  before(() => {
    const apps = tempDir('coldstart-levers-');
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(apps, 'node_modules'), 'dir');
    writeFileSync(path.join(apps, 'app.js'), APP);
    dir = path.join(tempDir(), 'run');
    run = runCli(
      [
        'measure',
        '--entry',
        path.join(apps, 'app.js'),
        '--expect-body',
        'hello world',
        '--levers',
        '--samples',
        '2',
        '--warmup',
        '0',
      ].concat(['--out', dir]),
      { timeoutMs: 600_000 },
    );
    samples = readSamples(path.join(dir, 'samples.jsonl'));
  });

  it('exits 3: the differing variant failed its samples, every other one answered', () => {
    assert.equal(run.status, 3, run.stderr);
  });

  it('builds and measures plain and bundle, which answer the same', () => {
    for (const build of ['plain', 'bundle']) {
      const mine = samples.filter((s) => s.cell.build === build && s.cell.compileCache === 'off' && s.cell.runtime === 'node');
      assert.equal(mine.length, 2, build);
      assert.ok(
        mine.every((s) => s.ok),
        `${build}: ${mine.map((s) => s.error).join('; ')}`,
      );
    }
  });

  it('catches the minified bundle, which answers with another name, and says how it differs', () => {
    // --levers adds each Node line installed in .runtimes/ (an earlier test may have installed node22 or node24)
    const min = samples.filter((s) => s.cell.build === 'bundle-min' && s.cell.compileCache === 'off');
    const runtimes = new Set(min.map((s) => s.cell.runtime));
    assert.ok(runtimes.has('node'));
    assert.equal(min.length, 2 * runtimes.size);
    for (const s of min) {
      assert.equal(s.ok, false);
      assert.match(s.error ?? '', /answers differently from the plain build: body .*"by":"(?!greeting)/);
    }
  });

  it('reports a compile cache the runtime lacks with its reason, or measures it', () => {
    for (const s of samples.filter((r) => r.cell.compileCache === 'warm')) {
      if (s.unsupported !== undefined) assert.match(s.unsupported, /compile cache|22\.1/);
      else assert.equal(s.ok, s.cell.build !== 'bundle-min', s.error);
    }
  });

  it('levers.md compares the builds, the differing one failed and not ranked', () => {
    const levers = readFileSync(path.join(dir, 'levers.md'), 'utf8');
    assert.match(levers, /## build: plain vs bundle vs bundle-min vs snapshot/);
    assert.match(levers, /\| failed \|/);
    assert.doesNotMatch(levers, /`build=bundle-min`/);
  });

  it('the answer table: every variant, the fastest and the cheapest marked once, the differing one not ranked, what each ships', () => {
    const levers = readFileSync(path.join(dir, 'levers.md'), 'utf8');
    assert.match(levers, /^## The answer: every variant of the levers$/m);
    const table = levers.split('### app (your server)\n\n')[1]!.split('\n\n')[0]!.split('\n');
    const header = table[0]!.split(' | ');
    assert.ok(header.includes('package') && header.includes('Pareto') && header.at(-1)!.startsWith('what to change'), table[0]);
    const rows = table.slice(2);
    assert.equal(rows.filter((r) => r.includes('**fastest**')).length, 1, 'one fastest');
    assert.equal(rows.filter((r) => r.includes('**cheapest**')).length, 1, 'one cheapest');
    assert.match(
      rows.find((r) => r.includes('**fastest**'))!,
      /on the front/,
    );
    // the variant is the first column: its values joined by ' · ' (the build, the cache, the runtime when it varies)
    const parts = (row: string) => row.slice(2).split(' | ')[0]!.split(' · ');
    const min = rows.filter((r) => parts(r).includes('bundle-min'));
    assert.ok(min.length > 0);
    for (const row of min) assert.match(row, /not ranked: (answers differently from the plain build|unsupported)/);
    // express cannot be snapshotted on any Node line (Node 20: its depd; 22, 24: node:http's parser binding): node's reason
    const snapshot = rows.filter((r) => parts(r).includes('snapshot'));
    assert.ok(snapshot.length > 0);
    // a lever that cannot apply, not a failure: unsupported with node's reason (or, beside a compile cache, why not)
    for (const row of snapshot)
      assert.match(
        row,
        /not ranked: unsupported: (cannot build a startup snapshot: (\w*Error|V8)|a snapshot holds|NODE_COMPILE_CACHE needs)/,
      );
    // what to change names the build command and the flag
    const bundled = rows.find((r) => parts(r).includes('bundle') && !r.includes('not ranked'))!;
    assert.match(bundled, /`esbuild app\.js --bundle .*`--build bundle`/);
    assert.match(levers, /- Fastest: \*\*[^*]+\*\*, [\d.]+ ms at the median\./);
    assert.ok(readFileSync(path.join(dir, 'chart-levers.svg'), 'utf8').startsWith('<svg'));
  });

  it('meta.json records what each variant ships: the app with its packages is larger than its bundle', () => {
    const shipped = readMeta(dir)!.shipped!;
    const plain = samples.find((s) => s.cell.build === 'plain' && s.cell.compileCache === 'off' && s.cell.runtime === 'node')!;
    const bundle = samples.find((s) => s.cell.build === 'bundle' && s.cell.compileCache === 'off' && s.cell.runtime === 'node')!;
    const entry = (cell: SampleRecord['cell']) => shipped.code[cellKey(cell)];
    assert.match(entry(plain.cell)!.what, /the app's 1 file and the \d+ package folders it loads/);
    assert.ok(entry(bundle.cell)!.bytes! > 0);
    assert.ok(
      entry(plain.cell)!.bytes! > entry(bundle.cell)!.bytes!,
      `plain ${entry(plain.cell)!.bytes} bytes, bundle ${entry(bundle.cell)!.bytes}`,
    );
    const warm = samples.filter((s) => s.cell.compileCache === 'warm' && s.ok);
    for (const s of warm) assert.ok((shipped.compileCache?.[cellKey(s.cell)] ?? 0) > 0, `a warm cache's bytes: ${cellKey(s.cell)}`);
  });
});

const EXPRESS = `const express = require('express');
const app = express();
app.get('/', (req, res) => res.json({ ok: true }));
app.listen(Number(process.env.PORT), '127.0.0.1');
`;

describe('measure --levers on an express app that answers in every build: the snapshot does not apply, exit 0', () => {
  let dir: string;
  let run: CliResult;
  let samples: SampleRecord[];

  before(() => {
    const apps = tempDir('coldstart-levers-express-');
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(apps, 'node_modules'), 'dir');
    writeFileSync(path.join(apps, 'app.js'), EXPRESS);
    dir = path.join(tempDir(), 'run');
    const args = ['measure', '--entry', path.join(apps, 'app.js'), '--expect-body', '"ok":true', '--levers'];
    run = runCli([...args, '--samples', '1', '--warmup', '0', '--out', dir], { timeoutMs: 600_000 });
    samples = readSamples(path.join(dir, 'samples.jsonl'));
  });

  const snapshots = () => samples.filter((s) => s.cell.build === 'snapshot');

  it('exits 0: every variant that applies answered, and the snapshot is unsupported, not failed', () => {
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /sample\(s\) failed/);
    const applicable = samples.filter((s) => s.unsupported === undefined);
    assert.ok(applicable.some((s) => s.cell.build === 'plain') && applicable.some((s) => s.cell.build === 'bundle'));
    for (const s of applicable) assert.equal(s.ok, true, `${cellKey(s.cell)}: ${s.error}`);
    assert.ok(snapshots().length > 0);
    for (const s of snapshots()) {
      assert.equal(s.error, undefined);
      assert.ok(s.unsupported, cellKey(s.cell));
    }
    // without a compile cache the snapshot is tried, and node's reason is kept
    const tried = snapshots().filter((s) => s.cell.compileCache === 'off');
    assert.ok(tried.length > 0);
    for (const s of tried) assert.match(s.unsupported ?? '', /^cannot build a startup snapshot: (\w*Error|V8)/);
  });

  it("names the snapshot's reason on the terminal and in levers.md", () => {
    // node:http's parser binding (Node 22, 24) or express's depd (Node 20): the reason node gave, and that the run goes on
    assert.match(
      run.stderr,
      /app \(node\): cannot build a startup snapshot: (\w*Error|V8)[^\n]* \(the snapshot variant is unsupported for this app, not a/,
    );
    const levers = readFileSync(path.join(dir, 'levers.md'), 'utf8');
    const rows = levers.split('### app (your server)\n\n')[1]!.split('\n\n')[0]!.split('\n').slice(2);
    const snapshot = rows.filter((r) => r.slice(2).split(' | ')[0]!.split(' · ').includes('snapshot'));
    assert.ok(snapshot.length > 0, rows.join('\n'));
    assert.ok(
      snapshot.some((r) => /not ranked: unsupported: cannot build a startup snapshot: (\w*Error|V8)/.test(r)),
      snapshot.join('\n'),
    );
    assert.match(
      readFileSync(path.join(dir, 'summary.md'), 'utf8'),
      /## Unsupported\n[\s\S]*snapshot[^\n]*cannot build a startup snapshot/,
    );
  });
});

const HANDLER = `const { z } = require('zod');
const qs = require('qs');
const Event = z.object({ rawQueryString: z.string() });
exports.handler = async (event) => {
  const query = qs.parse(Event.parse(event).rawQueryString);
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hello: query.name ?? 'world' }) };
};
`;

describe('measure --levers on a Lambda handler with zod and qs', () => {
  let dir: string;
  let run: CliResult;
  let samples: SampleRecord[];
  let table: string[];
  let levers: string;

  before(() => {
    const apps = tempDir('coldstart-levers-handler-');
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(apps, 'node_modules'), 'dir');
    writeFileSync(path.join(apps, 'handler.js'), HANDLER);
    writeFileSync(path.join(apps, 'event.json'), JSON.stringify({ rawQueryString: 'name=lambda' }));
    dir = path.join(tempDir(), 'run');
    const args = ['measure', '--handler', path.join(apps, 'handler.handler'), '--event', path.join(apps, 'event.json'), '--levers'];
    // the handler's own start loop (probe): what is compared is the variants, not the client
    args.push('--lambda-bootstrap', 'probe', '--samples', '2', '--warmup', '0', '--out', dir);
    run = runCli(args, { timeoutMs: 600_000 });
    samples = readSamples(path.join(dir, 'samples.jsonl'));
    levers = readFileSync(path.join(dir, 'levers.md'), 'utf8');
    const section = levers.split(/### handler \(your handler[^)]*\)\n\n/)[1];
    assert.ok(section, levers);
    table = section.split('\n\n')[0]!.split('\n');
  });

  it('every build that applies answers like the plain one and is measured', () => {
    assert.ok([0, 3].includes(run.status ?? -1), run.stderr);
    for (const build of ['plain', 'bundle', 'bundle-min']) {
      const mine = samples.filter((s) => s.cell.build === build && s.cell.compileCache === 'off');
      assert.ok(mine.length > 0 && mine.every((s) => s.ok), `${build}: ${JSON.stringify(mine.map((s) => [s.cell, s.error]))}`);
    }
  });

  it('the answer: Init measured and estimated, the fastest and the cheapest marked, the snapshot not ranked with why', () => {
    const header = table[0]!.split(' | ');
    assert.ok(header.some((h) => h.startsWith('Lambda Init')) && header.includes('Pareto'), table[0]);
    const rows = table.slice(2);
    assert.equal(rows.filter((r) => r.includes('**fastest**')).length, 1, 'one fastest');
    assert.equal(rows.filter((r) => r.includes('**cheapest**')).length, 1, 'one cheapest');
    // a ranked row shows Init measured here → the estimate on Lambda, then its interval or why it has none
    assert.ok(
      rows.some((r) => /\| [\d.]+ → [\d.]+(?: \([^|]*\)| beyond evidence: [^|]*)? \|/.test(r)),
      rows.join('\n'),
    );
    const snapshot = rows.filter((r) => r.slice(2).split(' | ')[0]!.split(' · ').includes('snapshot'));
    assert.ok(snapshot.length > 0, rows.join('\n'));
    for (const row of snapshot) assert.match(row, /not ranked: unsupported: /);
  });

  it('says how to ship the fastest: lambda:package packages generated cells only, so it names the bundle to zip', () => {
    assert.match(levers, /`lambda:package` packages generated cells only, not your handler: zip the bundle/);
  });
});
