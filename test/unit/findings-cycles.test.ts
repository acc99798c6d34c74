/**
 * The finding on counts as time (docs/findings/2026-12-05-cycles-vs-cpu.md) against its data: the counted run
 * results/published/2026-12-05-cycles (instructions and estimated cycles, --cache-sim) and the quiet CPU times of
 * the same cells in results/published/2026-11-27-seed-table. Every figure of the finding's fit table is
 * recomputed here with metrics/analyse/proxy-fit.ts and must be what the table says, rounded as it rounds.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { CYCLES_AS_TIME, INSTRUCTIONS_AS_TIME, proxyFit, type ProxyPoint } from '../../metrics/analyse/proxy-fit.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { ROOT } from '../support/in-process.ts';

const FINDING = path.join(ROOT, 'docs', 'findings', '2026-12-05-cycles-vs-cpu.md');
type Row = Record<string, string>;
const csv = (run: string) =>
  parse<Row>(readFileSync(path.join(ROOT, 'results', 'published', run, 'summary.csv'), 'utf8'), { columns: true });

/** The cells both runs have: the count from the counted run, the median CPU time to the first answer from the timed one. */
function pointsOf(column: 'instructions_total_median' | 'cycles_total_median'): ProxyPoint[] {
  const timed = new Map(csv('2026-11-27-seed-table').map((r) => [`${r.framework} ${r.routes}`, Number(r.cpu_firstResponse_median_ms)]));
  return csv('2026-12-05-cycles')
    .filter((r) => timed.has(`${r.framework} ${r.routes}`) && r[column])
    .map((r) => ({ label: `${r.framework} ${r.routes}`, count: Number(r[column]), cpuMs: timed.get(`${r.framework} ${r.routes}`)! }));
}

const signed = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(1)} %`;

test("the finding's fit table is the fit of its two runs", () => {
  const text = readFileSync(FINDING, 'utf8');
  assert.match(text, /results\/published\/2026-12-05-cycles/);
  assert.match(text, /results\/published\/2026-11-27-seed-table/);
  for (const [name, column] of [
    ['instructions', 'instructions_total_median'],
    ['estimated cycles', 'cycles_total_median'],
  ] as const) {
    const points = pointsOf(column);
    assert.ok(points.length >= 20, `${name}: ${points.length} cells`);
    const fit = proxyFit(points);
    const row = [
      name,
      String(fit.n),
      fit.r2.toFixed(3),
      fit.msPerMillion.toFixed(3),
      `${fit.medianAbsErrorPct.toFixed(1)} %`,
      `${fit.worst.label} (${signed(fit.worst.errorPct)})`,
    ];
    assert.ok(text.includes(`| ${row.join(' | ')} |`), `the finding's row for ${name}: | ${row.join(' | ')} |`);
    // the gate's ≈ ms column and a counted run's estimated ms quote these fits: each constant is its fit, rounded as
    // the finding rounds, and its evidence is the fit's cells (the largest count, the cells' dimensions and runtime)
    const constant = column === 'instructions_total_median' ? INSTRUCTIONS_AS_TIME : CYCLES_AS_TIME;
    assert.equal(constant.msPerMillion.toFixed(3), fit.msPerMillion.toFixed(3));
    assert.equal(constant.medianErrorPct.toFixed(1), fit.medianAbsErrorPct.toFixed(1));
    assert.equal(`${constant.worst.cell} (${signed(constant.worst.errorPct)})`, row[5]);
    assert.equal(constant.cells, fit.n);
    assert.equal(constant.largestCount, Math.max(...points.map((p) => p.count)));
    const labels = new Set(points.map((p) => p.label));
    const samples = readSamples(path.join(ROOT, 'results', 'published', '2026-12-05-cycles', 'samples.jsonl')).filter((s) =>
      labels.has(`${s.cell.framework} ${s.cell.routes}`),
    );
    const values = new Map<string, Set<string>>();
    for (const s of samples)
      for (const [dimension, value] of Object.entries(s.cell))
        if (dimension !== 'routes' && dimension !== 'measure')
          values.set(dimension, (values.get(dimension) ?? new Set()).add(String(value)));
    assert.deepEqual(
      Object.fromEntries([...values].map(([d, v]) => [d, [...v].sort()])),
      Object.fromEntries(Object.entries(constant.dimensions).map(([d, v]) => [d, [...v].sort()])),
    );
    assert.deepEqual([...new Set(samples.map((s) => s.runtimeVersion))], [...constant.runtimeVersions]);
  }
});

test("the finding's cycles per instruction, per framework, are the counted run's", () => {
  const text = readFileSync(FINDING, 'utf8');
  const rows = csv('2026-12-05-cycles');
  for (const framework of ['node-http', 'fastify', 'deepkit']) {
    const ratios = rows
      .filter((r) => r.framework === framework)
      .map((r) => Number(r.cycles_total_median) / Number(r.instructions_total_median));
    const range = `${framework} ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)}`;
    assert.ok(text.includes(range), range);
  }
});
