/**
 * Counted cells without valgrind: the dumps become counts per mark (and a wrong number of cuts a
 * failed sample), counted cells get their own samples and no warm-up, --jobs is refused beside
 * timed cells, shards partition the cells, and compare flags a 1 % change of a count from one
 * sample a side but not the spread of repeated counts. Summaries and summary.csv carry the counts
 * only when a run has them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { compareSummaries } from '../../metrics/analyse/compare.ts';
import { instructionFigures } from '../../metrics/analyse/instructions.ts';
import { countsFromDumps, estimatedCycles, parseDump, type Dump } from '../../metrics/measure/counting.ts';
import { parseShard } from '../../metrics/core/parse.ts';
import { resolveJobs, shardCells } from '../../metrics/pipeline/jobs.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { uncountable, type PlannedCell } from '../../metrics/plan/cells.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import { buildPlan } from '../../metrics/plan/order.ts';
import { summaryCsv } from '../../metrics/report/csv.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import type { Measure } from '../../metrics/core/dimensions.ts';
import { cell, sampleOf } from '../support/synthetic.ts';

const cut = (instructions: number): Dump => ({ trigger: '--dump-before=getrusage', instructions });

describe('dumps to counts', () => {
  it('reads the trigger and the totals of a callgrind file', () => {
    const text = 'version: 1\ncreator: callgrind-3.19.0\ndesc: Trigger: --dump-before=getrusage\nevents: Ir\nsummary: 1234\ntotals: 1234\n';
    assert.deepEqual(parseDump(text), { trigger: '--dump-before=getrusage', instructions: 1234 });
    assert.equal(parseDump('desc: Trigger: x\n'), undefined);
  });

  it("reads the cache simulation's events: Ir is the instructions, the misses give estimated cycles", () => {
    const text =
      'desc: Trigger: --dump-before=getrusage\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n' +
      'summary: 1000 400 200 10 20 5 1 2 3\ntotals: 1000 400 200 10 20 5 1 2 3\n';
    // 1000 + 10 × (10 + 20 + 5) + 100 × (1 + 2 + 3)
    assert.deepEqual(parseDump(text), { trigger: '--dump-before=getrusage', instructions: 1000, cycles: 1950 });
    assert.equal(estimatedCycles({ Ir: 5, I1mr: 1 }), undefined, 'not the cache simulation: no estimate');
    const dumps = [parseDump(text)!, { ...parseDump(text)!, cycles: 50 }];
    assert.deepEqual(countsFromDumps([...dumps, cut(1), cut(1), cut(1)], 'server', 'cycles'), "callgrind's dump 3 has no cycles");
  });

  it('a server: five cuts, cumulative counts at start, imported, startup, listen, firstResponse', () => {
    const counts = countsFromDumps([cut(100), cut(50), cut(10), cut(20), cut(5)], 'server');
    assert.deepEqual(counts, { start: 100, imported: 150, startup: 160, listen: 180, firstResponse: 185 });
    assert.deepEqual(instructionFigures(counts as Record<string, number>), {
      boot: 100,
      import: 50,
      registration: 10,
      listen: 20,
      firstRequest: 5,
      total: 185,
    });
  });

  it('a Lambda handler: the runner cut at the first GET next is INIT', () => {
    const dumps = [cut(100), cut(50), cut(10), { trigger: 'dump coldstart-init', instructions: 30 }, cut(7)];
    const counts = countsFromDumps(dumps, 'lambda');
    assert.deepEqual(counts, { start: 100, imported: 150, startup: 160, init: 190, firstResponse: 197 });
    assert.equal(instructionFigures(counts as Record<string, number>).init, 30);
  });

  it('a wrong number of cuts (the child called getrusage itself, or died early) is a reason, not counts', () => {
    const reason = (dumps: Dump[], target: 'server' | 'lambda') => {
      const counts = countsFromDumps(dumps, target);
      assert.equal(typeof counts, 'string');
      return counts as string;
    };
    assert.match(reason([cut(1), cut(2), cut(3), cut(4)], 'server'), /expected 5 cuts .* wrote 4/);
    assert.match(reason([cut(1), cut(2), cut(3), cut(4), cut(5), cut(6)], 'server'), /wrote 6/);
    assert.match(reason([cut(1), cut(2), cut(3), cut(4), cut(5)], 'lambda'), /init/);
  });
});

const planned = (measure: Measure, framework = 'node-http', routes = 1): PlannedCell => ({
  cell: cell(framework, routes, { measure }),
  launch: { command: 'node', file: 'x.js', compileCache: 'off' },
  blocked: undefined,
  contract: {} as PlannedCell['contract'],
  validates: false,
});

describe('plan, jobs and shards', () => {
  it('counted cells take --count-samples and no warm-up; timed cells keep theirs', () => {
    const plan = buildPlan([planned('time'), planned('instructions')], {
      samples: 3,
      warmup: 1,
      order: 'interleaved',
      seed: 's',
      countSamples: 2,
    });
    const of = (measure: string, phase: string) => plan.filter((r) => r.cell.measure === measure && r.phase === phase).length;
    assert.equal(of('time', 'warmup'), 1);
    assert.equal(of('time', 'sample'), 3);
    assert.equal(of('instructions', 'warmup'), 0);
    assert.equal(of('instructions', 'sample'), 2);
  });

  it('--jobs above 1 is refused beside timed cells; without it counted runs use the cores', () => {
    assert.throws(() => resolveJobs(2, [planned('time'), planned('instructions')]), UsageError);
    assert.equal(resolveJobs('auto', [planned('time'), planned('instructions')]), 1);
    assert.ok(resolveJobs('auto', [planned('instructions')]) >= 1);
    assert.equal(resolveJobs(3, [planned('instructions')]), 3);
  });

  it('shards are disjoint, cover every cell and are the same on every call', () => {
    const cells = Array.from({ length: 11 }, (_, i) => i);
    const parts = [1, 2, 3].map((index) => shardCells(cells, { index, count: 3 }));
    assert.deepEqual(
      parts.flat().sort((a, b) => a - b),
      cells,
    );
    assert.deepEqual(shardCells(cells, { index: 2, count: 3 }), parts[1]);
    assert.deepEqual(parseShard('2/4'), { index: 2, count: 4 });
    for (const bad of ['0/2', '3/2', '1/0', 'x', '1/']) assert.throws(() => parseShard(bad), UsageError, bad);
  });
});

function counted(framework: string, total: number, index = 1): SampleRecord {
  const c = cell(framework, 100, { measure: 'instructions' });
  return sampleOf(c, 5000, index, {
    instructions: { start: 0.1 * total, imported: 0.5 * total, startup: 0.7 * total, listen: 0.9 * total, firstResponse: total },
  });
}

describe('counts in the summaries and in compare', () => {
  it('compare flags a 1 % larger count from one sample a side, and not a 0.05 % one', () => {
    const a = aggregate([counted('fastify', 1e9), counted('hono', 1e9)]);
    const b = aggregate([counted('fastify', 1.01e9), counted('hono', 1.0005e9)]);
    const comparison = compareSummaries(a, b, ['instructions', 'instructions.import', 'firstResponse'], 1.005);
    const verdict = (framework: string, metric: string) =>
      comparison.rows.find((r) => r.cell.framework === framework && r.metric === metric)?.verdict;
    assert.equal(verdict('fastify', 'instructions'), 'regression');
    assert.equal(verdict('fastify', 'instructions.import'), 'regression');
    assert.equal(verdict('hono', 'instructions'), 'no significant change');
    assert.ok(comparison.rows.find((r) => r.cell.framework === 'fastify' && r.metric === 'instructions')?.fails);
    // wall metrics belong to timed cells: a counted cell gets no firstResponse row
    assert.equal(
      comparison.rows.some((r) => r.metric === 'firstResponse'),
      false,
    );
  });

  it("a cell's own spread widens the threshold", () => {
    const a = aggregate([counted('fastify', 1e9, 1), counted('fastify', 1.01e9, 2)]);
    const b = aggregate([counted('fastify', 1.012e9)]);
    const row = compareSummaries(a, b, ['instructions']).rows[0]!;
    assert.equal(row.verdict, 'no significant change');
    assert.ok(row.threshold! > 0.019);
  });

  it('summary.csv has instruction columns only when the run has counted cells', () => {
    const timed = aggregate([sampleOf(cell('hono', 1), 100)]);
    assert.doesNotMatch(summaryCsv(timed, () => 'f').split('\n')[0]!, /instructions/);
    const both = aggregate([sampleOf(cell('hono', 1), 100), counted('hono', 2e8)]);
    const [header, ...rows] = summaryCsv(both, () => 'f')
      .trim()
      .split('\n');
    // the instruction columns, then (samples with a start mark) startup and listen from the first statement
    assert.match(
      header!,
      /measure.*instructions_boot_median.*instructions_total_spread,startup_from_start_median_ms,.*listen_from_start_outliers$/,
    );
    assert.match(
      rows.find((r) => r.includes(',instructions,'))!,
      /,200000000,200000000,200000000,0,/,
    );
  });
});

describe('which cells can be counted', () => {
  const lambda = makeCell({ framework: 'node-http', variant: 'validated', routes: 1, target: 'lambda', measure: 'instructions' });
  it('a Lambda cell only under the probe and from a warm file cache, with the option to use in the reason', () => {
    assert.match(uncountable({ ...lambda, bootstrap: 'ric', fileCache: 'warm' }, 'node') ?? '', /--lambda-bootstrap probe/);
    assert.match(uncountable({ ...lambda, bootstrap: 'probe', fileCache: 'cold' }, 'node') ?? '', /--file-cache warm/);
    assert.equal(uncountable({ ...lambda, bootstrap: 'probe', fileCache: 'warm' }, 'node'), undefined);
    assert.equal(uncountable({ ...lambda, measure: 'time', bootstrap: 'ric', fileCache: 'cold' }, 'node'), undefined);
  });
});
