/**
 * `run --budget` in-process with the fake deps: meta.json keeps the budget, scaling.md and
 * scaling.csv count routes against it, and `report` on the folder (no flag) rebuilds the same bytes;
 * `report --budget` with another budget overrides it; `run --budget` with two route counts is refused.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { specOfArgv } from '../../metrics/cli/main.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { reportPipeline } from '../../metrics/pipeline/report.ts';
import { exitCodeOf, runPipeline } from '../../metrics/pipeline/run.ts';
import { tempDir } from '../support/in-process.ts';

let tick = Date.parse('2026-01-01T00:00:00.000Z');
const now = () => new Date((tick += 1000));
const read = (dir: string, file: string) => readFileSync(path.join(dir, file), 'utf8');

describe('run --budget', () => {
  let out: string;
  before(async () => {
    out = path.join(tempDir('coldstart-budget-run-'), 'run');
    const spec = await specOfArgv([
      'run',
      '-f',
      'node-http,fastify',
      '-r',
      '1,100,1000',
      '--samples',
      '3',
      '--budget',
      '150ms',
      '--out',
      out,
    ]);
    assert.ok(spec);
    const result = await runPipeline(spec, fakeDeps({ now }));
    assert.equal(exitCodeOf(result, false), 0);
  });

  it('keeps the budget in meta.json and counts routes against it in scaling.md and scaling.csv', () => {
    const meta = JSON.parse(read(out, 'meta.json')) as { spec: { cost: { budgetMs?: number } } };
    assert.equal(meta.spec.cost.budgetMs, 150);
    assert.match(read(out, 'scaling.md'), /first response: routes within 150 ms/);
    assert.match(read(out, 'summary.md'), /ready \(listen\): routes within 150 ms/);
    const [header, ...rows] = read(out, 'scaling.csv').trim().split('\n');
    const budget = header!.split(',').indexOf('budget_ms');
    assert.ok(budget > 0);
    assert.ok(rows.length === 4 && rows.every((r) => r.split(',')[budget] === '150'), 'every row has the budget');
  });

  it('report rebuilds the same bytes from meta.json; report --budget overrides it', async () => {
    const before = ['scaling.md', 'scaling.csv', 'summary.md'].map((f) => read(out, f));
    await reportPipeline({ dir: out }, () => undefined);
    assert.deepEqual(
      ['scaling.md', 'scaling.csv', 'summary.md'].map((f) => read(out, f)),
      before,
    );
    await reportPipeline({ dir: out, cost: { budgetMs: 90 } }, () => undefined);
    assert.match(read(out, 'scaling.md'), /routes within 90 ms/);
  });

  it('is refused with two route counts', async () => {
    await assert.rejects(
      specOfArgv(['run', '-f', 'node-http', '-r', '1,100', '--budget', '500', '--out', path.join(tempDir(), 'x')]),
      /--budget does nothing without at least 3 route counts/,
    );
  });
});
