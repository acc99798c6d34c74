/**
 * What the report says about the levers (metrics/report/levers.ts): a table per lever that varies,
 * the lever with the largest drop per framework, and cells a runtime cannot measure shown as
 * "unsupported", never as failed. Synthetic samples; never a timing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { makeCell, type Cell } from '../../metrics/core/cell.ts';
import type { RunMeta } from '../../metrics/core/meta.ts';
import { parseMetaSpec } from '../../metrics/core/meta-spec.ts';
import type { Marks, SampleRecord } from '../../metrics/core/samples.ts';
import { blockedRecord } from '../../metrics/measure/sample.ts';
import { summaryCsv } from '../../metrics/report/csv.ts';
import { largestDropSentences, leverTable, leverValues, leversFile, varyingLevers } from '../../metrics/report/levers.ts';
import { summaryMarkdown } from '../../metrics/report/markdown.ts';

const marks = (firstResponse: number): Marks => ({
  processStart: 1,
  start: 10,
  imported: 20,
  startup: firstResponse - 20,
  listen: firstResponse - 10,
  firstResponse,
});

/** Three samples of a cell: firstResponse − 1, firstResponse, firstResponse + 1; or three unsupported or failed runs. */
function threeOf(
  fields: Partial<Cell> & { framework: string; routes: number },
  firstResponse: number | 'unsupported' | 'failed',
): SampleRecord[] {
  const cell = makeCell({ variant: 'validated', ...fields });
  return [1, 2, 3].map((index): SampleRecord => {
    if (firstResponse === 'unsupported')
      return blockedRecord({ cell, phase: 'sample', index }, { kind: 'unsupported', reason: 'no cache here' });
    if (firstResponse === 'failed')
      return { cell, phase: 'sample', index, ok: false, error: 'exited with code 1', durationMs: 1, at: '2026-01-01T00:00:00Z' };
    return { cell, phase: 'sample', index, ok: true, marks: marks(firstResponse + index - 2), durationMs: 1, at: '2026-01-01T00:00:00Z' };
  });
}

describe('lever tables from synthetic samples', () => {
  const samples: SampleRecord[] = [];
  // fastify: node22 helps a lot, bundle a little; express: bundle helps most, and its node22 bundle fails
  for (const [framework, scale] of [
    ['fastify', 1],
    ['express', 2],
  ] as const) {
    for (const routes of [1, 1000]) {
      const n = routes === 1 ? 100 : 200;
      samples.push(...threeOf({ framework, routes, runtime: 'node', build: 'plain' }, n * scale));
      samples.push(
        ...threeOf({ framework, routes, runtime: 'node', build: 'bundle' }, framework === 'fastify' ? n * scale * 0.9 : n * scale * 0.5),
      );
      samples.push(
        ...threeOf({ framework, routes, runtime: 'node22', build: 'plain' }, framework === 'fastify' ? n * scale * 0.6 : n * scale * 0.95),
      );
      samples.push(
        ...threeOf({ framework, routes, runtime: 'node22', build: 'bundle' }, framework === 'fastify' ? n * scale * 0.55 : 'failed'),
      );
    }
  }
  samples.push(...threeOf({ framework: 'fastify', routes: 1, runtime: 'node', build: 'plain', compileCache: 'warm' }, 'unsupported'));
  const withCache = aggregate(samples);
  const summaries = withCache.filter((s) => s.cell.compileCache === 'off');
  const meta = {
    spec: parseMetaSpec({ cells: { runtimes: ['node', 'node22'], builds: ['plain', 'bundle'] } }),
    runtimes: { node: 'v20.20.2', node22: 'v22.23.3' },
  } as unknown as RunMeta;

  it('finds the varying levers and orders their values as given', () => {
    assert.deepEqual(varyingLevers(summaries), ['runtime', 'build']);
    assert.deepEqual(varyingLevers(withCache), ['runtime', 'build', 'compileCache']);
    assert.deepEqual(leverValues('build', summaries, meta), ['plain', 'bundle']);
    assert.deepEqual(leverValues('build', summaries), ['plain', 'bundle'], 'without meta.json: the default first');
    assert.deepEqual(leverValues('runtime', summaries, { ...meta, spec: parseMetaSpec({ cells: { runtimes: ['node22', 'node'] } }) }), [
      'node22',
      'node',
    ]);
  });

  it('a table per lever: rows framework × N × the other levers, a column per value with its ratio to the first', () => {
    const table = leverTable('runtime', summaries, meta).split('\n');
    assert.equal(table[0], '| framework | routes | build | node v20.20.2 | node22 v22.23.3 |');
    assert.equal(table.length, 2 + 2 * 2 * 2, 'header, rule, 2 frameworks × 2 N × 2 builds');
    assert.ok(table.includes('| express | 1 | plain | 200 | 190 (0.95×) |'), table.join('\n'));
    assert.ok(table.includes('| express | 1 | bundle | 100 | failed |'), table.join('\n'));
    assert.ok(table.includes('| fastify | 1000 | plain | 200 | 120 (0.60×) |'), table.join('\n'));
    const build = leverTable('build', summaries, meta).split('\n');
    assert.equal(build[0], '| framework | routes | runtime | plain | bundle |');
    assert.ok(build.includes('| fastify | 1 | node | 100 | 90.0 (0.90×) |'), build.join('\n'));
    const cache = leverTable('compileCache', withCache).split('\n');
    assert.ok(cache.includes('| fastify | 1 | node | plain | 100 | unsupported |'), cache.join('\n'));
  });

  it('names the lever with the largest drop per framework', () => {
    const [express, fastify] = largestDropSentences(summaries, meta);
    assert.match(
      fastify!,
      /^- \*\*fastify\*\*: `runtime=node22` \(vs node\) gave the largest drop in firstResponse: median 0\.61× over 4 comparisons/,
      '(0.6, 0.6, 0.55/0.9, 0.55/0.9): median 0.606',
    );
    assert.match(express!, /^- \*\*express\*\*: `build=bundle` \(vs plain\) gave the largest drop in firstResponse: median 0\.50×/);
    assert.match(express!, /at most 400 → 200 ms \(1000 routes, runtime=node\)/);
  });

  it('there is no levers.md when nothing varies (the README: only when a lever varies)', () => {
    const one = summaries.filter((s) => s.cell.runtime === 'node' && s.cell.build === 'plain');
    assert.equal(leversFile(one, meta), undefined);
    assert.match(leversFile(summaries, meta) ?? '', /## runtime: node vs node22 \(ratio to node\)/);
  });
});

describe('cells a runtime cannot measure are "unsupported", never failed', () => {
  const reason = 'NODE_COMPILE_CACHE needs Node >= 22.1; this is node v20.20.2';
  const cells = (['cold', 'warm'] as const).map((compileCache) =>
    makeCell({ framework: 'node-http', variant: 'validated', routes: 1, compileCache }),
  );
  const samples = cells.flatMap((cell) =>
    [1, 2].map((index) => blockedRecord({ cell, phase: 'sample', index }, { kind: 'unsupported', reason })),
  );
  const summaries = aggregate(samples);

  it('the record of a blocked run: not ok, the reason as "unsupported", no error, nothing timed', () => {
    for (const s of samples) {
      assert.equal(s.ok, false);
      assert.equal(s.unsupported, reason);
      assert.equal(s.error, undefined);
      assert.equal(s.marks, undefined);
      assert.equal(s.durationMs, 0);
    }
    const failed = blockedRecord({ cell: cells[0]!, phase: 'sample', index: 1 }, { kind: 'failed', reason: 'bundle failed' });
    assert.equal(failed.error, 'bundle failed');
    assert.equal(failed.unsupported, undefined);
  });

  it('summaries count no failure and no sample', () => {
    assert.ok(summaries.every((s) => s.unsupported && s.failed === 0 && s.ok === 0));
  });

  it('summary.csv says unsupported, with no failure and no figure', () => {
    const rows = parse<Record<string, string>>(
      summaryCsv(summaries, () => 'f'),
      { columns: true },
    );
    assert.equal(rows.length, 2);
    assert.ok(
      rows.every((r) => r.status === 'unsupported' && r.failures === '0' && r.firstResponse_median_ms === ''),
      JSON.stringify(rows[0]),
    );
  });

  it('summary.md marks the cells and says why in its own section', () => {
    const md = summaryMarkdown(summaries, undefined);
    assert.match(md, /\| 1-startup-node-http-routes\.js \[compileCache=cold\] \| unsupported \|/);
    assert.match(md, /## Unsupported/);
    // escaped as every outside text is: `>` as `&gt;`, which renders as `>`
    assert.match(md, /NODE_COMPILE_CACHE needs Node &gt;= 22\.1/);
    assert.match(md, /## Failures\n\nNone: every sample answered/);
  });
});
