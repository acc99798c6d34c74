/** Real Web Functions cold starts per function, beside an estimate (metrics/analyse/web-cold-starts.ts), and lambda:import of them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { besideReal, webColdStartLines, webColdStarts } from '../../metrics/analyse/web-cold-starts.ts';
import { fixture, runClis, tempDir } from '../support/helpers.ts';
import { localEstimates } from '../../metrics/pipeline/lambda-import-web.ts';
import { loadRun } from '../../metrics/report/write.ts';

test('per function: n, median, p95, failures and the margin to 10 s', () => {
  const rows = webColdStarts([
    { functionName: 'b', status: 'success', initMs: 400 },
    { functionName: 'b', status: 'success', initMs: 600 },
    { functionName: 'b', status: 'timeout', initMs: 10000 },
    { functionName: 'a', status: 'error' },
  ]);
  assert.deepEqual(
    rows.map((r) => [r.functionName, r.n, r.p50, r.failed, r.marginP50Ms]),
    [
      ['a', 0, Number.NaN, 1, Number.NaN],
      ['b', 2, 500, 1, 9500],
    ],
  );
});

test('an estimate beside the real median: its error and whether the real median is in its interval', () => {
  const [real] = webColdStarts([
    { functionName: 'f', status: 'success', initMs: 500 },
    { functionName: 'f', status: 'success', initMs: 500 },
  ]);
  const row = besideReal(real!, { p50: 550, interval: { low: 450, high: 600 } });
  assert.equal(row.errorP50Pct, 10);
  assert.equal(row.withinInterval, true);
  assert.equal(besideReal(real!, { p50: 700, interval: { low: 650, high: 800 } }).withinInterval, false);
  assert.match(webColdStartLines([row])[0]!, /median 500 ms.*estimate 550 ms \(\+10 %, within its interval\)/);
});

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
