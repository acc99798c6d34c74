import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { aggregate, describe as describeValues } from '../../metrics/analyse/aggregate.ts';
import { cellLabel, makeCell } from '../../metrics/core/cell.ts';
import { CPU_CSV_COLUMNS, FROM_START_CSV_COLUMNS, SUMMARY_CSV_COLUMNS, summaryCsv } from '../../metrics/report/csv.ts';
import { summaryMarkdown, WIDE_LEGEND } from '../../metrics/report/markdown.ts';
import type { Marks, SampleRecord } from '../../metrics/core/samples.ts';

const fastify100 = makeCell({ framework: 'fastify', variant: 'validated', routes: 100 });
const fastify10 = makeCell({ framework: 'fastify', variant: 'validated', routes: 10 });
const floor10 = makeCell({ framework: 'node-http', variant: 'validated', routes: 10 });

function marks(firstResponse: number): Marks {
  return { processStart: 5, start: 30, imported: 100, startup: firstResponse - 40, listen: firstResponse - 10, firstResponse };
}

function sample(cell = fastify100, firstResponse = 100, extra: Partial<SampleRecord> = {}): SampleRecord {
  return {
    cell,
    phase: 'sample',
    index: 1,
    ok: true,
    marks: marks(firstResponse),
    rss: 50e6,
    heapUsed: 10e6,
    durationMs: firstResponse + 5,
    at: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

describe('statistics against hand-computed values', () => {
  it('median, mean, sample stddev, min, max of 100, 110, 120, 130', () => {
    const s = describeValues([130, 100, 120, 110])!;
    assert.equal(s.median, 115);
    assert.equal(s.mean, 115);
    // deviations ±5, ±15: (25+225+25+225)/3 = 166.67, sqrt = 12.9099
    assert.ok(Math.abs(s.stddev! - 12.909944) < 1e-6);
    assert.equal(s.min, 100);
    assert.equal(s.max, 130);
  });
  it('one value has no standard deviation', () => {
    assert.equal(describeValues([42])!.stddev, undefined);
    assert.equal(describeValues([]), undefined);
  });
});

describe('aggregate', () => {
  const samples = [
    sample(fastify100, 100),
    sample(fastify100, 300),
    sample(fastify100, 200),
    sample(fastify100, 0, { ok: false, marks: undefined, error: 'exited with code 1 before it was ready' }),
    sample(fastify100, 999, { phase: 'warmup', invalidBody: { ok: true, status: 400 } }),
    sample(fastify10, 50),
    sample(floor10, 20),
  ];
  const summaries = aggregate(samples);

  it('one summary per cell, sorted by framework then routes numerically', () => {
    assert.deepEqual(
      summaries.map((s) => cellLabel(s.cell)),
      ['10-startup-fastify-routes.js', '100-startup-fastify-routes.js', '10-startup-node-http-routes.js'],
    );
  });
  it('warm-ups are not aggregated, failures are counted with their reason', () => {
    const s = summaries[1]!;
    assert.equal(s.ok, 3);
    assert.equal(s.failed, 1);
    assert.deepEqual(s.errors, [{ reason: 'exited with code 1 before it was ready', count: 1 }]);
    assert.equal(s.metrics.firstResponse!.median, 200);
    assert.equal(s.metrics.firstResponse!.max, 300, 'the 999 ms warm-up is left out');
    assert.equal(s.metrics.listen!.median, 190);
    assert.deepEqual(s.invalidBody, { ok: true, status: 400 });
  });
  it('summary.csv has the columns and the numbers the samples imply', () => {
    const csv = summaryCsv(summaries, (s) => cellLabel(s.cell));
    const rows = parse<Record<string, string>>(csv, { columns: true });
    // samples without CPU time: the columns a run always had, no CPU columns; with a start mark, the from-start ones last
    assert.deepEqual(Object.keys(rows[0]!), [...SUMMARY_CSV_COLUMNS, ...FROM_START_CSV_COLUMNS]);
    for (const column of CPU_CSV_COLUMNS) assert.ok(!(column in rows[0]!), column);
    const row = rows.find((r) => r.routes === '100')!;
    assert.equal(row.samples, '3');
    assert.equal(row.failures, '1');
    assert.equal(Number(row.firstResponse_median_ms), 200);
    assert.equal(Number(row.firstResponse_mean_ms), 200);
    assert.equal(Number(row.firstResponse_stddev_ms), 100);
    assert.equal(Number(row.startup_min_ms), 60);
    assert.equal(row.invalid_body, 'rejected 400');
  });
  it('summary.md has the seeds table extended with firstResponse, the pivot and the failures', () => {
    const md = summaryMarkdown(summaries, undefined);
    assert.match(
      md,
      /\| {2}\| startup\(ms\) \| listen\(ms\) \| startup from start\(ms\) \| listen from start\(ms\) \| firstResponse\(ms\) \|/,
    );
    // 100 … 300 ms: max/min > 1.5, so every median is marked ⚠; then the 95 % CI of firstResponse
    assert.match(
      md,
      /\| 100-startup-fastify-routes\.js \| 160 ⚠ \| 190 ⚠ \| 130 ⚠ \| 160 ⚠ \| 200 ⚠ \| 100–300 \| 3\/4 \| rejected 400 \|/,
    );
    const pivot = ['| routes | fastify | node-http |', '| --: | --: | --: |', '| 10 | 50.0 | 20.0 |', '| 100 | 200 ⚠ | – |'].join('\n');
    assert.ok(md.includes(pivot), md);
    assert.match(md, /100-startup-fastify-routes\.js`: 1 × exited with code 1/);
  });
});

describe("startup and listen from the child's first statement (the seed's clock)", () => {
  // start 30; startup = firstResponse − 40, listen = firstResponse − 10
  const timed = [sample(fastify10, 100), sample(fastify10, 120), sample(fastify10, 140)];
  // a Lambda-like record with no start mark, and an older record from before the start mark
  const noStart = sample(floor10, 100, { marks: { startup: 60, listen: 90, firstResponse: 100 } });

  it('is each mark minus its start mark, summarised like the spawn-based figure', () => {
    const [summary] = aggregate(timed);
    const fromStart = summary!.fromStart!;
    assert.deepEqual(fromStart.startup!.values, [30, 50, 70]);
    assert.deepEqual(fromStart.listen!.values, [60, 80, 100]);
    assert.equal(fromStart.listen!.median, summary!.metrics.listen!.median - 30);
  });

  it('is absent for samples without a start mark, and so are its columns', () => {
    const [summary] = aggregate([noStart]);
    assert.equal(summary!.fromStart, undefined);
    const csv = summaryCsv([summary!], () => 'f.js');
    assert.ok(!csv.includes('from_start'), 'no from-start columns');
    assert.ok(!summaryMarkdown([summary!], undefined).includes('from start'), 'no from-start columns in summary.md');
  });

  it('adds the columns last in summary.csv and beside listen in summary.md', () => {
    const summaries = aggregate([...timed, noStart]);
    const rows = parse<Record<string, string>>(
      summaryCsv(summaries, () => 'f.js'),
      { columns: true },
    );
    const header = Object.keys(rows[0]!);
    assert.deepEqual(header, [...SUMMARY_CSV_COLUMNS, ...FROM_START_CSV_COLUMNS]);
    assert.equal(FROM_START_CSV_COLUMNS[0], 'startup_from_start_median_ms');
    assert.equal(FROM_START_CSV_COLUMNS.at(-1), 'listen_from_start_outliers');
    const fastify = rows.find((r) => r.framework === 'fastify')!;
    assert.equal(fastify.startup_from_start_median_ms, '50');
    assert.equal(fastify.listen_from_start_median_ms, '80');
    assert.equal(rows.find((r) => r.framework === 'node-http')!.listen_from_start_median_ms, '');
    const md = summaryMarkdown(summaries, undefined);
    assert.match(md, /\| startup\(ms\) \| listen\(ms\) \| startup from start\(ms\) \| listen from start\(ms\) \| firstResponse\(ms\) \|/);
    // 60…100 and 30…70 are wide spreads (max/min > 1.5): ⚠ beside the median, and the legend under the table
    assert.ok(md.includes(`| ${cellLabel(fastify10)} | 80.0 ⚠ | 110 | 50.0 ⚠ | 80.0 ⚠ | 120 |`), md);
    assert.ok(md.includes(WIDE_LEGEND));
  });
});
