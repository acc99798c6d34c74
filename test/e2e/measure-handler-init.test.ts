/**
 * `measure --handler FILE.export --init-export NAME` (issue 41): the init lever on a user's handler.
 * The handlers are written here, outside the project: their init export does a fixed amount of work
 * and sets a module-level flag, and their answer says whether the flag was set before the event (the
 * handler reads it before it calls init itself). The eager cell's wrapper awaits init in INIT, so it
 * answers "before"; the handler as written (lazy) "during the first event"; a CommonJS and an ES
 * module handler, under AWS's Runtime Interface Client and coldstart's own bootstrap. A module without
 * the export fails its eager cell with one line while its lazy cell runs; nothing is left in the
 * user's folder or in a scratch folder. Counted (valgrind, skipped with the reason without it): the
 * eager cell's INIT counts the init work that the lazy cell's first event counts instead. And the cells
 * the planner makes: the wrapper in the run's scratch folder, its bundle an ES module, no snapshot, a
 * handler without the option lazy only; `--levers` (the fake sampler) has an init table with the
 * option and prints the note naming it without. No timing is asserted.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse as parseCsv } from 'csv-parse/sync';
import type { AppSpec } from '../../metrics/core/app.ts';
import { cellKey, cellLabel } from '../../metrics/core/cell.ts';
import { runSpec } from '../../metrics/core/run-spec.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { prepareAppCells } from '../../metrics/plan/apps.ts';
import { findCountTools } from '../../metrics/measure/counting.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { runCli, tempDir } from '../support/helpers.ts';
import { ricSkip } from '../support/lambda-helpers.ts';

const skip = ricSkip({ strace: true });

/** The init work: a loop of INIT_WORK iterations (an --env), done once however often init is called. */
const WORK = 'const loops = Number(process.env.INIT_WORK || 1000);\nlet sum = 0;\n';
const ANSWER =
  "({ statusCode: 200, headers: { 'content-type': 'application/json' }, " +
  "body: JSON.stringify({ init: before ? 'before' : 'during the first event', sum }) })";

const HANDLERS = {
  'cjs.js':
    `${WORK}let ready;\n` +
    'exports.init = () => (ready ??= new Promise((resolve) => { for (let i = 0; i < loops; i++) sum += i % 7; resolve(); }));\n' +
    `exports.handler = async () => {\n  const before = ready !== undefined;\n  await exports.init();\n  return ${ANSWER};\n};\n`,
  'esm.mjs':
    `${WORK}let ready;\n` +
    'export const init = () => (ready ??= Promise.resolve().then(() => { for (let i = 0; i < loops; i++) sum += i % 7; }));\n' +
    `export const handler = async () => {\n  const before = ready !== undefined;\n  await init();\n  return ${ANSWER};\n};\n`,
  // no init export: its eager cell fails, its lazy cell runs
  'noinit.js': `${WORK}exports.setup = () => {};\nexports.handler = async () => { const before = false; return ${ANSWER}; };\n`,
  'event.json': JSON.stringify({ version: '2.0', rawPath: '/', requestContext: { http: { method: 'GET' } } }),
};

function handlerFolder(): string {
  const dir = tempDir('coldstart-init-handlers-');
  for (const [name, text] of Object.entries(HANDLERS)) writeFileSync(path.join(dir, name), text);
  return dir;
}

/** Scratch folders of runs in the temp folder that still hold an eager wrapper of these apps. */
function wrappersLeft(names: readonly string[]): string[] {
  return readdirSync(os.tmpdir())
    .filter((name) => name.startsWith('coldstart-run-'))
    .filter((name) => names.some((app) => existsSync(path.join(os.tmpdir(), name, 'eager', app))));
}

const samplesOf = (dir: string): SampleRecord[] => readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample');
const label = (s: SampleRecord) => `${s.cell.framework} ${s.cell.init} ${s.cell.bootstrap}`;

describe("measure --init-export: a user's handler in both init modes", { skip: skip ?? false }, () => {
  let apps: string;
  let before0: string[];
  before(() => {
    apps = handlerFolder();
    before0 = readdirSync(apps).sort();
  });
  const common = (dir: string) => ['--event', path.join(apps, 'event.json'), '--samples', '1', '--warmup', '0', '--out', dir];

  it('the eager cells answer that init ran before the event, under the client and the probe, CommonJS and ES module', () => {
    const dir = path.join(tempDir(), 'eager');
    const run = runCli(
      [
        'measure',
        ...['--handler', path.join(apps, 'cjs.handler'), '--handler', path.join(apps, 'esm.handler'), '--init-export', 'init'],
        ...['--init', 'eager', '--lambda-bootstrap', 'ric,probe', '--no-lambda-reference', '--expect-body', '"init":"before"'],
        ...common(dir),
      ],
      { timeoutMs: 300_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const samples = samplesOf(dir);
    assert.deepEqual(samples.map(label).sort(), ['cjs eager probe', 'cjs eager ric', 'esm eager probe', 'esm eager ric']);
    for (const s of samples) assert.equal(s.ok, true, `${label(s)}: ${s.error ?? ''}`);
    // INIT's split under both starts, CommonJS and ES module (its load hook on Node 22+): the init call is running
    for (const s of samples) {
      const split = s.lambda!;
      assert.ok(split.initRunningMs !== undefined && split.initRunningMs > 0, `${label(s)}: ${JSON.stringify(split)}`);
      assert.ok(split.initLoadingMs !== undefined && split.initModules !== undefined && split.initModules >= 1, label(s));
    }
    // every output shows the mode: the label, summary.csv's init column, the Apps line, report.html
    const rows = parseCsv<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    assert.deepEqual([...new Set(rows.map((r) => r.init))], ['eager']);
    assert.ok(
      rows.some((r) => r.file === 'lambda/eager/app:cjs [runtime=nodejs24.x, fileCache=cold]'),
      rows.map((r) => r.file).join('\n'),
    );
    const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(summary, /cjs \(handler `cjs\.handler` in `[^`]+`, init export `init`\)/);
    assert.match(summary, /\| lambda\/eager\/app:esm \[runtime=nodejs24\.x, bootstrap=ric, fileCache=cold\] \|/);
    assert.ok(readFileSync(path.join(dir, 'report.html'), 'utf8').includes('lambda/eager/app:cjs'));
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { spec: { source: { apps: { initExport?: string }[] } } };
    assert.deepEqual(
      meta.spec.source.apps.map((a) => a.initExport),
      ['init', 'init'],
    );
  });

  it('the lazy cells initialise during the first event; without the export the eager cell fails in one line, the lazy one runs', () => {
    const dir = path.join(tempDir(), 'both');
    const handlers = ['cjs.handler', 'esm.handler', 'noinit.handler'].flatMap((h) => ['--handler', path.join(apps, h)]);
    const run = runCli(
      [
        'measure',
        ...handlers,
        ...['--init-export', 'init', '--lambda-bootstrap', 'probe', '--no-lambda-reference'],
        ...['--expect-body', '"init":"during the first event"', ...common(dir)],
      ],
      { timeoutMs: 300_000 },
    );
    assert.equal(run.status, 3, run.stderr);
    const outcome = new Map(samplesOf(dir).map((s) => [`${s.cell.framework} ${s.cell.init}`, s.ok ? 'ok' : (s.error ?? '')]));
    // the default --init is both modes; the lazy cells are the handlers as written
    assert.equal(outcome.get('cjs lazy'), 'ok');
    assert.equal(outcome.get('esm lazy'), 'ok');
    assert.equal(outcome.get('noinit lazy'), 'ok');
    // the eager ones answered "before", which the pattern refuses: the two modes answer differently
    assert.match(outcome.get('cjs eager')!, /"init":"before"/);
    assert.match(outcome.get('esm eager')!, /"init":"before"/);
    const missing = outcome.get('noinit eager')!;
    assert.match(
      missing,
      /failed during INIT \(Runtime\.InitError: Error: the handler file exports no "init" \(it exports: setup, handler\)\)/,
    );
    assert.equal(missing.split('\n').length, 1);
    assert.doesNotMatch(missing, /\s+at /, 'no stack trace');
    // nothing left: the user's folder as it was, no scratch folder with a wrapper
    assert.deepEqual(readdirSync(apps).sort(), before0);
    assert.deepEqual(wrappersLeft(['cjs', 'esm', 'noinit']), []);
  });
});

describe('measure --levers on a handler', () => {
  it('tries both init modes with --init-export, and without it prints the note naming the option', () => {
    const apps = handlerFolder();
    const args = (out: string, extra: string[]) => [
      'measure',
      ...['--handler', path.join(apps, 'cjs.handler'), '--event', path.join(apps, 'event.json'), '--levers', ...extra],
      // the fake sampler: the cells are planned for real (bundles built), nothing is started
      ...['--debug-mode', '--lambda-bootstrap', 'probe', '--lambda-runtime', 'node', '--no-lambda-reference', '--out', out],
    ];
    const withExport = path.join(tempDir(), 'with');
    const a = runCli(args(withExport, ['--init-export', 'init']), { timeoutMs: 300_000 });
    assert.equal(a.status, 0, a.stderr);
    assert.doesNotMatch(a.stderr, /init mode is not tried/);
    assert.match(readFileSync(path.join(withExport, 'levers.md'), 'utf8'), /^## init: eager vs lazy \(ratio to eager\)$/m);
    const without = path.join(tempDir(), 'without');
    const b = runCli(args(without, []), { timeoutMs: 300_000 });
    assert.equal(b.status, 0, b.stderr);
    assert.match(b.stderr, /coldstart: --levers: the init mode is not tried on a handler without --init-export/);
    assert.doesNotMatch(readFileSync(path.join(without, 'levers.md'), 'utf8'), /^## init:/m);
  });
});

const countSkip = findCountTools() ? (skip ?? false) : 'valgrind (and vgdb) not on PATH: apt-get install valgrind; counted tests skipped';

describe('measure --init-export, counted', { skip: countSkip }, () => {
  it("the eager cell's INIT counts the init work that the lazy cell's first event counts", () => {
    const apps = handlerFolder();
    const dir = path.join(tempDir(), 'counted');
    const run = runCli(
      [
        'measure',
        ...['--handler', path.join(apps, 'cjs.handler'), '--init-export', 'init', '--env', 'INIT_WORK=5000000'],
        ...['--measure', 'instructions', '--lambda-bootstrap', 'probe', '--file-cache', 'warm', '--no-lambda-reference'],
        ...['--event', path.join(apps, 'event.json'), '--out', dir],
      ],
      { timeoutMs: 600_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const counts = (init: string) => samplesOf(dir).find((s) => s.cell.init === init)!.instructions!;
    const eager = counts('eager');
    const lazy = counts('lazy');
    // INIT: exec → the first GET next; the first event: GET next → the answer written
    const initMore = eager.init! - lazy.init!;
    const firstEventLess = lazy.firstResponse! - lazy.init! - (eager.firstResponse! - eager.init!);
    assert.ok(firstEventLess > 100e6, `the init work moved out of the first event: ${firstEventLess}`);
    assert.ok(Math.abs(initMore - firstEventLess) < 0.1 * firstEventLess, `INIT +${initMore}, first event −${firstEventLess}`);
    // in the eager cell the work is between the module's load (imported) and its export (startup): running
    assert.ok(eager.startup! - eager.imported! > 0.9 * firstEventLess, JSON.stringify(eager));
  });
});

describe('the cells of a handler with --init-export', () => {
  it('an eager cell runs the wrapper from the scratch folder, a lazy one the handler; one without the option is lazy only', async () => {
    const dir = tempDir('coldstart-eager-apps-');
    const scratch = tempDir('coldstart-eager-scratch-');
    writeFileSync(path.join(dir, 'a.js'), HANDLERS['cjs.js']);
    writeFileSync(path.join(dir, 'b.js'), HANDLERS['cjs.js']);
    const handler = (name: string, initExport?: string): AppSpec => ({
      name,
      kind: 'lambda',
      file: path.join(dir, `${name}.js`),
      exportName: 'handler',
      taskRoot: dir,
      handler: `${name}.handler`,
      args: [],
      cwd: dir,
      event: {},
      expect: { status: 200 },
      port: 'auto',
      ...(initExport ? { initExport } : {}),
    });
    const spec = runSpec({
      cells: {
        node: process.execPath,
        memories: [],
        measures: ['time'],
        lambdaRuntimes: ['node'],
        builds: ['plain', 'bundle', 'snapshot'],
        compileCaches: ['off'],
        bootstraps: ['probe'],
        fileCaches: ['warm'],
        lambdaReference: false,
      },
    });
    const source = { apps: [handler('a', 'init'), handler('b')] };
    const prepared = await prepareAppCells(source, spec.cells, process.env, () => undefined, { scratch });
    const labels = prepared.cells.map((c) => cellLabel(c.cell)).sort();
    assert.deepEqual(labels, [
      'lambda/app:a',
      'lambda/app:a [build=bundle]',
      'lambda/app:a [build=snapshot]',
      'lambda/app:b',
      'lambda/app:b [build=bundle]',
      'lambda/app:b [build=snapshot]',
      'lambda/eager/app:a',
      'lambda/eager/app:a [build=bundle]',
      'lambda/eager/app:a [build=snapshot]',
    ]);
    const find = (init: string, build: string) =>
      prepared.cells.find((c) => c.cell.framework === 'a' && c.cell.init === init && c.cell.build === build)!;
    const eager = find('eager', 'plain');
    assert.match(cellKey(eager.cell), /\|init=eager$/);
    assert.doesNotMatch(cellKey(find('lazy', 'plain').cell), /init=/, 'the lazy cell keeps the key a handler always had');
    assert.equal(eager.launch!.file, path.join(scratch, 'eager', 'a', 'index.mjs'), 'the wrapper is its own bootstrap');
    assert.equal(eager.launch!.cwd, dir, 'the handler runs in its own folder');
    assert.equal(eager.app!.handler, 'index.handler');
    assert.equal(eager.app!.eagerOf, path.join(dir, 'a.js'));
    assert.match(find('eager', 'bundle').launch!.file, /generated\/bundle\/node\d+\/app\/eager\/a\.mjs$/);
    assert.equal(find('eager', 'snapshot').blocked?.kind, 'unsupported');
    assert.match(find('eager', 'snapshot').blocked!.reason, /awaiting the init export at its top level/);
  });
});
