import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { minimumP } from '../../metrics/analyse/compare.ts';
import { runCompare } from '../../metrics/pipeline/compare.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';
import { cell, samplesOf, spread, writeRun } from '../support/synthetic.ts';

// ten samples a side; B's fastify is 20 % slower, node-http unchanged; one cell only in A, one only in B
let base: string;
let runA: string;
let runB: string;
let unchanged: string;
before(() => {
  base = tempDir();
  runA = writeRun(path.join(base, 'a'), [
    ...samplesOf(cell('fastify', 100), spread(200, 10)),
    ...samplesOf(cell('node-http', 100), spread(50, 10)),
    ...samplesOf(cell('hono', 100), spread(80, 10)),
  ]);
  runB = writeRun(path.join(base, 'b'), [
    ...samplesOf(cell('fastify', 100), spread(240, 10)),
    ...samplesOf(cell('node-http', 100), spread(50, 10).reverse()),
    ...samplesOf(cell('koa', 100), spread(90, 10)),
  ]);
  unchanged = writeRun(path.join(base, 'same'), [
    ...samplesOf(
      cell('fastify', 100),
      spread(200, 10).map((v) => v + 0.5),
    ),
  ]);
});

describe('compare: ratio of medians and Mann-Whitney U per cell', () => {
  it('a planted 20 % regression is significant; 0 % is not; one-run cells are listed', () => {
    const { comparison, markdown, exitCode } = runCompare({
      a: runA,
      b: runB,
      failAbove: 1.1,
      metrics: ['startup', 'listen', 'firstResponse'],
    });
    const row = (framework: string, metric: string) => comparison.rows.find((r) => r.cell.framework === framework && r.metric === metric)!;
    const fastify = row('fastify', 'firstResponse');
    assert.ok(Math.abs(fastify.ratio! - 1.2) < 1e-9);
    assert.ok(fastify.p! < 0.001, `p = ${fastify.p}`);
    assert.equal(fastify.verdict, 'regression');
    assert.equal(fastify.fails, true);
    assert.equal(row('fastify', 'listen').verdict, 'regression');
    const floor = row('node-http', 'firstResponse');
    assert.equal(floor.ratio, 1);
    assert.equal(floor.verdict, 'no significant change');
    assert.equal(floor.fails, false);
    assert.equal(exitCode, 1);
    assert.deepEqual(
      comparison.onlyA.map((c) => c.framework),
      ['hono'],
    );
    assert.deepEqual(
      comparison.onlyB.map((c) => c.framework),
      ['koa'],
    );
    const regression = '| 100-startup-fastify-routes.js | firstResponse | 200 | 240 | 1.200 | < 0.0001 | 10/10 |';
    assert.ok(markdown.includes(`${regression} **regression** ✗ (above --fail-above) |`), markdown);
    assert.match(
      markdown,
      /\| 100-startup-node-http-routes\.js \| firstResponse \| 50\.0 \| 50\.0 \| 1\.000 \| 1\.000 \| 10\/10 \| no significant change \|/,
    );
    assert.match(markdown, /- only in A: `100-startup-hono-routes\.js`/);
    assert.match(markdown, /- only in B: `100-startup-koa-routes\.js`/);
    assert.match(markdown, /--fail-above 1\.1: 3 regression\(s\) above it: FAIL/);
  });

  it('B faster than A is an improvement, never a failure', () => {
    const { comparison, exitCode } = runCompare({ a: runB, b: runA, failAbove: 1.1 });
    const fastify = comparison.rows.find((r) => r.cell.framework === 'fastify' && r.metric === 'firstResponse')!;
    assert.equal(fastify.verdict, 'improvement');
    assert.equal(exitCode, 0);
  });

  it('a tiny shift (0.25 %) is not flagged', () => {
    const { comparison, exitCode } = runCompare({ a: runA, b: unchanged, failAbove: 1.1 });
    assert.ok(comparison.rows.every((r) => r.verdict === 'no significant change'));
    assert.equal(exitCode, 0);
  });

  it('a significant regression below --fail-above does not fail', () => {
    assert.equal(runCompare({ a: runA, b: runB, failAbove: 1.25 }).exitCode, 0);
    assert.equal(runCompare({ a: runA, b: runB }).exitCode, 0);
  });

  it('too few samples to ever reach p < 0.05 is said', () => {
    assert.equal(minimumP(5, 5), 2 / 252);
    assert.ok(minimumP(3, 3) >= 0.05);
    const small = tempDir();
    const a = writeRun(path.join(small, 'a'), samplesOf(cell('fastify', 1), [100, 101, 102]));
    const b = writeRun(path.join(small, 'b'), samplesOf(cell('fastify', 1), [200, 201, 202]));
    assert.match(runCompare({ a, b }).markdown, /no significant change \(too few samples for p < 0\.05\)/);
  });

  it('a folder without samples.jsonl is a usage error', () => {
    assert.throws(() => runCompare({ a: runA, b: path.join(base, 'missing') }), UsageError);
  });
});

describe('compare through the cli (main() in-process)', () => {
  it('--fail-above 1.10 exits 1 on the planted regression, prints the table and writes --out', async () => {
    const out = path.join(base, 'compare.md');
    const result = await mainInProcess(['compare', runA, runB, '--fail-above', '1.10', '--out', out]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /# Comparison of two runs/);
    assert.match(result.stdout, /\*\*regression\*\* ✗/);
    assert.equal(readFileSync(out, 'utf8'), result.stdout);
  });

  it('no change exits 0', async () => {
    const result = await mainInProcess(['compare', runA, unchanged, '--fail-above', '1.10']);
    assert.equal(result.code, 0, result.stderr);
  });

  it('a bad folder or ratio: one line, exit 2', async () => {
    for (const args of [
      ['compare', runA, path.join(base, 'missing')],
      ['compare', runA, runB, '--fail-above', 'lots'],
      ['compare', runA],
    ]) {
      const result = await mainInProcess(args);
      assert.equal(result.code, 2, args.join(' '));
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, /^coldstart: /);
    }
  });
});
