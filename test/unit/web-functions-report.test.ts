/**
 * The report's Web Functions figures (issue 49), from synthetic samples: INIT's median and p95 against the
 * 10 s limit, the accepted − own-mark gap, the use of a cold start, the estimate (✱, no interval) from the
 * CPU reference's ratio, and a $ only at the user's rates, stored in meta.json and read back defensively.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { cellCost, resolveCost, storedCost } from '../../metrics/analyse/cost.ts';
import { WEB_COST_NOTE } from '../../metrics/report/cost-table.ts';
import { lambdaCpuPerIteration } from '../../metrics/calibration/lambda-cpu-reference.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import { parseMetaSpec } from '../../metrics/core/meta-spec.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { webCpuRatio, webInitRows } from '../../metrics/report/web-functions.ts';
import { localEstimates } from '../../metrics/pipeline/lambda-import-web.ts';
import { besideReal, webColdStartLines, webColdStarts } from '../../metrics/analyse/web-cold-starts.ts';

const cell = (target: 'server' | 'lambda-web') =>
  makeCell({
    framework: 'hono',
    variant: 'validated',
    routes: 1,
    target,
    runtime: target === 'server' ? 'node' : 'nodejs24.x',
    init: 'lazy',
    bootstrap: 'probe',
    fileCache: 'cold',
  });

function sample(target: 'server' | 'lambda-web', index: number, listen: number, ok = true, error?: string): SampleRecord {
  return {
    cell: cell(target),
    phase: 'sample',
    index,
    ok,
    ...(error ? { error } : {}),
    ...(ok ? { marks: { listen, firstResponse: listen + 10 }, cpu: { listen: listen / 2 }, ownListen: listen - 1 } : {}),
    durationMs: listen + 20,
    at: '2026-12-05T00:00:00.000Z',
  };
}

const LIMIT = "not accepting connections on AWS_LAMBDA_HTTP_ENDPOINT (127.0.0.1:1) within 10 s, Lambda Web Functions' limit on INIT";

test('each lambda-web cell: median and p95 against 10 s, the gap, the use, and no $ or estimate without rates or a timing', () => {
  const listens = [100, 200, 300, 400, 500];
  const summaries = aggregate([
    ...listens.map((l, i) => sample('lambda-web', i + 1, l)),
    sample('lambda-web', 6, 0, false, LIMIT),
    sample('server', 1, 90),
  ]);
  const rows = webInitRows(summaries);
  assert.equal(rows.length, 1, 'the server cell has no row');
  const [row] = rows;
  assert.equal(row!.p50, 300);
  assert.equal(row!.p95, 480); // simple-statistics' quantileSorted of 5 values at 0.95 interpolates: 400 + 0.8 × 100
  assert.equal(row!.marginP50Ms, 9_700);
  assert.equal(row!.marginP95Ms, 9_520);
  assert.equal(row!.overLimit, 1);
  assert.equal(row!.acceptGapMs, 1);
  assert.equal(row!.cpuSeconds, 0.15);
  assert.equal(row!.gbSeconds, 0.6); // 0.3 s × 2 GB
  assert.equal(row!.dollars, undefined);
  assert.equal(row!.estimateMs, undefined);
});

test("the estimate is this machine's median × Lambda arm64's CPU time for the loop over this machine's", () => {
  const summaries = aggregate([sample('lambda-web', 1, 300)]);
  const lambda = lambdaCpuPerIteration('nodejs24.x', 'arm64')!;
  // this machine runs the loop twice as fast as Lambda arm64: the estimate is twice the local INIT
  const speeds = { 'nodejs24.x': { iterations: 1000, cpuMs: [lambda.msPerIteration * 500] } };
  assert.equal(webCpuRatio('nodejs24.x', speeds), 2);
  assert.equal(webInitRows(summaries, speeds)[0]!.estimateMs, 600);
  assert.equal(webCpuRatio('node', speeds), undefined, 'no timing of that runtime: no estimate');
});

test('a $ only at the user rates: CPU-s × rate + GB-s × rate + request', () => {
  const summaries = aggregate([sample('lambda-web', 1, 300)]);
  const rates = { activeCpuSecond: 0.00002, gbSecond: 0.000002, request: 0.0000002 };
  const [row] = webInitRows(summaries, {}, rates);
  assert.ok(Math.abs(row!.dollars! - (0.15 * 0.00002 + 0.6 * 0.000002 + 0.0000002)) < 1e-15);
});

test('the rates are kept in meta.json and read back defensively; a report given none keeps the run ones', () => {
  const rates = { activeCpuSecond: 0.00002, gbSecond: 0.000002, request: 0.0000002 };
  const spec = (webRates: unknown) => parseMetaSpec({ cost: { memoryMB: 1024, webRates } });
  assert.deepEqual(spec(rates).cost.webRates, rates);
  for (const bad of [{ ...rates, request: 1 }, { ...rates, gbSecond: -1 }, { activeCpuSecond: 0.1 }, 'cheap', null])
    assert.equal(spec(bad).cost.webRates, undefined, JSON.stringify(bad));
  assert.deepEqual(resolveCost({}, storedCost(spec(rates).cost)).webRates, rates);
  const other = { ...rates, request: 0 };
  assert.deepEqual(resolveCost({ webRates: other }, storedCost(spec(rates).cost)).webRates, other);
  assert.equal(resolveCost({}, {}).webRates, undefined, 'never a rate of ours');
});

test('lambda:import --estimate gives a lambda-web cell its modelled figure on Lambda beside the local median (✱, no interval)', () => {
  const summaries = aggregate([sample('lambda-web', 1, 300), sample('lambda-web', 2, 310), sample('server', 1, 90)]);
  const lambda = lambdaCpuPerIteration('nodejs24.x', 'arm64')!;
  const speeds = { 'nodejs24.x': { iterations: 1000, cpuMs: [lambda.msPerIteration * 500] } };
  const estimate = localEstimates(summaries, speeds).get('coldstart-hono-1-validated-web')!;
  assert.equal(estimate.p50, 305);
  assert.equal(estimate.modelled, 610);
  assert.equal(localEstimates(summaries).get('coldstart-hono-1-validated-web')!.modelled, undefined, 'no timing: no model');
  const real = webColdStarts([{ functionName: 'coldstart-hono-1-validated-web', status: 'success', initMs: 500 }]);
  const [line] = webColdStartLines([besideReal(real[0]!, estimate)]);
  assert.match(line!, /estimate 305 ms \(-39 %.*\); modelled on Lambda ✱ 610 ms \(\+22 %, no interval\)$/);
});

test("no $ at the event functions' rate for a Web Function: the cost table leaves it to its own section", () => {
  const [server, web] = ['server', 'lambda-web'].map((t) => aggregate([sample(t as 'server' | 'lambda-web', 1, 300)])[0]!);
  const settings = resolveCost();
  assert.ok(cellCost(server!, settings)!.perMillion > 0);
  assert.equal(cellCost(web!, settings), undefined);
  assert.match(WEB_COST_NOTE, /rates AWS does not publish/);
});
