/** The power-tuning view on synthetic medians, every expectation computed by hand. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coldStartCost, powerTuning, type PowerCell } from '../../metrics/analyse/power-tuning.ts';
import { powerPoints, powerTuningMarkdown, powerTuningSpec } from '../../metrics/report/power-tuning.ts';
import { renderSvg } from '../../metrics/report/charts.ts';

// x86: $0.0000166667 per GB-s, so $ per million = s × GB × 16.6667
const price = { pricePerGBs: 0.0000166667 };

const cells: PowerCell[] = [
  { framework: 'fastify', routes: 1000, memoryMB: 1024, firstResponseMs: 1500, initMs: 1200 },
  { framework: 'fastify', routes: 1000, memoryMB: 128, firstResponseMs: 8000, initMs: 1500 },
  { framework: 'fastify', routes: 1000, memoryMB: 512, firstResponseMs: 2400, initMs: 1400 },
  { framework: 'hono', routes: 1000, memoryMB: 128, firstResponseMs: 4000 },
  { framework: 'hono', routes: 1000, memoryMB: 256, firstResponseMs: 2100 },
  { framework: 'hono', routes: 1000, memoryMB: 512, firstResponseMs: 1090 },
  { framework: 'hono', routes: 1000, memoryMB: 1024, firstResponseMs: 700 },
  { framework: 'hono', routes: 1000, memoryMB: 3008 },
  { framework: 'deepkit-http', routes: 5000, memoryMB: 128, outOfMemory: true },
  { framework: 'deepkit-http', routes: 5000, memoryMB: 512, firstResponseMs: 35_000, initMs: 12_000 },
  { framework: 'deepkit-http', routes: 5000, memoryMB: 1024, firstResponseMs: 20_000, initMs: 9000 },
];

const close = (actual: number | undefined, expected: number) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-3, `${actual} ≈ ${expected}`);

describe('power tuning', () => {
  it("costs each size with the cost table's formula, plus $0.20 per million requests when asked", () => {
    close(coldStartCost(8000, 128, price), 16.6667);
    close(coldStartCost(2100, 256, price), 8.75002);
    close(coldStartCost(8000, 128, { ...price, includeRequests: true }), 16.8667);
  });

  it('chooses the cheapest size, the fastest within +10 % of it and the smallest that ran, per framework × routes', () => {
    const rows = powerTuning(cells, price);
    assert.deepEqual(
      rows.map((r) => [r.framework, r.routes, r.cheapest, r.fastestWithinBudget, r.smallestThatRan, r.outOfMemoryAt, r.failedAt]),
      [
        // 512 MB: $291.67 (35 s × 0.5 GB), 1024 MB: $333.33, over +10 % ($320.83)
        ['deepkit-http', 5000, 512, 512, 512, [128], []],
        // 128 MB: $16.67; 512 MB: $20.00 is over +10 % ($18.33)
        ['fastify', 1000, 128, 128, 128, [], []],
        // 128 MB $8.33, 256 MB $8.75, 512 MB $9.08 within $9.17; 1024 MB $11.67 is not; 512 MB is the fastest within
        ['hono', 1000, 128, 512, 128, [], [3008]],
      ],
    );
    const hono = rows[2]!;
    assert.deepEqual(
      hono.sizes.map((s) => s.memoryMB),
      [128, 256, 512, 1024, 3008],
    );
    close(hono.sizes[2]!.costPerMillion, 9.08335);
    assert.equal(hono.sizes[4]!.costPerMillion, undefined);
  });

  it('flags INIT over 10 s and a first response over 30 s, per size', () => {
    const deepkit = powerTuning(cells, price)[0]!;
    assert.deepEqual(
      deepkit.sizes.map((s) => [s.memoryMB, s.outOfMemory, s.initOverLimit, s.responseOverLimit]),
      [
        [128, true, false, false],
        [512, false, true, true],
        [1024, false, false, false],
      ],
    );
  });

  it('a size at exactly +10 % is within; equal costs go to the smaller size, equal budgets to the faster', () => {
    const [edge] = powerTuning(
      [
        { framework: 'f', routes: 1, memoryMB: 128, firstResponseMs: 510 }, // 0.51 s × 0.125 GB
        // 0.2805 s × 0.25 GB: exactly 1.1 × the above, a hair over it in floating point
        { framework: 'f', routes: 1, memoryMB: 256, firstResponseMs: 280.5 },
      ],
      price,
    );
    assert.deepEqual([edge!.cheapest, edge!.fastestWithinBudget], [128, 256]);
    const [tie] = powerTuning(
      [
        { framework: 'f', routes: 1, memoryMB: 256, firstResponseMs: 1000 }, // 1 s × 0.25 GB
        { framework: 'f', routes: 1, memoryMB: 128, firstResponseMs: 2000 }, // 2 s × 0.125 GB: the same cost
      ],
      price,
    );
    assert.deepEqual([tie!.cheapest, tie!.fastestWithinBudget], [128, 256]);
    const [none] = powerTuning([{ framework: 'g', routes: 1, memoryMB: 128, outOfMemory: true, firstResponseMs: 900 }], price);
    const choices = [none!.cheapest, none!.fastestWithinBudget, none!.smallestThatRan, none!.outOfMemoryAt];
    assert.deepEqual(choices, [undefined, undefined, undefined, [128]]);
  });

  it('renders the table: a column per memory size, the choices, the marks and the legend', () => {
    const markdown = powerTuningMarkdown(powerTuning(cells, price), price);
    const lines = markdown.split('\n');
    assert.equal(
      lines[0],
      '| framework | routes | 128 MB | 256 MB | 512 MB | 1024 MB | 3008 MB | cheapest | fastest within +10 % | smallest that ran |',
    );
    assert.equal(lines[1], '| :-- | --: | --: | --: | --: | --: | --: | :-- | :-- | :-- |');
    assert.equal(
      lines[2],
      '| deepkit-http | 5000 | out of memory |  | 35000 ms · $292 † ‡ | 20000 ms · $333 |  | ' +
        '512 MB ($292, 35000 ms) † ‡ | 512 MB ($292, 35000 ms) † ‡ | 512 MB |',
    );
    assert.equal(
      lines[3],
      '| fastify | 1000 | 8000 ms · $16.67 |  | 2400 ms · $20.00 | 1500 ms · $25.00 |  | ' +
        '128 MB ($16.67, 8000 ms) | 128 MB ($16.67, 8000 ms) | 128 MB |',
    );
    assert.equal(
      lines[4],
      '| hono | 1000 | 4000 ms · $8.33 | 2100 ms · $8.75 | 1090 ms · $9.08 | 700 ms · $11.67 | – | ' +
        '128 MB ($8.33, 4000 ms) | 512 MB ($9.08, 1090 ms) | 128 MB |',
    );
    assert.match(markdown, /× \$0\.0000166667 per GB-s × 10\^6\. "fastest within \+10 %"/);
    assert.match(markdown, /† INIT over 10 s \(Lambda's on-demand INIT limit\) · ‡ first response over 30 s /);
    assert.match(markdown, /‡ first response over 30 s \(the HTTP API's integration timeout; a REST API's is 29 s\)/);
    assert.match(powerTuningMarkdown(powerTuning(cells, price), { ...price, includeRequests: true }), /\+ \$0\.2 per million requests/);
    assert.equal(powerTuningMarkdown([], price), '_No cell was measured at a Lambda memory size._');
  });

  it('charts time and cost against memory, a line per framework × routes, the 30 s rule where the time axis reaches it', async () => {
    const rows = powerTuning(cells, price);
    const points = powerPoints(rows);
    assert.equal(points.length, 9, 'every size that ran, none that ran out of memory or failed');
    const series = [...new Set(points.map((p) => p.series))];
    assert.deepEqual(series, ['deepkit-http · 5000 routes', 'fastify · 1000 routes', 'hono · 1000 routes']);
    const svg = await renderSvg(powerTuningSpec(rows));
    assert.match(svg, /^<svg/);
    for (const text of ['hono · 1000 routes', 'HTTP API timeout, 30 s', '1,024', '$ per million cold starts']) {
      assert.ok(svg.includes(text), `the chart shows "${text}"`);
    }
    const quick = await renderSvg(
      powerTuningSpec(
        powerTuning(
          cells.filter((c) => c.framework === 'hono'),
          price,
        ),
      ),
    );
    assert.ok(!quick.includes('HTTP API timeout'), 'no 30 s rule where the time axis does not reach it');
    assert.match(await renderSvg(powerTuningSpec([])), /no data/);
  });
});
