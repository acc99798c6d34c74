/**
 * The fake sampler and the fake cell source: the real expansion of a run's cells without an effect
 * outside the process, and records that are a seeded function of the cell, with the real runner's
 * reasons for scripted failures.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { cellKey, cellLabel } from '../../metrics/core/cell.ts';
import { parseSampleRecord } from '../../metrics/core/samples.ts';
import { FakeSampler, fakeFirstResponse, parseFakeScript } from '../../metrics/measure/sampler/fake.ts';
import type { PreparedCells } from '../../metrics/plan/cells.ts';
import { fakeCellSource } from '../../metrics/plan/fake-source.ts';
import { DEFAULT_SOURCE, DEFAULT_SPEC, runSpec } from '../../metrics/core/run-spec.ts';
import { buildPlan, type PlannedRun } from '../../metrics/plan/order.ts';
import { blockedRecord } from '../../metrics/measure/sample.ts';
import { aggregate } from '../../metrics/analyse/aggregate.ts';

const context = { timeoutMs: 1000, firstHits: 0 };
const quiet = () => undefined;

describe('the fake cell source', () => {
  let prepared: PreparedCells;
  before(async () => {
    const spec = runSpec({
      cells: {
        node: process.execPath,
        targets: ['server', 'lambda'],
        memories: [0, 512],
        measures: ['time', 'instructions'],
        runtimes: ['node'],
        builds: ['plain', 'bundle', 'bundle-min'],
        compileCaches: ['off'],
        bootstraps: ['probe'],
        // lazy only: the eager files are another test's (init-lever.test.ts)
        inits: ['lazy'],
        fileCaches: ['warm'],
        lambdaReference: false,
      },
    });
    const selection = { ...DEFAULT_SOURCE, frameworks: ['node-http', 'fastify'], routes: [1, 100], variants: ['validated' as const] };
    prepared = await fakeCellSource(selection, spec.cells).prepare(process.env, quiet);
  });

  it('expands frameworks × routes × targets × memory sizes × measures × builds, as prepareCells does', () => {
    assert.deepEqual(
      prepared.selected.map((g) => g.name),
      ['node-http', 'fastify'],
    );
    assert.equal(prepared.cells.length, 2 * 2 * 2 * 2 * 2 * 3);
    assert.equal(new Set(prepared.cells.map((c) => cellKey(c.cell))).size, prepared.cells.length, 'every cell once');
  });

  it('says why a cell cannot be counted, and gives every other cell a launch it did not build', () => {
    for (const { cell, launch, blocked } of prepared.cells) {
      if (cell.measure === 'instructions' && cell.memory > 0) {
        assert.deepEqual(blocked, {
          kind: 'unsupported',
          reason: 'instruction counts do not depend on the CPU share or memory limit of a memory size (--lambda-memory)',
        });
        assert.equal(launch, undefined);
      } else {
        assert.equal(blocked, undefined, cellLabel(cell));
        // a Lambda cell runs on its line's pinned node (nodejs24.x: node24), named where it would be installed
        assert.match(launch!.command, cell.target === 'lambda' ? /\.runtimes\/node24\// : /^/);
        if (cell.target === 'server') assert.equal(launch!.command, process.execPath);
        // a minified bundle has its own folder: the two bundles of one file never overwrite each other
        const where = {
          plain: /generated\/(?!bundle\/)/,
          bundle: /generated\/bundle\/node\d+\//,
          'bundle-min': /generated\/bundle\/node\d+-min\//,
          // not in this run: a generated cell has no snapshot build (an app's is under node<N>-snapshot/<runtime>/)
          snapshot: /generated\/bundle\/node\d+-snapshot\//,
        };
        assert.match(launch!.file, where[cell.build]);
      }
    }
  });

  it('the running node, recorded as resolveRuntimes records it, without running it', () => {
    const node = prepared.levers.runtimes.get('node')!;
    assert.equal(node.version, process.version);
    assert.equal(node.source, 'the node running coldstart');
  });

  it('an unknown framework is the same usage error as a real run', async () => {
    await assert.rejects(
      fakeCellSource({ ...DEFAULT_SOURCE, frameworks: ['nope'], routes: [1] }, DEFAULT_SPEC.cells).prepare(process.env, quiet),
      /unknown framework "nope"/,
    );
  });

  describe('the fake sampler on those cells', () => {
    let plan: PlannedRun[];
    before(() => {
      plan = buildPlan(prepared.cells, { samples: 3, warmup: 1, order: 'interleaved', seed: 'x', countSamples: 2 });
    });

    it('an unsupported cell is planned once (one record with the reason), the others get their warm-ups and samples', () => {
      for (const planned of prepared.cells) {
        const runs = plan.filter((run) => run.planned === planned);
        const counted = planned.cell.measure === 'instructions';
        if (planned.blocked?.kind === 'unsupported') {
          assert.deepEqual(
            runs.map((r) => [r.phase, r.index]),
            [['sample', 1]],
            cellLabel(planned.cell),
          );
        } else {
          assert.equal(runs.filter((r) => r.phase === 'warmup').length, counted ? 0 : 1, cellLabel(planned.cell));
          assert.equal(runs.filter((r) => r.phase === 'sample').length, counted ? 2 : 3, cellLabel(planned.cell));
        }
      }
      assert.ok(
        prepared.cells.some((c) => c.blocked?.kind === 'unsupported'),
        'the run has unsupported cells',
      );
    });

    it("an older folder's unsupported record per warm-up and sample reads as the one record does", () => {
      const planned = prepared.cells.find((c) => c.blocked?.kind === 'unsupported')!;
      const record = (phase: 'warmup' | 'sample', index: number) => ({
        ...blockedRecord({ cell: planned.cell, phase, index }, planned.blocked!),
        at: '2026-11-27T11:28:28.343Z',
      });
      const one = aggregate([record('sample', 1)]);
      const many = aggregate([record('warmup', 1), ...[1, 2, 3, 4, 5].map((i) => record('sample', i))]);
      assert.deepEqual(many, one);
      assert.equal(one[0]!.unsupported, planned.blocked!.reason);
      assert.equal(one[0]!.failed, 0);
    });

    it('every record is one samples.jsonl would take, and the same every time', async () => {
      const first = new FakeSampler();
      const again = new FakeSampler();
      for (const run of plan) {
        const record = await first.measure(run, context);
        assert.deepEqual(await again.measure(run, context), record);
        const parsed = parseSampleRecord(JSON.parse(JSON.stringify(record)));
        assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
      }
      assert.deepEqual(first.calls, plan, 'calls keeps the run order');
    });

    it('marks: base + perRoute × routes, jittered; counted cells exact instruction counts; Lambda and limits figures', async () => {
      const sampler = new FakeSampler({ cv: 0.05 });
      const records = await Promise.all(plan.map((run) => sampler.measure(run, context)));
      for (const record of records) {
        const { cell } = record;
        if (!record.ok) {
          assert.ok(record.unsupported, `${cellLabel(cell)}: only uncountable cells fail`);
          continue;
        }
        const marks = record.marks!;
        const counted = cell.measure === 'instructions';
        if (!counted) assert.ok(Math.abs(marks.firstResponse / fakeFirstResponse(cell) - 1) < 0.4, cellLabel(cell));
        assert.ok(marks.start! < marks.imported! && marks.imported! < marks.startup!, 'phases in order');
        if (cell.target === 'lambda') {
          assert.ok(marks.init! < marks.firstResponse && marks.listen === undefined);
          assert.equal(record.lambda?.initMs, marks.init);
          assert.equal(record.lambda?.memorySizeMB, cell.memory || 1024);
        } else {
          assert.ok(marks.listen! < marks.firstResponse && record.lambda === undefined);
        }
        assert.equal(record.limits !== undefined, cell.memory > 0 && !counted);
        assert.equal(record.instructions !== undefined, counted);
      }
      const counts = records.filter((r) => r.instructions).map((r) => `${cellKey(r.cell)} ${JSON.stringify(r.instructions)}`);
      assert.equal(new Set(counts).size, counts.length / 2, 'the two counted samples of a cell agree exactly');
      const more = fakeFirstResponse(prepared.cells.find((c) => c.cell.routes === 100)!.cell);
      const fewer = fakeFirstResponse(prepared.cells.find((c) => c.cell.routes === 1)!.cell);
      assert.ok(more > fewer, 'more routes take longer');
    });

    it('cv 0: every sample of a cell is the same', async () => {
      const sampler = new FakeSampler({ cv: 0 });
      const timed = plan.filter((r) => r.cell.measure === 'time' && r.phase === 'sample' && r.cell.memory === 0);
      const byCell = new Map<string, Set<number>>();
      for (const run of timed) {
        const record = await sampler.measure(run, context);
        byCell.set(cellKey(run.cell), (byCell.get(cellKey(run.cell)) ?? new Set()).add(record.marks!.firstResponse));
      }
      for (const [key, values] of byCell) assert.equal(values.size, 1, key);
    });

    it('scripted failures fail with the real runner reasons', async () => {
      const run = plan.find(
        (r) => r.phase === 'sample' && r.cell.framework === 'fastify' && r.cell.routes === 100 && r.cell.target === 'server',
      )!;
      const failed = async (failure: 'crash' | 'hang' | 'wrong') =>
        new FakeSampler({ fail: { fastify: failure } }).measure(run, { timeoutMs: 30_000, firstHits: 0 });
      const crash = await failed('crash');
      assert.equal(crash.ok, false);
      assert.equal(crash.error, 'exited with code 1 before it was ready: Error: fake crash');
      assert.equal(crash.stderrTail, 'Error: fake crash');
      const hang = await failed('hang');
      assert.equal(hang.error, 'no ready line within 30000 ms (hung or too slow)');
      assert.equal(hang.durationMs, 30_000);
      const wrong = await failed('wrong');
      assert.match(wrong.error!, /^wrong answer from (GET|POST) \/\S+: 500 \{"error":"fake wrong answer"\}$/);
      const scripted = await new FakeSampler({ script: (r) => (r.index === run.index ? 'hang' : undefined) }).measure(run, context);
      assert.match(scripted.error!, /^no ready line within 1000 ms/);
      const changed = await new FakeSampler({ script: (_r, record) => ({ ...record, rss: 1 }) }).measure(run, context);
      assert.equal(changed.rss, 1);
    });

    it('interruptAfter n: the interrupt comes with the run after the n-th, once', async () => {
      let interrupts = 0;
      const sampler = new FakeSampler({ interruptAfter: 2, interrupt: () => interrupts++ });
      for (const [i, run] of plan.slice(0, 5).entries()) {
        await sampler.measure(run, context);
        assert.equal(interrupts, i >= 2 ? 1 : 0);
      }
    });
  });
});

describe('the --debug-mode script', () => {
  it('reads failures per framework, an interrupt and the jitter', () => {
    assert.deepEqual(parseFakeScript(''), { fail: {} });
    assert.deepEqual(parseFakeScript('crash=fastify,wrong=express,interrupt-after=3,cv=0'), {
      fail: { fastify: 'crash', express: 'wrong' },
      interruptAfter: 3,
      cv: 0,
    });
    assert.match(parseFakeScript('explode=fastify') as string, /"explode=fastify" is not crash=/);
  });
});
