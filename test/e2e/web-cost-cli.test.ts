/** The cost flags of Web Functions and Managed Instances on the command line: one line, exit 2, nothing written. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fixture, runClis, tempDir } from '../support/helpers.ts';
import { EXIT_USAGE } from '../../metrics/core/exit-codes.ts';

test('managed-instances, a partial set of rates and a bad price file are refused in one line, exit 2', async () => {
  const dir = tempDir();
  const run = path.join(dir, 'run');
  cpSync(fixture('golden-run'), run, { recursive: true });
  const before = readdirSync(run).sort();
  const prices = path.join(dir, 'prices.json');
  writeFileSync(prices, '{"gbSecond": 0.00001, "request": 0.0000002}');
  const [managed, partial, file] = await runClis([
    ['report', run, '--lambda-compute', 'managed-instances'],
    ['report', run, '--web-cpu-price', '0.00003'],
    ['report', run, '--price-file', prices],
  ]);
  for (const r of [managed!, partial!, file!]) {
    assert.equal(r.status, EXIT_USAGE, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
  assert.match(managed!.stderr, /no per-request cold start.*more than doubles within 5 minutes.*scale-out budget/);
  assert.match(partial!.stderr, /--web-gb-price and --web-request-price missing/);
  assert.match(file!.stderr, /activeCpuSecond is missing/);
  assert.deepEqual(readdirSync(run).sort(), before);
});
