/**
 * The init lever (issue 41) as the planner expands it: a Lambda run's default is both modes; fastify's
 * eager cell runs its ES module in lambda/eager/, a framework with nothing documented to initialise has
 * its eager cell unsupported with the reason, the reference and the servers stay lazy (their keys and
 * labels as they were), and an eager file is bundled as an ES module.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { cellKey, cellLabel } from '../../metrics/core/cell.ts';
import type { PreparedCells } from '../../metrics/plan/cells.ts';
import { fakeCellSource } from '../../metrics/plan/fake-source.ts';
import { DEFAULT_SOURCE, runSpec } from '../../metrics/core/run-spec.ts';
import { loadGenerators } from '../../generators/registry.ts';

const quiet = () => undefined;

describe('--init as the planner expands it', () => {
  let prepared: PreparedCells;
  before(async () => {
    const spec = runSpec({
      cells: {
        node: process.execPath,
        targets: ['server', 'lambda'],
        memories: [],
        measures: ['time'],
        runtimes: ['node'],
        lambdaRuntimes: ['node'],
        builds: ['plain', 'bundle'],
        compileCaches: ['off'],
        bootstraps: ['probe'],
        fileCaches: ['warm'],
        lambdaReference: true,
      },
    });
    assert.deepEqual(spec.cells.inits, ['eager', 'lazy'], "a Lambda run's default: the documented practice and the other mode");
    const selection = { ...DEFAULT_SOURCE, frameworks: ['fastify', 'hono'], routes: [10], variants: ['validated' as const] };
    prepared = await fakeCellSource(selection, spec.cells).prepare(process.env, quiet);
  });

  const find = (label: string) => prepared.cells.find((c) => cellLabel(c.cell) === label);

  it("fastify's eager cell runs its ES module; its lazy one the file as it was", () => {
    const eager = find('lambda/eager/10-startup-fastify-routes.mjs');
    assert.ok(eager, prepared.cells.map((c) => cellLabel(c.cell)).join('\n'));
    assert.equal(eager.blocked, undefined);
    assert.match(eager.launch!.file, /generated\/lambda\/eager\/10-startup-fastify-routes\.mjs$/);
    assert.match(cellKey(eager.cell), /\|init=eager$/);
    const lazy = find('lambda/10-startup-fastify-routes.js')!;
    assert.doesNotMatch(cellKey(lazy.cell), /init=/, 'a lazy cell keeps the key it always had');
  });

  it("hono's eager cell is unsupported with the reason; servers and the reference are lazy only", async () => {
    const hono = find('lambda/eager/10-startup-hono-routes.mjs')!;
    const generator = (await loadGenerators('lambda')).find((g) => g.name === 'hono')!;
    assert.deepEqual(hono.blocked, { kind: 'unsupported', reason: generator.noEagerInit });
    assert.match(hono.blocked.reason, /matcher on the first request/);
    for (const { cell } of prepared.cells) {
      if (cell.target === 'server' || cell.framework === 'reference') assert.equal(cell.init, 'lazy', cellLabel(cell));
    }
  });

  it('every Lambda framework has an eager form or says why not in its own words (no generic reason)', async () => {
    const reasons = new Set<string>();
    for (const generator of await loadGenerators('lambda')) {
      if (generator.eagerInit) continue;
      assert.ok(generator.noEagerInit, `${generator.name}: neither eagerInit nor noEagerInit`);
      assert.match(generator.noEagerInit, /^no eager form: .*INIT/, generator.name);
      reasons.add(generator.noEagerInit);
    }
    // deepkit and deepkit-http share theirs (one framework, two setups); every other reason is its own
    assert.ok(reasons.size >= 7, [...reasons].join('\n'));
  });

  it("an eager file's bundle is an ES-module bundle of its own (generated/bundle/<node>/lambda/eager/….mjs)", () => {
    const bundled = prepared.cells.find((c) => c.cell.init === 'eager' && c.cell.framework === 'fastify' && c.cell.build === 'bundle')!;
    assert.equal(bundled.blocked, undefined);
    assert.match(bundled.launch!.file, /generated\/bundle\/node\d+\/lambda\/eager\/10-startup-fastify-routes\.mjs$/);
  });
});
