import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import seedrandom from 'seedrandom';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { compareSummaries, metricDescription, parseMetricName, recommendCpu, statsOf } from '../../metrics/analyse/compare.ts';
import type { Cell } from '../../metrics/core/cell.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { summarizeLoad, type LoadReading } from '../../metrics/core/load.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { cell, sampleOf, spread } from '../support/synthetic.ts';

/** `count` values around `center`, each within ±`relative`, from a seeded generator. */
function noisy(seed: string, center: number, relative: number, count: number): number[] {
  const random = seedrandom(seed);
  return Array.from({ length: count }, () => center * (1 + relative * (random() * 2 - 1)));
}

/** Samples whose wall firstResponse and CPU firstResponse are given pairwise (CPU at the earlier marks scaled down). */
function withCpu(c: Cell, wall: number[], cpu: number[]): SampleRecord[] {
  return wall.map((w, i) => {
    const f = cpu[i]!;
    return sampleOf(c, w, i + 1, { cpu: { start: 0.02 * f, imported: 0.4 * f, startup: 0.7 * f, listen: 0.75 * f, firstResponse: f } });
  });
}

const fastify = cell('fastify', 1000);

describe('compare on a chosen metric', () => {
  it('a planted 5 % CPU regression over 10 samples is flagged on cpu.firstResponse, even under noisy wall times', () => {
    const a = aggregate(withCpu(fastify, noisy('wall-a', 1550, 0.15, 10), noisy('cpu-a', 2300, 0.015, 10)));
    const b = aggregate(withCpu(fastify, noisy('wall-b', 1550, 0.15, 10), noisy('cpu-b', 2300 * 1.05, 0.015, 10)));
    const [cpuRow] = compareSummaries(a, b, ['cpu.firstResponse']).rows;
    assert.equal(cpuRow!.metric, 'cpu.firstResponse');
    assert.equal(cpuRow!.verdict, 'regression');
    assert.ok(cpuRow!.ratio! > 1.03 && cpuRow!.ratio! < 1.07, `ratio ${cpuRow!.ratio}`);
    assert.ok(cpuRow!.p! < 0.05);
    assert.equal(cpuRow!.a!.n, 10);
    assert.equal(compareSummaries(a, b, ['cpu.firstResponse'], 1.04).rows[0]!.fails, true, 'above --fail-above 1.04');
  });

  it('a wall-only shift (wall +20 %, CPU unchanged) is flagged on wall, not on CPU', () => {
    const cpu = noisy('cpu', 2300, 0.015, 10);
    const a = aggregate(withCpu(fastify, spread(1550, 10), cpu));
    const b = aggregate(withCpu(fastify, spread(1550 * 1.2, 10), [...cpu].reverse()));
    const wall = compareSummaries(a, b, ['firstResponse']).rows[0]!;
    assert.equal(wall.verdict, 'regression');
    assert.ok(Math.abs(wall.ratio! - 1.2) < 1e-9);
    const onCpu = compareSummaries(a, b, ['cpu.firstResponse']).rows[0]!;
    assert.equal(onCpu.verdict, 'no significant change');
    assert.equal(onCpu.ratio, 1);
  });

  it('several metrics: a row per cell and metric, in the order asked', () => {
    const hono = withCpu(cell('hono', 10), spread(50, 8), spread(60, 8));
    const koa = withCpu(cell('koa', 10), spread(50, 8), spread(60, 8));
    const a = aggregate([...withCpu(fastify, spread(200, 10), spread(300, 10)), ...hono]);
    const b = aggregate([...withCpu(fastify, spread(240, 10), spread(300, 10)), ...koa]);
    for (const metric of ['startup', 'listen', 'firstResponse'] as const) {
      const mine = compareSummaries(a, b, [metric], 1.1);
      const theirs = compareSummaries(a, b, ['startup', 'listen', 'firstResponse'], 1.1);
      assert.deepEqual(
        mine.rows,
        theirs.rows.filter((r) => r.metric === metric),
      );
      assert.deepEqual([mine.onlyA, mine.onlyB], [theirs.onlyA, theirs.onlyB]);
    }
  });

  it('runs recorded without CPU time are not comparable on a CPU metric (and do not throw)', () => {
    const old = aggregate(spread(200, 5).map((v, i) => sampleOf(fastify, v, i + 1)));
    assert.equal(statsOf(old[0]!, 'cpu.firstResponse'), undefined);
    const row = compareSummaries(old, old, ['cpu.firstResponse']).rows[0]!;
    assert.equal(row.verdict, 'not comparable');
    assert.equal(compareSummaries(old, old, ['firstResponse']).rows[0]!.verdict, 'no significant change');
  });

  it('--metric: wall names and cpu.<mark>; anything else is a one-line UsageError', () => {
    assert.equal(parseMetricName('cpu.firstResponse'), 'cpu.firstResponse');
    assert.equal(parseMetricName('listen'), 'listen');
    assert.match(metricDescription('cpu.listen'), /^CPU time of the child at listen/);
    assert.match(metricDescription('firstResponse'), /^wall time to firstResponse/);
    for (const bad of ['cpu.processStart', 'cpu-firstResponse', 'wall', '']) {
      const oneLine = (e: Error) => e instanceof UsageError && /--metric: .* is not one of .*cpu\.firstResponse/.test(e.message);
      assert.throws(() => parseMetricName(bad), oneLine);
    }
  });
});

describe('when to recommend comparing CPU times', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const load = (load1: number): LoadReading[] => [
    { at: at(0), load: [load1, 0, 0] },
    { at: at(5), load: [load1, 0, 0] },
  ];
  const quiet = summarizeLoad(load(1.1), 2);
  const busy = summarizeLoad(load(3.1), 2);
  const halfBusy = summarizeLoad(load(1.9), 2);

  it('similar quiet loads, or nothing recorded: no recommendation', () => {
    assert.equal(recommendCpu(quiet, summarizeLoad(load(1.4), 2)), undefined);
    assert.equal(recommendCpu(undefined, undefined), undefined);
    assert.equal(recommendCpu(quiet, undefined), undefined);
  });
  it('one run busy: recommend, naming it', () => {
    assert.equal(busy.busy, true);
    assert.match(recommendCpu(quiet, busy)!, /busy while B ran: .*--metric cpu\.firstResponse/);
    assert.match(recommendCpu(busy, undefined)!, /busy while A ran/);
  });
  it('load per core differing by more than 0.5: recommend, with both figures', () => {
    assert.equal(halfBusy.busy, false);
    const idle = summarizeLoad(load(0.6), 2);
    assert.match(recommendCpu(idle, halfBusy)!, /load differed \(0\.30 per core in A, 0\.95 in B\)/);
    assert.equal(recommendCpu(quiet, halfBusy), undefined, '0.55 against 0.95 per core: close enough');
  });
});

describe('compare on first hits', () => {
  /** Samples of `c` whose K first hits took `latency` ms each (varied a little per sample), all warm at `warm`. */
  function withHits(c: Cell, latency: number, warm: number, count = 8): SampleRecord[] {
    return Array.from({ length: count }, (_, i) =>
      sampleOf(c, 100 + i, i + 1, {
        firstHits: { routes: [1, 2, 3], latencyMs: [latency + i * 0.1, latency + 0.05, latency - i * 0.1], allWarm: warm + i },
      }),
    );
  }

  it('a slower first hit per route is a regression on firstHits.latency, the time to all warm on firstHits.allWarm', () => {
    const hono = cell('hono', 100);
    const a = aggregate(withHits(hono, 2, 120));
    const b = aggregate(withHits(hono, 3, 160));
    const [latency, allWarm, first] = compareSummaries(a, b, ['firstHits.latency', 'firstHits.allWarm', 'firstResponse']).rows;
    assert.equal(latency!.metric, 'firstHits.latency');
    assert.equal(latency!.verdict, 'regression');
    assert.equal(latency!.a!.n, 24, 'every first hit of every sample');
    assert.ok(Math.abs(latency!.ratio! - 1.5) < 0.05, `ratio ${latency!.ratio}`);
    assert.equal(allWarm!.verdict, 'regression');
    assert.equal(allWarm!.a!.n, 8);
    assert.equal(first!.verdict, 'no significant change', 'the timed first answer did not move');
    assert.equal(parseMetricName('firstHits.allWarm'), 'firstHits.allWarm');
    assert.match(metricDescription('firstHits.latency'), /first request to each further route/);
  });

  it('a run without first hits (--first-hits 0, or an older run) is not comparable on them', () => {
    const a = aggregate(withHits(cell('hono', 100), 2, 120));
    const b = aggregate([sampleOf(cell('hono', 100), 100, 1)]);
    assert.equal(statsOf(b[0]!, 'firstHits.latency'), undefined);
    const row = compareSummaries(a, b, ['firstHits.latency']).rows[0]!;
    assert.equal(row.verdict, 'not comparable');
    assert.equal(row.notRecorded, 'B recorded no firstHits.latency', 'B had successful samples, just no first hits');
  });
});
