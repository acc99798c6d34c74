/**
 * lambda:run's inputs end to end against the local Lambda API (test/support/fake-lambda.ts): the
 * user's own handler (--handler, as measure takes it; compared with a local measure of it) and generated cells (the dimension table's
 * --frameworks, --routes, --init), each packaged into a scratch folder, deployed, cold-started N times
 * per cell, written as a run folder lambda:import's reader wrote, and deleted; compare of the generated
 * cells against a local estimate run matches them one to one; a mix of inputs, or a flag of another
 * input, is one line and exit 2 with nothing called (dry runs and refusals in this process). The
 * package-folder input: lambda-run.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { specOfArgv } from '../../metrics/cli/main.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { runCompare } from '../../metrics/pipeline/compare.ts';
import { runPipeline } from '../../metrics/pipeline/run.ts';
import { CLI, ROOT, tempDir } from '../support/helpers.ts';
import { mainInProcess } from '../support/main-in-process.ts';
import { FakeLambda } from '../support/fake-lambda.ts';

const SECRET = 'coldstartInputsPlantedSecret4d2e';

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
  signal: NodeJS.Signals | null;
  /** scratch folders of this child's left in the temp folder */
  scratchLeft: string[];
}

/** CLI with tsx by its resolved URL, so that the command runs from the user's app folder too (which has no tsx). */
const ANYWHERE = CLI.map((arg) => (arg === 'tsx' ? import.meta.resolve('tsx') : arg));

function cli(
  fake: FakeLambda,
  args: string[],
  cwd = ROOT,
  onLine?: (line: string, child: ReturnType<typeof spawn>) => void,
): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...ANYWHERE, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: tempDir('coldstart-lambda-inputs-home-'),
        AWS_ENDPOINT_URL: fake.url,
        AWS_ACCESS_KEY_ID: 'AKIDCOLDSTARTTEST',
        AWS_SECRET_ACCESS_KEY: SECRET,
        AWS_EC2_METADATA_DISABLED: 'true',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stdout += text;
      for (const line of text.split('\n')) if (line) onLine?.(line, child);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      // the runner's scratch folders are named coldstart-run-<pid>.<start time>-XXXXXX
      const scratchLeft = readdirSync(os.tmpdir()).filter((entry) => entry.startsWith(`coldstart-run-${child.pid}.`));
      resolve({ status, signal, stdout, stderr, scratchLeft });
    });
  });
}

function samplesOf(dir: string): { ok: boolean; cell: Record<string, unknown>; lambda: { initMs: number } }[] {
  return readFileSync(path.join(dir, 'samples.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { ok: boolean; cell: Record<string, unknown>; lambda: { initMs: number } });
}

const metaSource = (dir: string) =>
  (JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { spec: { source: Record<string, unknown> } }).spec.source;

const ROLE = ['--region', 'eu-west-1', '--role', 'arn:aws:iam::123456789012:role/r'];

describe('lambda:run inputs against a local Lambda API', () => {
  const fake = new FakeLambda();
  const dir = tempDir('coldstart-lambda-inputs-');
  const app = path.join(dir, 'app');
  before(async () => {
    await fake.start();
    mkdirSync(path.join(app, 'src', 'lib'), { recursive: true });
    // an ES module handler importing a file of its own: the bundle must hold both
    writeFileSync(path.join(app, 'src', 'lib', 'greet.mjs'), 'export const greet = (who) => `hello ${who} from orders-api-marker`;\n');
    writeFileSync(
      path.join(app, 'src', 'index.mjs'),
      "import { greet } from './lib/greet.mjs';\nexport const main = async (event) => ({ statusCode: 200, body: greet(event.rawPath) });\n",
    );
    writeFileSync(path.join(app, 'event.json'), '{"version":"2.0","rawPath":"/orders","requestContext":{"http":{"method":"GET"}}}\n');
  });
  after(() => fake.stop());

  const reset = () => {
    fake.faults = {};
    fake.functions.clear();
    fake.roles.clear();
    fake.calls.length = 0;
  };

  it('--handler: bundled and packaged in a scratch folder, deployed, N cold starts, a run folder, everything deleted', async () => {
    reset();
    const out = path.join(dir, 'handler-run');
    const args = ['lambda-run', '--handler', 'src/index.main', '--event', 'event.json', '--name', 'orders-api', '--out', out];
    const result = await cli(fake, [...args, ...ROLE, '--samples', '2', '--lambda-memory', '512,1024', '--run-id', 'hand1'], app);
    assert.equal(result.status, 0, result.stderr);
    const create = fake.calls.filter((c) => c.op === 'CreateFunction');
    assert.equal(create.length, 1);
    const body = JSON.parse(create[0]!.text.split('\n').slice(1).join('\n')) as {
      FunctionName: string;
      Handler: string;
      Code: { ZipFile: string };
    };
    assert.equal(body.FunctionName, 'coldstart-orders-api-1-plain-hand1');
    // the export measure was given is the function's Handler setting; the zip holds the bundle with the imported file
    assert.equal(body.Handler, 'index.main');
    // an ES module handler's bundle is an ES module: zipped as index.mjs, which Lambda's runtime loads as one (as
    // index.js it was loaded as CommonJS and failed INIT); loaded here as the runtime loads it, it answers
    const files = unzipSync(Buffer.from(body.Code.ZipFile, 'base64'));
    assert.deepEqual(Object.keys(files), ['index.mjs']);
    const unzipped = path.join(dir, 'unzipped');
    mkdirSync(unzipped, { recursive: true });
    writeFileSync(path.join(unzipped, 'index.mjs'), files['index.mjs']!);
    const loaded = (await import(pathToFileURL(path.join(unzipped, 'index.mjs')).href)) as {
      main: (e: unknown) => Promise<{ body: string }>;
    };
    assert.equal((await loaded.main({ rawPath: '/orders' })).body, 'hello /orders from orders-api-marker');
    // the event given is every invocation's payload
    const invokes = fake.calls.filter((c) => c.op === 'Invoke');
    assert.equal(invokes.length, 4);
    assert.ok(invokes.every((c) => c.text.endsWith(JSON.stringify(JSON.parse(readFileSync(path.join(app, 'event.json'), 'utf8'))))));
    // the run folder: measure's cell of the app (its name, 1 route, plain) per memory size
    const samples = samplesOf(out);
    assert.equal(samples.length, 4);
    assert.ok(samples.every((s) => s.ok && s.cell.framework === 'orders-api' && s.cell.routes === 1 && s.cell.variant === 'plain'));
    assert.deepEqual(
      samples.map((s) => s.lambda.initMs).sort((a, b) => a - b),
      [512, 512, 1024, 1024].map((m) => FakeLambda.initMs('coldstart-orders-api-1-plain-hand1', m)).sort((a, b) => a - b),
    );
    const source = metaSource(out);
    assert.equal((source.input as { kind: string }).kind, 'handler');
    assert.match((source.input as { handlers: string[] }).handlers[0]!, /src\/index\.mjs \(main, as orders-api\)/);
    assert.match(String(source.samples), /forced by lambda:run hand1 in eu-west-1 from your handler .*index\.mjs/);
    assert.equal(fake.functions.size, 0);
    assert.deepEqual(result.scratchLeft, []);
    // the planted secret: in no file of the run folder, no output, no request
    const written = readdirSync(out, { recursive: true, encoding: 'utf8' }).map((f) => path.join(out, f));
    for (const file of written.filter((f) => statSync(f).isFile())) assert.ok(!readFileSync(file, 'utf8').includes(SECRET), file);
    assert.ok(![result.stdout, result.stderr, ...fake.calls.map((c) => c.text)].some((text) => text.includes(SECRET)));

    // a local measure of the same handler (measure's own parsing of the same flags) is compared with it cell for cell
    const local = path.join(tempDir('coldstart-lambda-inputs-measure-'), 'local');
    const measured = ['measure', '--handler', path.join(app, 'src', 'index.main'), '--event', path.join(app, 'event.json')];
    const spec = await specOfArgv([
      ...measured,
      '--name',
      'orders-api',
      '--lambda-memory',
      '512,1024',
      '--samples',
      '2',
      '--warmup',
      '0',
      '--out',
      local,
    ]);
    assert.ok(spec);
    await runPipeline(spec, fakeDeps());
    const rows = runCompare({ a: local, b: out }).estimates;
    assert.deepEqual(
      rows.map((r) => `${r.cell.framework}@${r.cell.routes} ${r.cell.variant} ${r.memoryMB}`),
      ['orders-api@1 plain 512', 'orders-api@1 plain 1024'],
    );
    for (const row of rows) assert.equal(row.real.p50, FakeLambda.initMs('coldstart-orders-api-1-plain-hand1', row.memoryMB));
  });

  it('generated cells: packaged as lambda:package does, one function a cell; compare with a local estimate matches them 1:1', async () => {
    reset();
    const out = path.join(dir, 'generated-run');
    const select = ['-f', 'fastify,hono', '-r', '1,10', '--lambda-runtime', 'nodejs22.x'];
    const result = await cli(fake, ['lambda-run', ...select, '--out', out, ...ROLE, '--samples', '2', '--run-id', 'gen1']);
    assert.equal(result.status, 0, result.stderr);
    // --init's default (eager,lazy): fastify's eager cells are deployed beside the lazy ones; hono has no eager form, said with its reason
    assert.match(result.stderr, /left out: .*hono.*eager/);
    const created = fake.calls.filter((c) => c.op === 'CreateFunction').map((c) => /"FunctionName":"([^"]+)"/.exec(c.text)![1]);
    assert.deepEqual(created.sort(), [
      'coldstart-fastify-1-validated-eager-gen1',
      'coldstart-fastify-1-validated-gen1',
      'coldstart-fastify-10-validated-eager-gen1',
      'coldstart-fastify-10-validated-gen1',
      'coldstart-hono-1-validated-gen1',
      'coldstart-hono-10-validated-gen1',
    ]);
    assert.equal(fake.calls.filter((c) => c.op === 'Invoke').length, 12);
    const samples = samplesOf(out);
    assert.equal(samples.length, 12);
    const source = metaSource(out);
    assert.deepEqual(source.input, {
      kind: 'generated',
      frameworks: ['fastify', 'hono'],
      routes: [1, 10],
      variants: ['validated'],
      inits: ['eager', 'lazy'],
    });
    assert.equal(fake.functions.size, 0);
    assert.deepEqual(result.scratchLeft, []);

    // the local estimate run of the same selection (--init eager,lazy): fastify's eager cells match the eager functions
    const local = path.join(tempDir('coldstart-lambda-inputs-local-'), 'local');
    const spec = await specOfArgv([
      'run',
      '--target',
      'lambda',
      ...select,
      '--lambda-memory',
      '1024',
      '--samples',
      '2',
      '--warmup',
      '0',
      '--out',
      local,
    ]);
    assert.ok(spec);
    await runPipeline(spec, fakeDeps());
    const compared = runCompare({ a: local, b: out });
    const rows = compared.estimates.map((r) => `${r.cell.framework}@${r.cell.routes} ${r.cell.init} ${r.memoryMB}`);
    assert.deepEqual(rows.sort(), [
      'fastify@1 eager 1024',
      'fastify@1 lazy 1024',
      'fastify@10 eager 1024',
      'fastify@10 lazy 1024',
      'hono@1 lazy 1024',
      'hono@10 lazy 1024',
    ]);
    for (const row of compared.estimates) {
      const eager = row.cell.init === 'eager' ? '-eager' : '';
      const real = FakeLambda.initMs(`coldstart-${row.cell.framework}-${row.cell.routes}-validated${eager}-gen1`, 1024);
      assert.equal(row.real.p50, real);
      assert.equal(row.real.n, 2);
      assert.ok(Math.abs(row.errorP50Pct - ((row.estimate.p50 - real) / real) * 100) < 1e-9);
    }
  });

  // in this process (main() as the bin calls it): nothing here starts a process of its own but esbuild's
  const scratchOfThisProcess = () => readdirSync(os.tmpdir()).filter((entry) => entry.startsWith(`coldstart-run-${process.pid}.`));

  it('a dry run of each input prints the plan with its input and cost and calls nothing', async () => {
    reset();
    const env = { ...process.env };
    process.env.AWS_ENDPOINT_URL = fake.url;
    try {
      const handlerArgs = ['--handler', path.join(app, 'src', 'index.main'), '--event', path.join(app, 'event.json')];
      const handler = await mainInProcess(['lambda-run', ...handlerArgs, '--out', path.join(dir, 'dry'), ...ROLE, '--dry-run']);
      assert.equal(handler.code, 0, handler.stderr);
      assert.match(handler.stdout, /^input: your handler .*index\.mjs \(main, as index\), bundled, event .*event\.json$/m);
      assert.match(handler.stdout, /1 function\(s\) × 1 memory size\(s\) \(1024 MB\) × 10 cold starts = 10 invocations/);
      assert.match(handler.stdout, /estimated cost: \$0\.0002/);
      const generatedArgs = ['-f', 'hono', '-r', '1,10', '--init', 'lazy'];
      const generated = await mainInProcess(['lambda-run', ...generatedArgs, '--out', path.join(dir, 'dry'), ...ROLE, '--dry-run']);
      assert.equal(generated.code, 0, generated.stderr);
      assert.match(generated.stdout, /^input: generated cells: hono at 1, 10 route\(s\), validated, init lazy/m);
      assert.match(generated.stdout, /2 function\(s\) × 1 memory size\(s\) \(1024 MB\) × 10 cold starts = 20 invocations/);
      assert.match(generated.stdout, /estimated cost: \$0\.0003/);
      assert.doesNotMatch(generated.stderr, /left out/);
    } finally {
      process.env = env;
    }
    assert.deepEqual(scratchOfThisProcess(), []);
    assert.equal(fake.calls.length, 0);
  });

  it('a run SIGKILLed mid-way leaves its scratch folder; the next run of the tool removes it', async () => {
    reset();
    fake.faults = { invokeDelayMs: 300 };
    let killed = false;
    const args = ['lambda-run', '--handler', 'src/index.main', '--event', 'event.json', '--out', path.join(dir, 'killed')];
    const result = await cli(fake, [...args, ...ROLE, '--samples', '20', '--run-id', 'kill1'], app, (line, child) => {
      if (!killed && line.startsWith('[1/')) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    assert.equal(result.signal ?? result.status, 'SIGKILL');
    assert.equal(result.scratchLeft.length, 1, 'the killed run had a scratch folder');
    const left = path.join(os.tmpdir(), result.scratchLeft[0]!);
    assert.ok(existsSync(path.join(left, 'package', 'template.yaml')));
    // the next run (here a dry run in this process) sweeps the dead runner's scratch folder, as run and measure do
    const next = await mainInProcess([
      'lambda-run',
      '-f',
      'hono',
      '-r',
      '1',
      '--init',
      'lazy',
      '--out',
      path.join(dir, 'next'),
      ...ROLE,
      '--dry-run',
    ]);
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stderr, /removed \d+ scratch folder\(s\) a killed run left/);
    assert.ok(!existsSync(left));
  });

  it('no input, two inputs, a flag of another input, or a flag for another input: one line, exit 2, nothing called', async () => {
    reset();
    const out = ['--out', path.join(dir, 'refused'), ...ROLE];
    const handler = path.join(app, 'src', 'index.main');
    const cases: [string[], RegExp][] = [
      [[], /^coldstart: lambda:run needs one input: a folder written by lambda:package, --handler FILE\.export/],
      [
        ['some-package', '--handler', handler],
        /^coldstart: lambda:run takes one input, got a package folder \(some-package\) and --handler/,
      ],
      [
        ['--handler', handler, '-f', 'hono', '--init', 'lazy'],
        /^coldstart: lambda:run takes one input, got --handler and generated cells \(--frameworks, --init\)/,
      ],
      [['-f', 'hono', '--event', 'event.json'], /^coldstart: --event is for --handler only, not for generated cells/],
      [['some-package', '--cwd', '.', '--name', 'x'], /^coldstart: --cwd, --name are for --handler only, not for a package folder/],
      [['--handler', handler], /^coldstart: --handler needs --event FILE/],
      [
        ['-f', 'hono', '--init', 'lazy', '--role', 'arn:aws:iam::1:role/r', '--create-role'],
        /^coldstart: --role and --create-role exclude/,
      ],
      [
        ['--handler', path.join(app, 'src', 'missing.main'), '--event', 'e.json'],
        /^coldstart: --handler: no module .*missing\(\.js\|\.mjs\|\.cjs\)/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await mainInProcess(['lambda-run', ...args, ...out]);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, message);
    }
    assert.deepEqual(scratchOfThisProcess(), []);
    assert.equal(fake.calls.length, 0);
  });
});
