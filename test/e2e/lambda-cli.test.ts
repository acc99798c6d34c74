/**
 * The cloud bridge's two commands end to end, as a user runs them: `lambda-package` (generate, bundle,
 * zip, template) and `lambda-import` (REPORT lines → a run folder that report and compare read), and
 * their usage errors (one line, exit 2).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { parse } from 'yaml';
import { contractOf, isExpectedAnswer, PROBE_NAME } from '../../generators/contract.ts';
import { readLambdaResult, routeEvent } from '../../generators/lambda-event.ts';
import type { RunMeta } from '../../metrics/core/meta.ts';
import { readSamples, SAMPLES_FILE } from '../../metrics/core/samples.ts';
import { fixture, runCli, runClis, tempDir, type CliResult } from '../support/helpers.ts';

const REPORTS = fixture(path.join('cloud', 'coldstart-fastify-100-validated.txt'));
const INSIGHTS_CSV = fixture(path.join('cloud', 'insights-report-fields.csv'));
const QUERY_RESULTS = fixture(path.join('cloud', 'query-results.json'));
const UNNAMED = fixture(path.join('cloud', 'unnamed.txt'));

/** A usage error: exit 2 and exactly one line on stderr, naming what is wrong. */
function assertUsageError(result: CliResult, pattern: RegExp): void {
  assert.equal(result.status, 2, `exit code (stderr: ${result.stderr})`);
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${result.stderr}`);
  assert.match(lines[0]!, /^coldstart: /);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
}

interface Template {
  Parameters: Record<string, { Default: unknown }>;
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
}

function lambdaContext(name: string) {
  return {
    awsRequestId: 'c0ffee00-0000-4000-8000-000000000001',
    functionName: name,
    memoryLimitInMB: '512',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 30_000,
  };
}

describe('lambda-package', () => {
  const dir = tempDir('coldstart-lambda-package-');
  const out = path.join(dir, 'package');
  let run: CliResult;
  let restifyOnly: CliResult;
  let again: CliResult;
  before(async () => {
    // restify's optional dtrace-provider cannot be bundled by esbuild: its cell is left out with the reason
    const results = await runClis(
      [
        [
          'lambda-package',
          ...['--frameworks', 'node-http,hono,restify', '--routes', '1', '--out', out, '--memory', '512', '--architecture', 'arm64'],
        ],
        ['lambda-package', '--frameworks', 'restify', '--routes', '1', '--out', path.join(dir, 'restify-only')],
      ],
      2,
    );
    [run, restifyOnly] = [results[0]!, results[1]!];
    again = runCli(['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', out]);
  });

  it('prints one line per zip, the cell it left out with its reason, and the template', () => {
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    const zips = lines.filter((line) => /\.zip {2}\d+\.\d kB$/.test(line));
    assert.deepEqual(
      zips.map((line) => path.basename(line.split('  ')[0]!)),
      ['coldstart-node-http-1-validated.zip', 'coldstart-hono-1-validated.zip'],
    );
    assert.ok(
      lines.some((line) => /^left out: coldstart-restify-1-validated: bundle failed \(esbuild\): .*dtrace-provider/.test(line)),
      run.stdout,
    );
    assert.match(lines[lines.length - 1]!, /^template: .*template\.yaml \(2 functions; .*README\.txt\)$/);
  });

  it('writes one zip per packaged cell and a template with one function per cell, memory and architecture as given', () => {
    assert.deepEqual(readdirSync(path.join(out, 'functions')).sort(), [
      'coldstart-hono-1-validated.zip',
      'coldstart-node-http-1-validated.zip',
    ]);
    assert.ok(existsSync(path.join(out, 'README.txt')));
    const template = parse(readFileSync(path.join(out, 'template.yaml'), 'utf8')) as Template;
    const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Serverless::Function');
    assert.deepEqual(functions.map((f) => f.Properties.FunctionName).sort(), [
      'coldstart-hono-1-validated',
      'coldstart-node-http-1-validated',
    ]);
    for (const f of functions) {
      assert.equal(f.Properties.CodeUri, `functions/${String(f.Properties.FunctionName)}.zip`);
      assert.equal(f.Properties.Handler, 'index.handler');
      assert.equal(f.Properties.Runtime, 'nodejs24.x', 'the newest line by default');
    }
    assert.equal(template.Parameters.MemorySize!.Default, 512);
    assert.equal(template.Parameters.Architecture!.Default, 'arm64');
  });

  for (const framework of ['node-http', 'hono']) {
    it(`${framework}: the zip's index.handler, required from a folder without node_modules, answers its last route`, async () => {
      const name = `coldstart-${framework}-1-validated`;
      const files = unzipSync(readFileSync(path.join(out, 'functions', `${name}.zip`)));
      assert.deepEqual(Object.keys(files), ['index.js']);
      // a folder of its own under the temp folder: nothing but the bundle can be required from there
      const task = path.join(tempDir('coldstart-lambda-task-'), name);
      mkdirSync(task);
      const file = path.join(task, 'index.js');
      writeFileSync(file, files['index.js']!);
      const { handler } = createRequire(file)(file) as { handler: (event: unknown, context: unknown) => Promise<unknown> };
      assert.equal(typeof handler, 'function');
      // routes are numbered from 0: the one route of a 1-route cell is /route-0
      const last = 0;
      const contract = contractOf({});
      const answer = readLambdaResult(await handler(routeEvent(last, contract.validBody(last, PROBE_NAME)), lambdaContext(name)));
      assert.ok(answer.ok, answer.ok ? '' : answer.reason);
      assert.equal(answer.status, 200);
      assert.ok(isExpectedAnswer(answer.body, last, PROBE_NAME), JSON.stringify(answer.body));
      const invalid = readLambdaResult(await handler(routeEvent(last, contract.invalidBody(last)), lambdaContext(name)));
      assert.ok(invalid.ok && invalid.status >= 400 && invalid.status < 500, JSON.stringify(invalid));
    });
  }

  it('refuses a folder that already holds a package (one line, exit 2), and leaves it as it was', () => {
    assertUsageError(again, /--out .* already holds a package \(template\.yaml\)/);
    assert.equal(readdirSync(path.join(out, 'functions')).length, 2);
  });

  it('exits 1 and writes nothing when no selected cell can be packaged', () => {
    assert.equal(restifyOnly.status, 1, restifyOnly.stderr);
    assert.match(restifyOnly.stdout, /^left out: coldstart-restify-1-validated: bundle failed/m);
    assert.match(restifyOnly.stderr, /^coldstart: no cell could be packaged \(1 left out\): nothing written$/m);
    assert.equal(existsSync(path.join(dir, 'restify-only')), false);
  });
});

describe('lambda-import', () => {
  const dir = tempDir('coldstart-lambda-import-');
  const out = path.join(dir, 'run');
  let run: CliResult;
  before(() => {
    run = runCli(['lambda-import', REPORTS, INSIGHTS_CSV, QUERY_RESULTS, '--out', out, '--arch', 'arm64']);
  });

  it('writes one aws-lambda record per cold start, failed invocations as failed samples', () => {
    assert.equal(run.status, 0, run.stderr);
    const samples = readSamples(path.join(out, SAMPLES_FILE));
    assert.ok(samples.every((s) => s.cell.target === 'aws-lambda' && s.phase === 'sample' && s.lambda !== undefined));
    const count = (framework: string, ok?: boolean) =>
      samples.filter((s) => s.cell.framework === framework && (ok === undefined || s.ok === ok)).length;
    // the text file: 5 cold starts (one a duplicate line, not counted twice), 2 of them with Status timeout or error
    assert.equal(count('fastify'), 5);
    assert.equal(count('fastify', false), 2);
    // the CSV: 2 cold starts of the hono function (its warm row is not a sample); the JSON: 1 of node-http
    assert.equal(count('hono'), 2);
    assert.equal(count('node-http'), 1);
    assert.deepEqual(
      samples.filter((s) => s.cell.framework === 'hono').map((s) => [s.cell.routes, s.cell.variant, s.cell.memory, s.lambda!.initMs]),
      [
        [1000, 'plain', 512, 324.1],
        [1000, 'plain', 512, 315.25],
      ],
    );
  });

  it('prints what it read and names every line it could not import', () => {
    assert.match(run.stdout, /^\d+ REPORT lines read: 8 cold starts \(8 samples with target aws-lambda in 3 cells\)/);
    assert.match(run.stdout, /coldstart-fastify-100-validated\.txt:8: Duration "abc ms" is not a number of ms/);
    assert.match(run.stdout, /insights-report-fields\.csv:5: function my-api is not named/);
    assert.match(run.stdout, /^results in .*run \(summary\.md/m);
  });

  it('writes a meta.json and summary.md that say the figures come from AWS Lambda, and when they were logged', () => {
    const meta = JSON.parse(readFileSync(path.join(out, 'meta.json'), 'utf8')) as RunMeta;
    assert.match(meta.machine.os, /^AWS Lambda/);
    assert.equal(meta.options.arch, 'arm64');
    // the earliest and latest logged times: the line without a timestamp does not make it "now"
    assert.equal(meta.startedAt, '2025-08-01T10:00:00.320Z');
    assert.equal(meta.finishedAt, '2025-08-01T13:00:00.000Z');
    const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
    assert.match(summary, /\*\*Machine:\*\* AWS Lambda via imported REPORT lines, at 128, 512, 1024 MB/);
    assert.match(summary, /lambda\/100-startup-fastify-routes\.js \[target=aws-lambda, memory=1024MB, build=bundle\] \| 208 \|/);
    assert.match(summary, /lambda\/plain\/1000-startup-hono-routes\.js \[target=aws-lambda, memory=512MB/);
    assert.ok(existsSync(path.join(out, 'chart-firstresponse.svg')));
  });

  it('leaves a folder that report and compare read again', async () => {
    const [report, compare] = await runClis([
      ['report', out],
      ['compare', out, out],
    ]);
    assert.equal(report!.status, 0, report!.stderr);
    assert.equal(compare!.status, 0, compare!.stderr);
  });

  describe('usage errors: one line, exit 2, nothing written', () => {
    let errors: CliResult[];
    const fresh = path.join(dir, 'never-written');
    before(async () => {
      errors = await runClis([
        ['lambda-import', '--out', fresh],
        ['lambda-import', path.join(dir, 'no-such-file.txt'), '--out', fresh],
        ['lambda-import', UNNAMED, '--out', out],
        ['lambda-import', UNNAMED, '--out', fresh],
        ['lambda-import', UNNAMED, '--out', fresh, '--function', 'my-api'],
        ['lambda-import', UNNAMED, '--out', fresh, '--architecture', 'mips'],
        ['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', path.join(dir, 'p'), '--memory', '64'],
        ['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', path.join(dir, 'p'), '--runtime', 'nodejs20.x'],
        ['lambda-package', '--frameworks', 'node-http', '--routes', '1'],
        ['lambda-package', '--frameworks', 'no-such-framework', '--routes', '1', '--out', path.join(dir, 'p')],
        ['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', path.join(dir, 'p'), '--arch', 'mips'],
        ['lambda-import', UNNAMED, '--out', fresh, '--lambda-runtime', 'nodejs24.x', '--runtime', 'nodejs22.x'],
      ]);
    });

    it('lambda-import without a file', () => assertUsageError(errors[0]!, /missing required argument 'files'/));
    it('lambda-import of a missing file', () => assertUsageError(errors[1]!, /cannot read .*no-such-file\.txt: ENOENT/));
    it('lambda-import into a folder that holds a run', () => {
      assertUsageError(errors[2]!, /already holds a run \(samples\.jsonl\)/);
      assert.equal(readSamples(path.join(out, SAMPLES_FILE)).length, 8, 'the run is untouched');
    });
    it('lambda-import where no cold start names its function: the report line is named, nothing is written', () => {
      assertUsageError(errors[3]!, /no cold start .* nothing written/);
      assert.match(errors[3]!.stdout, /unnamed\.txt:1: no function name/);
    });
    it('lambda-import with a --function that is not a packaged name', () =>
      assertUsageError(errors[4]!, /--function "my-api" is not a packaged/));
    it('lambda-import with an unknown --architecture (the old spelling of --arch, named as typed)', () =>
      assertUsageError(errors[5]!, /--architecture: "mips" is not one of x86_64, arm64/));
    it('lambda-package with a memory size Lambda does not allow', () =>
      assertUsageError(errors[6]!, /--memory: "64" is not a memory size/));
    it('lambda-package with a deprecated runtime: refused with its date', () =>
      assertUsageError(errors[7]!, /--runtime: nodejs20\.x is deprecated on Lambda since 2026-04-30; use nodejs22\.x or nodejs24\.x/));
    it('lambda-package without --out', () => assertUsageError(errors[8]!, /required option '-o, --out <dir>' not specified/));
    it('lambda-package of an unknown framework', () => assertUsageError(errors[9]!, /unknown framework "no-such-framework"/));
    it('lambda-package with an unknown --arch', () => assertUsageError(errors[10]!, /--arch: "mips" is not one of x86_64, arm64/));
    it('lambda-import with both spellings of the runtime', () =>
      assertUsageError(errors[11]!, /option '--runtime <runtime>' cannot be used with option '--lambda-runtime <runtime>'/));
    it('writes nothing', () => {
      assert.equal(existsSync(fresh), false);
      assert.equal(existsSync(path.join(dir, 'p')), false);
    });
  });
});
