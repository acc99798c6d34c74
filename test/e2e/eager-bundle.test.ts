/**
 * Eager Lambda files (ES modules with a top-level await) bundled and packaged (issue 41): `--build
 * bundle` builds an ES-module bundle whose cell answers right, and `lambda:package --init eager,lazy`
 * zips an eager handler as index.mjs under a function name ending in -eager, beside the lazy one
 * (index.js), leaves out a framework without an eager form with its reason, and writes a template
 * cfn-lint passes (skipped with the reason when cfn-lint is not installed).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { parse } from 'yaml';
import { contractOf, isExpectedAnswer, PROBE_NAME } from '../../generators/contract.ts';
import { readLambdaResult, routeEvent } from '../../generators/lambda-event.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { runClis, tempDir, type CliResult } from '../support/helpers.ts';

const lint = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
const noLint = lint.error || lint.status !== 0 ? 'cfn-lint is not installed (pip install cfn-lint); skipped' : false;

const context = (name: string) => ({
  awsRequestId: 'c0ffee00-0000-4000-8000-000000000002',
  functionName: name,
  memoryLimitInMB: '1024',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 30_000,
});

describe('eager files bundled and packaged', () => {
  const dir = tempDir('coldstart-eager-bundle-');
  const out = path.join(dir, 'package');
  const runDir = path.join(dir, 'run');
  let packaged: CliResult;
  let run: CliResult;
  before(async () => {
    const results = await runClis(
      [
        ['lambda-package', '--frameworks', 'fastify,hono', '--routes', '10', '--init', 'eager,lazy', '--out', out],
        [
          'run',
          ...['--target', 'lambda', '--frameworks', 'fastify,hapi', '--routes', '10', '--init', 'eager', '--build', 'bundle'],
          ...['--lambda-runtime', 'node', '--lambda-bootstrap', 'probe', '--samples', '1', '--warmup', '0'],
          ...['--no-lambda-reference', '--out', runDir],
        ],
      ],
      2,
      600_000,
    );
    [packaged, run] = [results[0]!, results[1]!];
  });

  it('a bundled eager cell (an ES-module bundle) answers its last route and rejects the invalid body', () => {
    assert.equal(run.status, 0, run.stderr);
    const samples: SampleRecord[] = readSamples(path.join(runDir, 'samples.jsonl'));
    assert.equal(samples.length, 2, JSON.stringify(samples.map((s) => s.cell.framework)));
    for (const sample of samples) {
      assert.equal(sample.cell.init, 'eager');
      assert.equal(sample.cell.build, 'bundle');
      assert.equal(sample.ok, true, `${sample.cell.framework}: ${sample.error ?? ''} ${sample.stderrTail ?? ''}`);
      assert.equal(sample.invalidBody?.ok, true, `${sample.cell.framework}: ${sample.invalidBody?.reason ?? ''}`);
    }
  });

  it('the package: fastify eager as index.mjs (-eager), lazy as index.js, hono eager left out with its reason', () => {
    assert.equal(packaged.status, 0, packaged.stderr);
    assert.match(packaged.stdout, /^left out: coldstart-hono-10-validated-eager: no eager form: hono's router builds its matcher/m);
    const template = parse(readFileSync(path.join(out, 'template.yaml'), 'utf8')) as {
      Resources: Record<string, { Type: string; Properties: { FunctionName?: string; Handler?: string; CodeUri?: string } }>;
    };
    const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Serverless::Function');
    assert.deepEqual(functions.map((f) => f.Properties.FunctionName).sort(), [
      'coldstart-fastify-10-validated',
      'coldstart-fastify-10-validated-eager',
      'coldstart-hono-10-validated',
    ]);
    for (const f of functions) {
      assert.equal(f.Properties.Handler, 'index.handler');
      const files = Object.keys(unzipSync(readFileSync(path.join(out, f.Properties.CodeUri!))));
      assert.deepEqual(files, [f.Properties.FunctionName!.endsWith('-eager') ? 'index.mjs' : 'index.js'], f.Properties.FunctionName);
    }
  });

  it("the eager zip's index.mjs, imported from a folder without node_modules, answers after its top-level await", async () => {
    const name = 'coldstart-fastify-10-validated-eager';
    const source = unzipSync(readFileSync(path.join(out, 'functions', `${name}.zip`)))['index.mjs']!;
    const folder = path.join(tempDir(), 'task');
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, 'index.mjs');
    writeFileSync(file, source);
    const { handler } = (await import(pathToFileURL(file).href)) as { handler: (event: unknown, context: unknown) => Promise<unknown> };
    const contract = contractOf({});
    assert.equal(typeof handler, 'function');
    const answer = readLambdaResult(await handler(routeEvent(9, contract.validBody(9, PROBE_NAME)), context(name)));
    assert.ok(answer.ok, answer.ok ? '' : answer.reason);
    assert.equal(answer.status, 200);
    assert.ok(isExpectedAnswer(answer.body, 9, PROBE_NAME), JSON.stringify(answer.body));
    const invalid = readLambdaResult(await handler(routeEvent(9, contract.invalidBody(9)), context(name)));
    assert.ok(invalid.ok && invalid.status >= 400 && invalid.status < 500, JSON.stringify(invalid));
  });

  it('its template passes cfn-lint', { skip: noLint }, () => {
    const result = spawnSync('cfn-lint', ['--', path.join(out, 'template.yaml')], { encoding: 'utf8', timeout: 180_000 });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  });
});
