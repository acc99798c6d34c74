/** lambda:import of Web Functions system logs (with and without --estimate) and lambda:package --target lambda-web, through the CLI. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { unzipSync } from 'fflate';
import { parse } from 'yaml';
import { fixture, runClis, tempDir } from '../support/helpers.ts';
import { localEstimates } from '../../metrics/pipeline/lambda-import-web.ts';
import { loadRun } from '../../metrics/report/write.ts';

const schema = JSON.parse(readFileSync(path.join(fixture('web-functions'), 'sam-webfunction.schema.json'), 'utf8')) as object;
const validate = new Ajv({ allErrors: true }).compile(schema);

test('lambda:import of a Web Functions system log prints the real cold starts, text from the log made safe', async () => {
  const dir = tempDir();
  const log = path.join(dir, 'web.jsonl');
  const evil = 'coldstart-web-x\u001b]0;owned\u0007';
  writeFileSync(
    log,
    `{"timestamp":"2026-09-25T11:12:31.402Z","type":"platform.initReport","record":{"functionName":${JSON.stringify(evil)},` +
      `"instanceId":"e1","status":"success","metrics":{"durationMs":250}}}\n`,
  );
  const [fromFixture, escaped, none] = await runClis([
    ['lambda-import', path.join(fixture('web-functions'), 'system-log.jsonl'), '-o', path.join(dir, 'a')],
    ['lambda-import', log, '-o', path.join(dir, 'b')],
    ['lambda-import', path.join(fixture('web-functions'), 'SOURCE.md'), '-o', path.join(dir, 'c')],
  ]);
  assert.equal(fromFixture!.status, 0, fromFixture!.stderr);
  assert.match(fromFixture!.stdout, /coldstart-web-fastify-1000-plain: 2 cold starts, median 520 ms, p95 530 ms, margin to 10 s 9480 ms/);
  assert.match(fromFixture!.stdout, /coldstart-web-express-5000-plain: 0 cold starts.*1 failed INIT/);
  assert.match(fromFixture!.stdout, /4 initReport lines not read/);
  assert.equal(escaped!.status, 0, escaped!.stderr);
  assert.equal(escaped!.stdout.includes('\u001b'), false);
  assert.match(escaped!.stdout, /coldstart-web-x \]0;owned : 1 cold start, median 250 ms/);
  assert.notEqual(none!.status, 0); // not a Web Functions log: the REPORT import runs and finds nothing
});

test('lambda:import --estimate puts a local run’s time to ready beside the real cold starts', async () => {
  const dir = tempDir();
  const run = path.join(dir, 'run');
  cpSync(fixture('golden-run'), run, { recursive: true });
  const local = loadRun(run).summaries.filter((s) => s.cell.framework === 'fastify' && s.cell.routes === 1);
  const estimates = localEstimates(local);
  const estimate = estimates.get('coldstart-fastify-1-validated-web');
  assert.ok(local.some((s) => s.metrics.listen?.median === estimate?.p50));
  const log = path.join(dir, 'web.jsonl');
  const line = (id: string, ms: number) =>
    `{"timestamp":"2026-09-25T11:12:31.402Z","type":"platform.initReport","record":{"functionName":"coldstart-fastify-1-validated-web",` +
    `"instanceId":"${id}","status":"success","metrics":{"durationMs":${ms}}}}`;
  writeFileSync(log, `${line('e1', 400)}\n${line('e2', 420)}\n`);
  const [beside, refused] = await runClis([
    ['lambda-import', log, '-o', path.join(dir, 'a'), '--estimate', run],
    ['lambda-import', path.join(fixture('web-functions'), 'SOURCE.md'), '-o', path.join(dir, 'b'), '--estimate', run],
  ]);
  assert.equal(beside!.status, 0, beside!.stderr);
  const pct = Math.round(((estimate!.p50 - 410) / 410) * 100);
  assert.match(beside!.stdout, new RegExp(`median 410 ms.*estimate ${Math.round(estimate!.p50)} ms \\(${pct >= 0 ? '\\+' : ''}${pct} %`));
  assert.equal(refused!.status, 2);
  assert.match(refused!.stderr, /--estimate is for Web Functions logs/);
});

test('lambda:package --target lambda-web packages a generated server that passes the schema check', async () => {
  const out = path.join(tempDir(), 'pkg');
  const [made, wrong] = await runClis([
    ['lambda-package', '-f', 'hono', '-r', '1', '--target', 'lambda-web', '-o', out],
    ['lambda-package', '-f', 'hono', '-r', '1', '--target', 'lambda-edge', '-o', path.join(out, 'x')],
  ]);
  assert.equal(made!.status, 0, made!.stderr);
  const template = parse(readFileSync(path.join(out, 'template.yaml'), 'utf8')) as { Resources: Record<string, object> };
  const [resource] = Object.values(template.Resources);
  assert.ok(validate(resource), JSON.stringify(validate.errors));
  const zip = made!.stdout
    .split('\n')
    .find((l) => l.includes('.zip'))!
    .split(/\s+/)[0]!;
  const files = unzipSync(readFileSync(path.resolve(zip)));
  assert.deepEqual(Object.keys(files), ['index.js']);
  // the server as the lambda-web target writes it: it listens where Lambda says
  assert.match(Buffer.from(files['index.js']!).toString('utf8'), /process\.env\.AWS_LAMBDA_HTTP_ENDPOINT/);
  assert.doesNotMatch(made!.stderr + made!.stdout, /never reads AWS_LAMBDA_HTTP_ENDPOINT/);
  assert.equal(wrong!.status, 2);
  assert.match(wrong!.stderr, /--target: "lambda-edge" is not one of lambda, lambda-web/);
});
