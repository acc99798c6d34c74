/**
 * The cloud bridge's `lambda-package` end to end, as a user runs it: generate, bundle (esbuild starts
 * its service), zip, template. `lambda-import` (REPORT lines → a run folder that report and compare
 * read) and both commands' usage errors are test/unit/lambda-import-cli.test.ts's, in-process.
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
import { runCli, runClis, tempDir, type CliResult } from '../support/helpers.ts';
import { EXIT_NOTHING_MADE } from '../../metrics/core/exit-codes.ts';

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
  let minified: CliResult;
  const minOut = path.join(dir, 'minified');
  before(async () => {
    // restify's optional dtrace-provider cannot be bundled by esbuild: its cell is left out with the reason
    const results = await runClis(
      [
        [
          'lambda-package',
          ...['--frameworks', 'node-http,hono,restify', '--routes', '1', '--out', out, '--memory', '512', '--architecture', 'arm64'],
        ],
        ['lambda-package', '--frameworks', 'restify', '--routes', '1', '--out', path.join(dir, 'restify-only')],
        // the levers' answer names this command for a minified winner
        ['lambda-package', '--frameworks', 'hono', '--routes', '1', '--build', 'bundle-min', '--out', minOut],
      ],
      2,
    );
    [run, restifyOnly, minified] = [results[0]!, results[1]!, results[2]!];
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

  const packaged: [string, string][] = [
    ['node-http', out],
    ['hono', out],
    ['hono, --build bundle-min', minOut],
  ];
  for (const [what, folder] of packaged) {
    const framework = what.split(',')[0]!;
    it(`${what}: the zip's index.handler, required from a folder without node_modules, answers its last route`, async () => {
      const name = `coldstart-${framework}-1-validated`;
      const files = unzipSync(readFileSync(path.join(folder, 'functions', `${name}.zip`)));
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

  it('--build bundle-min: the same function, minified: a smaller index.js', () => {
    assert.equal(minified.status, 0, minified.stderr);
    const index = (folder: string) =>
      unzipSync(readFileSync(path.join(folder, 'functions', 'coldstart-hono-1-validated.zip')))['index.js']!;
    assert.ok(index(minOut).length < index(out).length, `${index(minOut).length} bytes minified, ${index(out).length} not`);
  });

  it('refuses a folder that already holds a package (one line, exit 2), and leaves it as it was', () => {
    assertUsageError(again, /--out .* already holds a package \(template\.yaml\)/);
    assert.equal(readdirSync(path.join(out, 'functions')).length, 2);
  });

  it('exits EXIT_NOTHING_MADE (11) and writes nothing when no selected cell can be packaged', () => {
    assert.equal(restifyOnly.status, EXIT_NOTHING_MADE, restifyOnly.stderr);
    assert.match(restifyOnly.stdout, /^left out: coldstart-restify-1-validated: bundle failed/m);
    assert.match(restifyOnly.stderr, /^coldstart: no cell could be packaged \(1 left out\): nothing written$/m);
    assert.equal(existsSync(path.join(dir, 'restify-only')), false);
  });
});
