/**
 * The user's own Lambda handlers under the managed runtime's start, as `measure` runs them by default:
 * AWS's Runtime Interface Client on the nodejs24.x line with a cold file cache and the hello-world
 * reference beside them. CommonJS and ES module handlers, one in a subfolder with a package.json
 * `"type": "module"`, a nested export, each importing a package written here next to them; they answer,
 * the calibration's estimate is there for them, and `--attribute` profiles them under the client. Bad
 * handlers fail their sample with the client's own reason on one line. Skipped with the reason when
 * the client cannot be built here. No timing is asserted.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse as parseCsv } from 'csv-parse/sync';
import { readAttribution } from '../../metrics/store/attribution-file.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { runCli, tempDir, type CliResult } from '../support/helpers.ts';
import { ricSkip } from '../support/lambda-helpers.ts';

const skip = ricSkip({ strace: true });

/** A folder of handlers with their own node_modules (a package written here), as a user's function is zipped. */
function handlerFolder(files: Record<string, string>): string {
  const dir = tempDir('coldstart-handlers-');
  const greet = path.join(dir, 'node_modules', 'greet');
  mkdirSync(greet, { recursive: true });
  writeFileSync(path.join(greet, 'package.json'), JSON.stringify({ name: 'greet', version: '1.0.0', main: 'index.js' }));
  writeFileSync(path.join(greet, 'index.js'), "module.exports = (name) => 'hello ' + name;\n");
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const answer =
  "({ statusCode: 200, headers: { 'content-type': 'application/json' }, " +
  'body: JSON.stringify({ greeting: greet(JSON.parse(event.body).name) }) })';

const HANDLERS = {
  'cjs.js': `const greet = require('greet');\nexports.handler = async (event) => ${answer};\n`,
  'esm.mjs': `import greet from 'greet';\nexport const handler = async (event) => ${answer};\n`,
  // a .js ES module: its folder's package.json says so; it resolves greet from the folder above
  'sub/package.json': '{ "type": "module" }',
  'sub/index.js': `import greet from 'greet';\nexport async function handler(event) {\n  return ${answer};\n}\n`,
  // Lambda's Handler `nested.routes.get`: the export routes, its property get
  'nested.mjs': `import greet from 'greet';\nexport const routes = { get: async (event) => ${answer} };\n`,
  'event.json': JSON.stringify({
    version: '2.0',
    rawPath: '/',
    body: '{"name": "coldstart"}',
    requestContext: { http: { method: 'POST' } },
  }),
};

describe("measure: the user's handlers under the managed runtime's start", { skip: skip ?? false }, () => {
  let apps: string;
  let dir: string;
  let run: CliResult;
  let samples: SampleRecord[];

  before(() => {
    apps = handlerFolder(HANDLERS);
    dir = path.join(tempDir(), 'run');
    const handlers = ['cjs.handler', 'esm.handler', 'sub/index.handler', 'nested.routes.get'];
    run = runCli(
      [
        'measure',
        ...handlers.flatMap((h) => ['--handler', path.join(apps, h)]),
        ...['--name', 'cjs,esm,sub,nested', '--event', path.join(apps, 'event.json'), '--expect-body', '"greeting":"hello coldstart"'],
        ...['--cwd', apps, '--samples', '1', '--warmup', '0', '--attribute', '--out', dir],
      ],
      { timeoutMs: 600_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    samples = readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample');
  });

  it('starts every handler with the client on nodejs24.x from a cold file cache, and each answers its event', () => {
    for (const name of ['cjs', 'esm', 'sub', 'nested']) {
      const sample = samples.find((s) => s.cell.framework === name);
      assert.ok(sample, `${name} has a sample`);
      assert.equal(sample.ok, true, `${name}: ${sample.error ?? ''}`);
      assert.deepEqual(
        [sample.cell.source, sample.cell.target, sample.cell.bootstrap, sample.cell.runtime, sample.cell.fileCache],
        ['app', 'lambda', 'ric', 'nodejs24.x', 'cold'],
      );
      // the client prints none of the probe's marks: INIT ends at its first next
      assert.equal(sample.marks!.imported, undefined);
      assert.ok(sample.marks!.init! > 0 && sample.marks!.firstResponse >= sample.marks!.init!);
      assert.ok(sample.lambda && sample.lambda.memorySizeMB === 1024);
    }
  });

  it("records the client's start and each handler's task root and Handler setting", () => {
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as {
      spec: { source: { apps: { name: string; taskRoot: string; handler: string; cwd: string }[] } };
      lambda: {
        client: string;
        starts: Record<string, { flags?: string[]; env: { AWS_EXECUTION_ENV: string; NODE_PATH: string }; eventFormat: string }>;
      };
      fileCache: { filesPerCell: Record<string, number | string> };
    };
    assert.deepEqual(
      meta.spec.source.apps.map((a) => [a.name, a.handler, a.taskRoot, a.cwd]),
      [
        // the --cwd folder is recorded as <cwd>: meta.json names no folder of this machine
        ['cjs', 'cjs.handler', '<cwd>', '<cwd>'],
        ['esm', 'esm.handler', '<cwd>', '<cwd>'],
        ['sub', 'sub/index.handler', '<cwd>', '<cwd>'],
        ['nested', 'nested.routes.get', '<cwd>', '<cwd>'],
      ],
    );
    assert.match(meta.lambda.client, /^aws-lambda-ric@\d/);
    const start = meta.lambda.starts['lambda/app:sub [runtime=nodejs24.x, bootstrap=ric, fileCache=cold]'];
    assert.ok(start, Object.keys(meta.lambda.starts).join('; '));
    assert.ok(start.flags?.includes('--max-old-space-size=922'), start.flags?.join(' '));
    assert.equal(start.env.AWS_EXECUTION_ENV, 'AWS_Lambda_nodejs24.x');
    assert.ok(start.env.NODE_PATH.split(':').includes('<cwd>'), start.env.NODE_PATH);
    assert.equal(start.eventFormat, 'the --event file');
    for (const [key, count] of Object.entries(meta.fileCache.filesPerCell))
      assert.ok(typeof count === 'number' && count > 0, `${key}: ${count}`);
  });

  it('measures the hello-world reference beside them, so their estimate is there', () => {
    const reference = samples.find((s) => s.cell.framework === 'reference');
    assert.ok(reference?.ok, reference?.error);
    assert.equal(reference.cell.source, 'generated');
    assert.equal(reference.cell.bootstrap, 'ric');
    const rows = parseCsv<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    for (const row of rows.filter((r) => r.source === 'app')) {
      // the estimate is there (its value is a timing: under load it can even be below zero)
      assert.ok(row.estimate_init_duration_ms !== '' && Number.isFinite(Number(row.estimate_init_duration_ms)), row.file);
      assert.match(row.calibration_source ?? '', /lambda-perf/);
    }
    assert.match(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /Lambda: measured here, what Lambda adds, the estimate/);
  });

  it("profiles the handlers and the reference under the client: the client's own package, the selves summing to the profile", () => {
    const file = readAttribution(dir);
    assert.ok(file);
    for (const entry of file.cells) {
      assert.equal(entry.ok, true, `${entry.cell.framework}: ${entry.reason ?? ''}`);
      const a = entry.attribution!;
      const names = a.packages.map((p) => p.name);
      assert.ok(names.includes('aws-lambda-ric'), `${entry.cell.framework}: ${names.join(',')}`);
      const self = a.packages.reduce((sum, p) => sum + p.selfMs, 0);
      assert.ok(Math.abs(self - a.profiledMs) < 1e-6 * Math.max(1, a.profiledMs), `${self} vs ${a.profiledMs}`);
      // INIT ends at the first next, which the profile contains: its part is cut out, the selves adding up to it
      assert.ok(a.init && a.init.profiledMs <= a.profiledMs + 1e-6, `${entry.cell.framework}: ${JSON.stringify(a.init)}`);
      const initSelf = a.packages.reduce((sum, p) => sum + (p.initSelfMs ?? 0), 0);
      assert.ok(Math.abs(initSelf - a.init.profiledMs) < 1e-6 * Math.max(1, a.init.profiledMs), `${initSelf} vs ${a.init.profiledMs}`);
    }
    assert.match(
      readFileSync(path.join(dir, 'attribution.md'), 'utf8'),
      /\| package \| self \(ms\) \| self \| self in INIT \(ms\) \| of INIT \|/,
    );
  });
});

describe("measure: the user's handlers under the probe on a Lambda line", { skip: skip ?? false }, () => {
  it('loads the same Handler settings as the client does (subfolder ES module, nested export)', () => {
    const apps = handlerFolder(HANDLERS);
    const dir = path.join(tempDir(), 'run');
    const run = runCli(
      [
        'measure',
        ...['--handler', path.join(apps, 'sub/index.handler'), '--handler', path.join(apps, 'nested.routes.get')],
        ...['--name', 'sub,nested', '--event', path.join(apps, 'event.json'), '--expect-body', '"greeting":"hello coldstart"'],
        ...['--lambda-bootstrap', 'probe', '--lambda-runtime', 'nodejs22.x', '--file-cache', 'warm', '--lambda-reference', 'off'],
        ...['--cwd', apps, '--samples', '1', '--warmup', '0', '--out', dir],
      ],
      { timeoutMs: 300_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const samples = readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample');
    assert.deepEqual(samples.map((s) => [s.cell.framework, s.cell.bootstrap, s.cell.runtime, s.ok]).sort(), [
      ['nested', 'probe', 'nodejs22.x', true],
      ['sub', 'probe', 'nodejs22.x', true],
    ]);
    // the probe's own marks: the module loaded, then INIT's end
    for (const s of samples) assert.ok(s.marks!.imported! > 0 && s.marks!.init! >= s.marks!.imported!);
  });
});

describe('measure: bad handlers under the client', { skip: skip ?? false }, () => {
  it("fails each sample with the client's reason on one line", () => {
    const apps = handlerFolder({
      'h.js': 'exports.handler = async () => ({ ok: true });\nexports.notfn = 42;\n',
      'missing.js': "require('nowhere-to-be-found');\nexports.handler = async () => ({});\n",
      'throws.js': "throw new TypeError('no configuration');\n",
      'callback.js': 'exports.handler = (event, context, callback) => callback(null, {});\n',
      'event.json': '{"anything": [1, 2]}',
    });
    const dir = path.join(tempDir(), 'run');
    const handlers = ['h.nope', 'h.notfn', 'missing.handler', 'throws.handler', 'callback.handler'];
    const run = runCli(
      [
        'measure',
        ...handlers.flatMap((h) => ['--handler', path.join(apps, h)]),
        ...['--name', 'nope,notfn,missing,throws,callback', '--event', path.join(apps, 'event.json')],
        ...['--lambda-reference', 'off', '--samples', '1', '--warmup', '0', '--timeout', '20', '--out', dir],
      ],
      { timeoutMs: 300_000 },
    );
    assert.equal(run.status, 3, run.stderr);
    const records = readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample');
    const reasons = new Map(records.map((s) => [s.cell.framework, s.ok ? 'ok' : (s.error ?? '')]));
    assert.match(reasons.get('nope')!, /failed during INIT \(Runtime\.HandlerNotFound: h\.nope is undefined or not exported\)/);
    assert.match(reasons.get('notfn')!, /failed during INIT \(Runtime\.HandlerNotFound: h\.notfn is not a function\)/);
    assert.match(
      reasons.get('missing')!,
      /failed during INIT \(Runtime\.ImportModuleError: Error: Cannot find module 'nowhere-to-be-found'\)/,
    );
    assert.match(reasons.get('throws')!, /failed during INIT \(TypeError: no configuration\)/);
    assert.match(
      reasons.get('callback')!,
      /failed during INIT \(Runtime\.CallbackHandlerDeprecated: ERROR: AWS Lambda has removed support for callback/,
    );
    for (const [name, reason] of reasons) {
      assert.doesNotMatch(reason, /\n/, name);
      assert.doesNotMatch(reason, /Runtime\.\w+: Runtime\.\w+/, `${name}: the type once`);
    }
  });
});
