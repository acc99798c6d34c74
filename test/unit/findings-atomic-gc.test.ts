/**
 * The finding on counted cells and V8's incremental marking (docs/findings/2026-12-05-atomic-gc.md) against its data:
 * the same three cells counted four times each with V8's default marking (results/published/2026-12-05-gc-incremental)
 * and with `--atomic-gc` (results/published/2026-12-05-gc-atomic), the two runs side by side. Every row of the finding's
 * table (each cell's median count to the first answer and its spread under each, and the change) is recomputed from
 * the samples here, and the figure `--atomic-gc`'s help quotes is the fastify row's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { median } from 'simple-statistics';
import { ATOMIC_GC_FLAGS, COUNT_V8_FLAGS } from '../../metrics/measure/counting.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { runCompare } from '../../metrics/pipeline/compare.ts';
import { ROOT } from '../support/in-process.ts';

const FINDING = path.join(ROOT, 'docs', 'findings', '2026-12-05-atomic-gc.md');
const RUNS = { incremental: '2026-12-05-gc-incremental', atomic: '2026-12-05-gc-atomic' } as const;
const folder = (run: string) => path.join(ROOT, 'results', 'published', run);

/** Each cell's counts to the first answer (framework → totals) in a run. */
function totals(run: string): Map<string, number[]> {
  const cells = new Map<string, number[]>();
  for (const sample of readSamples(path.join(folder(run), 'samples.jsonl'))) {
    const total = sample.instructions?.firstResponse;
    if (!sample.ok || total === undefined) continue;
    const key = `${sample.cell.framework} | ${sample.cell.routes}`;
    cells.set(key, [...(cells.get(key) ?? []), total]);
  }
  return cells;
}

/** (max − min) / median, as a share. */
const spreadOf = (values: readonly number[]) => (Math.max(...values) - Math.min(...values)) / median([...values]);
/** A spread as the table writes it: in % from a ten-thousandth up, else in parts per million. */
const spreadText = (share: number) => (share >= 1e-4 ? `${(share * 100).toFixed(2)} %` : `${Math.round(share * 1e6)} ppm`);
const millions = (n: number) => (n / 1e6).toFixed(1);

test("the finding's table is its two runs' counts", () => {
  const text = readFileSync(FINDING, 'utf8');
  for (const run of Object.values(RUNS)) assert.match(text, new RegExp(`results/published/${run}`));
  const [incremental, atomic] = [totals(RUNS.incremental), totals(RUNS.atomic)];
  assert.deepEqual([...incremental.keys()].sort(), [...atomic.keys()].sort());
  for (const [cell, base] of incremental) {
    const other = atomic.get(cell)!;
    assert.equal(base.length, 4, `${cell}: four counts`);
    assert.equal(other.length, 4, `${cell}: four counts`);
    const change = median(other) / median(base) - 1;
    const row =
      `| ${cell} | ${millions(median(base))} | ${spreadText(spreadOf(base))} | ${millions(median(other))} | ` +
      `${spreadText(spreadOf(other))} | ${change >= 0 ? '+' : '−'}${Math.abs(change * 100).toFixed(1)} % |`;
    assert.ok(text.includes(row), `the finding's row: ${row}`);
  }
});

test("each run's meta.json records the flags it counted with", () => {
  const flags = (run: string) =>
    (JSON.parse(readFileSync(path.join(folder(run), 'meta.json'), 'utf8')) as { spec: { countFlags: string[] } }).spec.countFlags;
  assert.deepEqual(flags(RUNS.incremental), [...COUNT_V8_FLAGS]);
  assert.deepEqual(flags(RUNS.atomic), [...COUNT_V8_FLAGS, ...ATOMIC_GC_FLAGS]);
});

test("--atomic-gc's help quotes the fastify row", () => {
  const cell = 'fastify | 1000';
  const counts = { incremental: totals(RUNS.incremental).get(cell)!, atomic: totals(RUNS.atomic).get(cell)! };
  const help = readFileSync(path.join(ROOT, 'metrics', 'cli', 'groups', 'sampling.ts'), 'utf8');
  const quoted = `fastify at 1,000 routes: ${spreadText(spreadOf(counts.incremental))} against ${spreadText(spreadOf(counts.atomic))}`;
  assert.ok(help.replace(/'\s*\+\s*'/g, '').includes(quoted), `the help says: ${quoted}`);
});

test('compare of the two runs says under its table that they were counted with different flags; of one run, not', () => {
  const compare = (a: string, b: string) => runCompare({ a: folder(a), b: folder(b), metrics: ['instructions'] }).markdown;
  const flags = (list: readonly string[]) => `\`${list.join(' ')}\``;
  const atomic = [...COUNT_V8_FLAGS, ...ATOMIC_GC_FLAGS];
  const note = `> **Counted with different V8 flags**: A with ${flags(COUNT_V8_FLAGS)}, B with ${flags(atomic)}.`;
  assert.ok(compare(RUNS.incremental, RUNS.atomic).includes(note), note);
  assert.doesNotMatch(compare(RUNS.atomic, RUNS.atomic), /Counted with different V8 flags/);
});
