/**
 * Planning: the order of a run's samples (plan/order.ts), the lever product and which cells cannot
 * run (plan/levers.ts), every cell's resolved launch (plan/cells.ts) and the one launch builder
 * (plan/launch.ts). Nothing here measures a sample.
 */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { contractOf } from '../../generators/contract.ts';
import { cellFile, cellFilePath, cellKey, cellLabel, makeCell, type Cell } from '../../metrics/core/cell.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { bundlePath } from '../../metrics/plan/bundle.ts';
import { prepareCells, type PlannedCell, type PreparedCells } from '../../metrics/plan/cells.ts';
import { COMPILE_CACHE_ENV, launchOf, type CellLaunch } from '../../metrics/plan/launch.ts';
import { expandCells, prepareLevers } from '../../metrics/plan/levers.ts';
import { DEFAULT_SOURCE, DEFAULT_SPEC, type LeverSpec } from '../../metrics/core/run-spec.ts';
import { buildPlan, type PlannedRun } from '../../metrics/plan/order.ts';
import { resolveRuntimes } from '../../metrics/plan/runtimes.ts';
import { tempDir } from '../support/helpers.ts';
import type { Order } from '../../metrics/core/dimensions.ts';

function planned(cell: Cell, validates = true): PlannedCell {
  return {
    cell,
    launch: { command: process.execPath, file: cellFilePath(cell), compileCache: 'off' },
    blocked: undefined,
    contract: contractOf({}),
    validates,
  };
}

const runLabel = (r: PlannedRun) => `${r.phase[0]}${r.cell.routes}#${r.index}${r.checkInvalidBody ? '!' : ''}`;

describe('plan: the order of the runs', () => {
  const two = [
    planned(makeCell({ framework: 'fastify', variant: 'validated', routes: 10 })),
    planned(makeCell({ framework: 'fastify', variant: 'validated', routes: 100 })),
  ];
  const base = { samples: 2, warmup: 1, seed: 's', countSamples: 1 };
  const labels = (order: Order) => buildPlan(two, { ...base, order }).map(runLabel);

  it('warm-ups first, then sample 1 of every cell, then sample 2', () => {
    assert.deepEqual(labels('interleaved'), ['w10#1!', 'w100#1!', 's10#1', 's100#1', 's10#2', 's100#2']);
  });

  it('sequential keeps a cell together', () => {
    assert.deepEqual(labels('sequential'), ['w10#1!', 'w100#1!', 's10#1', 's10#2', 's100#1', 's100#2']);
  });

  it('every run carries its planned cell (launch, contract, validates) as given', () => {
    const plan = buildPlan(two, { ...base, order: 'interleaved' });
    for (const run of plan) {
      assert.ok(two.includes(run.planned));
      assert.equal(run.cell, run.planned.cell);
    }
  });

  describe('random', () => {
    // six cells × three samples: 18! orders, so a plan that is not shuffled cannot pass by chance
    const six = [1, 2, 3, 4, 5, 6].map((routes) => planned(makeCell({ framework: 'f', variant: 'validated', routes })));
    const plan = (order: Order, seed = 'coldstart') =>
      buildPlan(six, { samples: 3, warmup: 1, order, seed, countSamples: 1 }).map(runLabel);

    it('shuffles the timed samples: the order differs from interleaved and from another seed', () => {
      assert.notDeepEqual(plan('random').slice(6), plan('interleaved').slice(6));
      assert.notDeepEqual(plan('random').slice(6), plan('sequential').slice(6));
      assert.notDeepEqual(plan('random', 'coldstart'), plan('random', 'another seed'));
    });

    it('is repeatable: the same seed gives the same order', () => {
      assert.deepEqual(plan('random', 'coldstart'), plan('random', 'coldstart'));
    });

    it('is a permutation of the same runs, warm-ups still first in cell order', () => {
      assert.deepEqual([...plan('random')].sort(), [...plan('interleaved')].sort());
      assert.deepEqual(plan('random').slice(0, 6), plan('interleaved').slice(0, 6));
      assert.ok(
        plan('random')
          .slice(6)
          .every((l) => l.startsWith('s')),
      );
    });

    it("without warm-up the invalid-body check rides on each cell's first run in the shuffled order", () => {
      const runs = buildPlan(six, { samples: 3, warmup: 0, order: 'random', seed: 'coldstart', countSamples: 1 });
      for (const cell of six) {
        const mine = runs.filter((r) => r.planned === cell);
        assert.deepEqual(
          mine.map((r) => r.checkInvalidBody),
          [true, false, false],
          `${cellLabel(cell.cell)}: ${mine.map(runLabel).join(' ')}`,
        );
      }
      assert.ok(
        runs.some((r) => r.checkInvalidBody && r.index !== 1),
        'the shuffle moved some first runs away from sample 1',
      );
    });
  });

  it('without warm-up the invalid-body check rides on the first sample; never on a cell that does not validate', () => {
    const cells = [planned(two[0]!.cell, true), planned(two[1]!.cell, false)];
    const plan = buildPlan(cells, { ...base, warmup: 0, order: 'interleaved' });
    assert.deepEqual(
      plan.filter((r) => r.checkInvalidBody).map((r) => `${r.cell.routes}#${r.index}`),
      ['10#1'],
    );
  });
});

describe('levers: the product of the cells', () => {
  it('expandCells multiplies every cell by every lever value, runtime outermost', () => {
    const cells = expandCells([makeCell({ framework: 'a', variant: 'validated', routes: 1 })], {
      ...DEFAULT_SPEC.cells,
      runtimes: ['node', 'bun'],
      builds: ['plain', 'bundle'],
      compileCaches: ['off', 'cold', 'warm'],
    });
    assert.equal(cells.length, 12);
    assert.equal(new Set(cells.map(cellKey)).size, 12);
    assert.deepEqual(
      cells.slice(0, 4).map((c) => `${c.runtime} ${c.build} ${c.compileCache}`),
      ['node plain off', 'node plain cold', 'node plain warm', 'node bundle off'],
    );
  });
});

/**
 * A stand-in `node` that only says who it is (so a test can be any Node line on any machine): its
 * version to `--version`, and to `-p` what a real node prints for the runtime check.
 */
function fakeNode(version: string): string {
  const file = path.join(tempDir('coldstart-fake-node-'), 'node');
  const identity = JSON.stringify({ release: 'node', node: version.replace(/^v/, '') });
  writeFileSync(file, `#!/bin/sh\nif [ "$1" = "-p" ]; then echo '${identity}'; else echo ${version}; fi\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('prepareLevers: which cells cannot run', () => {
  const base = [makeCell({ framework: 'node-http', variant: 'validated', routes: 1 })];
  const lists: LeverSpec = { ...DEFAULT_SPEC.cells, runtimes: ['node'], builds: ['plain'], compileCaches: ['off', 'cold', 'warm'] };

  it('a node before 22.1 has no compile cache: its cold and warm cells are "unsupported", said once', async () => {
    const logs: string[] = [];
    const runtimes = resolveRuntimes(lists.runtimes, fakeNode('v20.0.0'), childEnvironment().env, () => undefined);
    const levers = await prepareLevers(base, lists, { runtimes, log: (l) => logs.push(l) });
    assert.equal(levers.cells.length, 3);
    const blocked = levers.cells.filter((c) => levers.blocked.has(cellKey(c)));
    assert.deepEqual(
      blocked.map((c) => c.compileCache),
      ['cold', 'warm'],
    );
    for (const c of blocked) {
      const why = levers.blocked.get(cellKey(c))!;
      assert.equal(why.kind, 'unsupported');
      assert.match(why.reason, /NODE_COMPILE_CACHE needs Node >= 22\.1; this is node v20\.0\.0/);
    }
    assert.equal(logs.filter((l) => /compile cache unsupported/.test(l)).length, 1, logs.join('\n'));
    assert.equal(levers.files.get(cellKey(levers.cells[0]!)), cellFilePath(base[0]!), 'the off cell runs the generated file');
  });

  it('a node from 22.1 measures every compile-cache cell', async () => {
    const runtimes = resolveRuntimes(lists.runtimes, fakeNode('v22.1.0'), childEnvironment().env, () => undefined);
    const levers = await prepareLevers(base, lists, { runtimes, log: () => undefined });
    assert.equal(levers.blocked.size, 0);
    assert.equal(levers.files.size, 3);
  });
});

describe('prepareCells: every cell with its resolved launch', () => {
  let prepared: PreparedCells;
  let node: string;
  before(async () => {
    node = fakeNode('v20.0.0');
    prepared = await prepareCells(
      { ...DEFAULT_SOURCE, frameworks: ['node-http'], routes: [1], variants: ['validated', 'plain'] },
      { ...DEFAULT_SPEC.cells, node, runtimes: ['node'], builds: ['plain', 'bundle'], compileCaches: ['off', 'cold'] },
      childEnvironment().env,
      () => undefined,
    );
  });
  const find = (variant: string, build: string, compileCache: string) =>
    prepared.cells.find((p) => p.cell.variant === variant && p.cell.build === build && p.cell.compileCache === compileCache)!;

  it('one planned cell per framework × variant × N × lever value', () => {
    assert.equal(prepared.cells.length, 2 * 2 * 2);
    assert.deepEqual(
      prepared.selected.map((g) => g.name),
      ['node-http'],
    );
  });

  it('a plain cell runs the generated file with the runtime binary; a bundle cell runs its bundle', () => {
    const plain = find('validated', 'plain', 'off');
    assert.deepEqual(plain.launch, { command: node, file: cellFilePath(plain.cell), compileCache: 'off' } satisfies CellLaunch);
    const bundled = find('validated', 'bundle', 'off');
    assert.equal(bundled.launch?.file, bundlePath(cellFile(bundled.cell), 'node20', 'bundle'));
    assert.equal(bundled.blocked, undefined);
  });

  it('a blocked cell has no launch and says why', () => {
    const cold = find('validated', 'plain', 'cold');
    assert.equal(cold.launch, undefined);
    assert.equal(cold.blocked?.kind, 'unsupported');
  });

  it("the validated variant must reject an invalid body, node-http's plain one need not", () => {
    assert.equal(find('validated', 'plain', 'off').validates, true);
    assert.equal(find('plain', 'plain', 'off').validates, false);
  });
});

describe('launchOf: the one launch builder', () => {
  const cell: CellLaunch = { command: '/bin/runtime', file: '/app/server.js', compileCache: 'off' };
  const parent = { ...childEnvironment().env, [COMPILE_CACHE_ENV]: '/parent/cache' };

  it("off: the runtime on the file, in the given folder, never with the parent's compile cache", () => {
    const launch = launchOf(cell, '/scratch', parent);
    assert.deepEqual(launch, {
      command: '/bin/runtime',
      args: ['/app/server.js'],
      cwd: '/scratch',
      env: childEnvironment().env,
      file: '/app/server.js',
    });
    assert.equal(launch.env[COMPILE_CACHE_ENV], undefined);
    assert.equal(parent[COMPILE_CACHE_ENV], '/parent/cache', 'the given environment is not changed');
  });

  it('cold and warm point NODE_COMPILE_CACHE at the directory they are given, and need one', () => {
    for (const compileCache of ['cold', 'warm'] as const) {
      assert.equal(launchOf({ ...cell, compileCache }, '/scratch', parent, '/cache/dir').env[COMPILE_CACHE_ENV], '/cache/dir');
      assert.throws(
        () => launchOf({ ...cell, compileCache }, '/scratch', parent),
        new RegExp(`a ${compileCache} compile cache cell needs a cache directory`),
      );
    }
  });
});

describe('prepareCells: a shape the framework cannot be written in', () => {
  it('is unsupported with its reason and no launch (restify has no route grouping), the other shape runs', async () => {
    const prepared = await prepareCells(
      { ...DEFAULT_SOURCE, frameworks: ['restify'], routes: [1], variants: ['validated'], shapes: ['flat', 'nested'] },
      { ...DEFAULT_SPEC.cells, node: process.execPath, runtimes: ['node'], builds: ['plain'], compileCaches: ['off'] },
      childEnvironment().env,
      () => undefined,
    );
    const byShape = new Map(prepared.cells.map((p) => [p.cell.shape, p]));
    const nested = byShape.get('nested')!;
    assert.equal(nested.launch, undefined);
    assert.equal(nested.blocked?.kind, 'unsupported');
    assert.match(nested.blocked.reason, /no route grouping/);
    assert.equal(byShape.get('flat')!.blocked, undefined);
    assert.ok(byShape.get('flat')!.launch);
  });
});
