/** Real Web Functions cold starts per function, beside an estimate (metrics/analyse/web-cold-starts.ts); the CLI: e2e/web-functions-cli. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { besideReal, webColdStartLines, webColdStarts } from '../../metrics/analyse/web-cold-starts.ts';

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
