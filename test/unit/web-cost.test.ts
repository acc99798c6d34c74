/** A Web Function cold start's cost (metrics/analyse/web-cost.ts) and the rates it takes (metrics/core/web-platform.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webColdStartCost, webCostLine } from '../../metrics/analyse/web-cost.ts';
import { checkColdStartPricing, parseLambdaCompute, parseWebRates } from '../../metrics/core/web-platform.ts';
import { UsageError } from '../../metrics/core/errors.ts';

const rates = { activeCpuSecond: 0.00003, gbSecond: 0.000002, request: 0.0000004 };

test('with rates: CPU-seconds × rate + GB-seconds × rate + request', () => {
  const cost = webColdStartCost({ cpuMs: 420, initMs: 500 }, rates);
  assert.equal(cost.cpuSeconds, 0.42);
  assert.equal(cost.gbSeconds, 1); // 0.5 s × 2 GB
  assert.ok(Math.abs(cost.dollars! - (0.42 * 0.00003 + 1 * 0.000002 + 0.0000004)) < 1e-15);
  assert.match(webCostLine(cost), /\$15\.00 per million cold starts at your rates/);
});

test('no $ without the user rates', () => {
  const cost = webColdStartCost({ cpuMs: 420, initMs: 500 });
  assert.equal(cost.dollars, undefined);
  assert.doesNotMatch(webCostLine(cost), /\$\d/);
  assert.match(webCostLine(cost), /0\.420 active CPU-s, 1\.000 GB-s/);
});

test('a price file needs every rate, and only them', () => {
  assert.deepEqual(parseWebRates(JSON.stringify(rates), 'p.json'), rates);
  assert.throws(() => parseWebRates('{"gbSecond":0.1,"request":0}', 'p.json'), /activeCpuSecond is missing/);
  assert.throws(() => parseWebRates('{"activeCpuSecond":0,"gbSecond":0,"request":0,"free":1}', 'p.json'), /unknown field "free"/);
  assert.throws(() => parseWebRates('{"activeCpuSecond":-1,"gbSecond":0,"request":0}', 'p.json'), /is not a rate/);
  assert.throws(() => parseWebRates('[1]', 'p.json'), UsageError);
});

test('Managed Instances: refused for a per-cold-start price, with the reason', () => {
  assert.throws(
    () => checkColdStartPricing('managed-instances', true),
    /no per-request cold start.*more than doubles within 5 minutes.*scale-out budget/,
  );
  assert.doesNotThrow(() => checkColdStartPricing('managed-instances', false));
  assert.doesNotThrow(() => checkColdStartPricing('on-demand', true));
  assert.throws(() => parseLambdaCompute('spot'), /not one of on-demand, managed-instances/);
});
