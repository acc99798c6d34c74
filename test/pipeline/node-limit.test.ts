/**
 * A framework that cannot load on a Node line is unsupported when its cells are planned (issue 41):
 * restify 11 loads http-deceiver through spdy, which calls process.binding('http_parser'), removed in
 * Node 24. Its cells on nodejs24.x (and a server on node24) say so, its cells on nodejs22.x run, and a
 * restify major past the limit (given by --versions) runs on Node 24 too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cellLabel } from '../../metrics/core/cell.ts';
import type { PreparedCells } from '../../metrics/plan/cells.ts';
import { fakeCellSource } from '../../metrics/plan/fake-source.ts';
import { DEFAULT_SOURCE, runSpec } from '../../metrics/core/run-spec.ts';
import { RESTIFY_NODE_LIMIT } from '../../generators/server/restify.ts';

const quiet = () => undefined;

async function plan(frameworks: string[], versions: string[] = []): Promise<PreparedCells> {
  const spec = runSpec({
    cells: {
      node: process.execPath,
      targets: ['server', 'lambda'],
      memories: [],
      measures: ['time'],
      runtimes: ['node22', 'node24'],
      lambdaRuntimes: ['nodejs22.x', 'nodejs24.x'],
      builds: ['plain'],
      compileCaches: ['off'],
      bootstraps: ['ric'],
      fileCaches: ['warm'],
      inits: ['lazy'],
      lambdaReference: false,
      versions,
    },
  });
  const selection = { ...DEFAULT_SOURCE, frameworks, routes: [10], variants: ['validated' as const] };
  return fakeCellSource(selection, spec.cells).prepare(process.env, quiet);
}

describe('a framework × Node line that cannot load is unsupported at plan time', () => {
  it("restify on Node 24 (nodejs24.x, node24) is unsupported with http_parser's reason; on Node 22 it runs", async () => {
    const prepared = await plan(['restify', 'express']);
    const restify = prepared.cells.filter((c) => c.cell.framework === 'restify');
    assert.equal(restify.length, 4, restify.map((c) => cellLabel(c.cell)).join('\n'));
    for (const { cell, blocked } of restify) {
      const on24 = cell.runtime === 'nodejs24.x' || cell.runtime === 'node24';
      if (on24) assert.deepEqual(blocked, { kind: 'unsupported', reason: RESTIFY_NODE_LIMIT.reason }, cellLabel(cell));
      else assert.equal(blocked, undefined, `${cellLabel(cell)} ${cell.runtime}`);
    }
    assert.match(RESTIFY_NODE_LIMIT.reason, /process\.binding\('http_parser'\).*Node 24/);
    // another framework on the same lines is untouched
    for (const { cell, blocked } of prepared.cells.filter((c) => c.cell.framework === 'express')) {
      assert.equal(blocked, undefined, `${cellLabel(cell)} ${cell.runtime}`);
    }
  });

  it('a restify major past the limit (--versions restify@12.0.0) is not blocked on Node 24; 11.0.0 is', async () => {
    const prepared = await plan(['restify'], ['restify@12.0.0', 'restify@11.0.0']);
    const on24 = prepared.cells.filter((c) => c.cell.runtime === 'nodejs24.x');
    assert.equal(on24.length, 2);
    const at = (v: string) => on24.find((c) => c.cell.version === v)!;
    assert.equal(at('restify@12.0.0').blocked, undefined);
    assert.equal(at('restify@11.0.0').blocked?.reason, RESTIFY_NODE_LIMIT.reason);
  });
});
