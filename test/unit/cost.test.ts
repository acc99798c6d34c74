import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { costPerMillion, priceOf, resolveCost, storedCost } from '../../metrics/analyse/cost.ts';
import { PRICE_PER_GB_SECOND } from '../../metrics/core/lambda-platform.ts';
import { parseMetaSpec } from '../../metrics/core/meta-spec.ts';
import { costExplanation } from '../../metrics/report/cost-table.ts';
import { dollars } from '../../metrics/core/format.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { tempDir } from '../support/in-process.ts';
import { cell, samplesOf, writeRun } from '../support/synthetic.ts';

const close = (actual: number, expected: number, tolerance: number) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} vs ${expected}`);

describe('cost: $ per million cold starts = ms/1000 × GB × $/GB-s × 10^6', () => {
  it('1000 ms at 1024 MB on x86 is $16.6667 per million', () => {
    close(costPerMillion(1000, { memoryMB: 1024, pricePerGBs: PRICE_PER_GB_SECOND.x86_64 }), 16.6667, 1e-9);
  });
  it('500 ms at 2048 MB on arm64 is $13.3334 per million; 250 ms at 512 MB on x86 is $2.0833', () => {
    close(costPerMillion(500, { memoryMB: 2048, pricePerGBs: PRICE_PER_GB_SECOND.arm64 }), 13.3334, 1e-9);
    close(costPerMillion(250, { memoryMB: 512, pricePerGBs: PRICE_PER_GB_SECOND.x86_64 }), 2.0833375, 1e-9);
  });
  it("settings: report flags over the run's meta.json over the defaults", () => {
    assert.deepEqual(resolveCost(), {
      memoryMB: 1024,
      arch: 'x86_64',
      architectures: ['x86_64'],
      pricePerGBs: 0.0000166667,
      customPrice: false,
    });
    assert.deepEqual(resolveCost({}, { memoryMB: 2048, architectures: ['arm64'] }), {
      memoryMB: 2048,
      arch: 'arm64',
      architectures: ['arm64'],
      pricePerGBs: 0.0000133334,
      customPrice: false,
    });
    assert.deepEqual(resolveCost({ memoryMB: 512 }, { memoryMB: 2048, architectures: ['arm64'] }), {
      memoryMB: 512,
      arch: 'arm64',
      architectures: ['arm64'],
      pricePerGBs: 0.0000133334,
      customPrice: false,
    });
    assert.deepEqual(resolveCost({}, { pricePerGBs: 0.00002 }), {
      memoryMB: 1024,
      arch: 'x86_64',
      architectures: ['x86_64'],
      pricePerGBs: 0.00002,
      customPrice: true,
    });
    // a report's --arch takes that arch's price even when the run had given --price
    assert.equal(resolveCost({ architectures: ['arm64'] }, { pricePerGBs: 0.00002 }).pricePerGBs, 0.0000133334);
    // meta.json's cost, read from outside: what is not of its type is left out
    assert.deepEqual(storedCost(parseMetaSpec({ cost: { memoryMB: 'big', architecture: 'sparc', pricePerGBs: -1 } }).cost), {});
    assert.deepEqual(storedCost({ memoryMB: 2048, architecture: 'x86_64' }), { memoryMB: 2048, architectures: ['x86_64'] });
    // an old run folder's `arch: "x86"` reads as x86_64; a list reads in its order
    assert.deepEqual(storedCost(parseMetaSpec({ cost: { architecture: 'x86' } }).cost), { architectures: ['x86_64'] });
    assert.deepEqual(storedCost(parseMetaSpec({ cost: { architecture: 'arm64', architectures: ['arm64', 'x86', 'sparc'] } }).cost), {
      architectures: ['arm64', 'x86_64'],
    });
    // a price given applies to the first architecture only; the others keep their own
    const two = resolveCost({ architectures: ['arm64', 'x86_64'], pricePerGBs: 0.00001 });
    assert.equal(priceOf(two, 'arm64'), 0.00001);
    assert.equal(priceOf(two, 'x86_64'), PRICE_PER_GB_SECOND.x86_64);
  });
});

describe('how the cost table writes dollars', () => {
  it('three decimals below $1, two below $100, whole dollars above; a dash when there is no figure', () => {
    assert.equal(dollars(0.0416667), '$0.042');
    assert.equal(dollars(1), '$1.00');
    assert.equal(dollars(16.6667), '$16.67');
    assert.equal(dollars(99.994), '$99.99');
    assert.equal(dollars(100), '$100');
    assert.equal(dollars(1234.5), '$1235');
    assert.equal(dollars(undefined), '–');
    assert.equal(dollars(Number.NaN), '–');
  });

  it('the explanation states the formula with the settings used, and says where the price came from', () => {
    const arm = costExplanation(resolveCost({ memoryMB: 512, architectures: ['arm64'] }));
    assert.match(arm, /firstResponse median \(ms\) \/ 1000 × 512 MB \/ 1024 \(= 0\.5 GB\) × \$0\.0000133334 per GB-s × 10\^6/);
    assert.match(arm, /arm64 price/);
    assert.match(costExplanation(resolveCost({ pricePerGBs: 0.00002 })), /price given with --price/);
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
    await writeReport(dir, { cost: { memoryMB: 1024, architectures: ['x86_64'] } });
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(md, /\| 10 \| \$16\.67 \| \$1\.00 \|/);
  });
});
