import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { costMetaOptions, costPerMillion, parseMemory, parsePrice, PRICE_PER_GB_SECOND, resolveCost, storedCost } from '../metrics/analyse/cost.ts';
import { UsageError } from '../metrics/core/errors.ts';
import { writeReport } from '../metrics/report/write.ts';
import { cell, samplesOf, tempDir, writeRun } from './synthetic.ts';

const close = (actual: number, expected: number, tolerance: number) => assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} vs ${expected}`);

describe('cost: $ per million cold starts = ms/1000 × GB × $/GB-s × 10^6', () => {
  it('1000 ms at 1024 MB on x86 is $16.6667 per million', () => {
    close(costPerMillion(1000, { memoryMB: 1024, pricePerGBs: PRICE_PER_GB_SECOND.x86 }), 16.6667, 1e-9);
  });
  it('500 ms at 2048 MB on arm64 is $13.3334 per million; 250 ms at 512 MB on x86 is $2.0833', () => {
    close(costPerMillion(500, { memoryMB: 2048, pricePerGBs: PRICE_PER_GB_SECOND.arm64 }), 13.3334, 1e-9);
    close(costPerMillion(250, { memoryMB: 512, pricePerGBs: PRICE_PER_GB_SECOND.x86 }), 2.0833375, 1e-9);
  });
  it('settings: report flags over the run\'s meta.json over the defaults', () => {
    assert.deepEqual(resolveCost(), { memoryMB: 1024, arch: 'x86', pricePerGBs: 0.0000166667, customPrice: false });
    assert.deepEqual(resolveCost({}, { memoryMB: 2048, arch: 'arm64' }), { memoryMB: 2048, arch: 'arm64', pricePerGBs: 0.0000133334, customPrice: false });
    assert.deepEqual(resolveCost({ memoryMB: 512 }, { memoryMB: 2048, arch: 'arm64' }), { memoryMB: 512, arch: 'arm64', pricePerGBs: 0.0000133334, customPrice: false });
    assert.deepEqual(resolveCost({}, { pricePerGBs: 0.00002 }), { memoryMB: 1024, arch: 'x86', pricePerGBs: 0.00002, customPrice: true });
    // a report's --arch takes that arch's price even when the run had given --price
    assert.equal(resolveCost({ arch: 'arm64' }, { pricePerGBs: 0.00002 }).pricePerGBs, 0.0000133334);
    assert.deepEqual(storedCost({ memoryMB: 'big', arch: 'sparc', pricePerGBs: -1 }), {});
    assert.deepEqual(costMetaOptions({ arch: 'arm64' }), { memoryMB: 1024, arch: 'arm64' });
  });
  it('bad --memory and --price are usage errors', () => {
    assert.equal(parseMemory('2048'), 2048);
    assert.throws(() => parseMemory('64'), UsageError);
    assert.throws(() => parseMemory('1.5'), UsageError);
    assert.equal(parsePrice('0.0000166667'), 0.0000166667);
    assert.throws(() => parsePrice('abc'), UsageError);
    assert.throws(() => parsePrice('0'), UsageError);
  });
});

describe('the cost table in summary.md', () => {
  const samples = [...samplesOf(cell('fastify', 10), [1000, 1000, 1000]), ...samplesOf(cell('node-http', 10), [60, 60, 60])];

  it('uses what the run stored in meta.json', async () => {
    const dir = writeRun(path.join(tempDir(), 'run'), samples, { samples: 3, memoryMB: 2048, arch: 'arm64' });
    await writeReport(dir);
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(md, /## Cost: \$ per million cold starts \(AWS Lambda, 2048 MB, arm64\)/);
    // 1000 ms × 2 GB × 0.0000133334 × 10^6 = $26.67; 60 ms → $1.60
    assert.match(md, /\| routes \| fastify \| node-http \|\n\| --: \| --: \| --: \|\n\| 10 \| \$26\.67 \| \$1\.60 \|/);
    assert.match(md, /firstResponse median \(ms\) \/ 1000 × 2048 MB \/ 1024/);
    assert.match(md, /local timings, not Lambda timings/);
  });

  it("the report's flags override it", async () => {
    const dir = writeRun(path.join(tempDir(), 'run'), samples, { samples: 3, memoryMB: 2048, arch: 'arm64' });
    await writeReport(dir, { cost: { memoryMB: 1024, arch: 'x86' } });
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(md, /\| 10 \| \$16\.67 \| \$1\.00 \|/);
  });
});
