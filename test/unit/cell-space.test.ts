/**
 * core/cell-space.ts: the cells are made from the table's rows and the spec, with the exclusions as
 * data rows, for every caller alike; verify's spec re-measures a floor at every planned dimension of it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cellKey, makeCell, type Cell, type CellFields } from '../../metrics/core/cell.ts';
import { cellsOf, ROW_EXCLUSIONS, listsOfCell, plannedDimensions, stageDimensions } from '../../metrics/core/cell-space.ts';
import { DIMENSION_TABLE } from '../../metrics/core/dimensions.ts';
import { runSpec, selectionRefusal } from '../../metrics/core/run-spec.ts';
import { verifySpec } from '../../metrics/pipeline/verify.ts';

const STAGES = ['file', 'version', 'run', 'lever'] as const;
const ALL = STAGES.flatMap((stage) => stageDimensions(stage));

/** Every cell a spec plans, through every stage, each made whole. */
function planned(spec: ReturnType<typeof runSpec>): Cell[] {
  const lists = { ...spec.source, ...spec.cells };
  return cellsOf([{}], ALL, lists).map((fields) => makeCell(fields as CellFields));
}

describe('cellsOf', () => {
  it('multiplies by every planned row of the table, each stage in the table order, a stage after the other', () => {
    // every row but `source` (the command sets it) is planned, and in exactly one stage
    assert.deepEqual(
      [...ALL].sort(),
      Object.keys(DIMENSION_TABLE)
        .filter((d) => d !== 'source')
        .sort(),
    );
    assert.deepEqual(plannedDimensions().sort(), [...ALL].sort());
    const spec = runSpec({
      source: { kind: 'generated', frameworks: ['a', 'b'], routes: [1, 10], variants: ['validated'], shapes: ['flat'], schemas: ['small'] },
      cells: { measures: ['time', 'instructions'], builds: ['plain', 'bundle'] },
    });
    const cells = planned(spec);
    assert.equal(cells.length, 2 * 2 * 2 * 2);
    // the first row varies slowest: framework, then routes, then (run stage) measure, then (lever stage) build
    assert.deepEqual(
      cells.slice(0, 4).map((c) => [c.framework, c.routes, c.measure, c.build]),
      [
        ['a', 1, 'time', 'plain'],
        ['a', 1, 'time', 'bundle'],
        ['a', 1, 'instructions', 'plain'],
        ['a', 1, 'instructions', 'bundle'],
      ],
    );
    assert.equal(new Set(cells.map(cellKey)).size, cells.length);
  });

  it('holds the excluded rows at their stored value: a server has no eager form and starts as itself', () => {
    const cells = planned(
      runSpec({
        source: { kind: 'generated', frameworks: ['a'], routes: [1], variants: ['plain'], shapes: ['flat'], schemas: ['small'] },
        cells: { targets: ['server', 'lambda'], inits: ['eager', 'lazy'], bootstraps: ['ric', 'probe'] },
      }),
    );
    const servers = cells.filter((c) => c.target === 'server');
    const lambdas = cells.filter((c) => c.target === 'lambda');
    assert.deepEqual([...new Set(servers.map((c) => `${c.init}/${c.bootstrap}`))], ['lazy/probe']);
    assert.equal(lambdas.length, 4, 'a Lambda cell is multiplied by both lists');
    assert.ok(ROW_EXCLUSIONS.every((e) => e.why.length > 0 && e.dimension in DIMENSION_TABLE));
  });

  it("a user's handler has an eager form only when the caller says it has (--init-export)", () => {
    const base = makeCell({ framework: 'h', variant: 'plain', routes: 1, target: 'lambda', source: 'app' });
    const lists = { inits: ['eager', 'lazy'] };
    const without = cellsOf([base], ['init'], lists);
    const withExport = cellsOf([base], ['init'], lists, { facts: { eagerForm: () => true } });
    assert.deepEqual(
      without.map((c) => c.init),
      ['lazy'],
    );
    assert.deepEqual(
      withExport.map((c) => c.init),
      ['eager', 'lazy'],
    );
  });

  it('an empty list of a row without a default is its stored value; by-target is the target default', () => {
    const cells = cellsOf([{ target: 'server' }, { target: 'lambda' }], ['memory', 'version', 'fileCache'], {
      memories: [],
      versions: [],
      fileCaches: 'by-target',
    });
    assert.deepEqual(
      cells.map((c) => [c.target, c.memory, c.version, c.fileCache]),
      [
        ['server', 0, 'installed', 'warm'],
        ['lambda', 0, 'installed', 'cold'],
      ],
    );
  });

  it('selectionRefusal reads the same cells: bun cells only cannot be counted', () => {
    assert.match(
      selectionRefusal(runSpec({ cells: { measures: ['instructions'], runtimes: ['bun'] } })) ?? '',
      /instructions are counted for node runtimes only/,
    );
    assert.equal(selectionRefusal(runSpec({ cells: { measures: ['instructions'], runtimes: ['bun', 'node'] } })), undefined);
  });
});

describe("verify's spec", () => {
  const floors: Cell[] = [
    makeCell({ framework: 'fastify', variant: 'validated', routes: 1 }),
    makeCell({ framework: 'fastify', variant: 'validated', routes: 1, version: 'fastify@4.28.1', build: 'bundle' }),
    makeCell({
      framework: 'fastify',
      variant: 'plain',
      routes: 1,
      target: 'lambda',
      memory: 1024,
      runtime: 'nodejs22.x',
      bootstrap: 'probe',
      fileCache: 'warm',
      init: 'eager',
      shape: 'params',
      schema: 'user',
    }),
    makeCell({ framework: 'fastify', variant: 'validated', routes: 1, measure: 'instructions', runtime: 'node22', compileCache: 'warm' }),
  ];
  for (const floor of floors) {
    it(`plans exactly the floor's cell at each framework and route count: ${cellKey(floor)}`, () => {
      const other = { ...floor, framework: 'koa', routes: 100 };
      const spec = verifySpec(undefined, floor, [floor, other], { published: 'p', command: 'c' });
      const keys = planned(spec).map(cellKey);
      // before: a floor at a version was re-measured at the installed one, an eager floor beside its lazy cell
      assert.deepEqual(keys.sort(), [floor, { ...floor, routes: 100 }, { ...other, routes: 1 }, other].map(cellKey).sort());
    });
  }

  it('lists the floor value of every planned row, none for an excluded one', () => {
    const floor = floors[1]!;
    const lists = listsOfCell(floor);
    assert.deepEqual(lists.versions, ['fastify@4.28.1']);
    assert.deepEqual(lists.memories, [], 'memory 0: no limits');
    assert.equal(lists.bootstraps, undefined, 'a server has no bootstrap to choose');
    assert.equal(lists.lambdaRuntimes, undefined, "a server's runtime is --runtime's");
  });
});
