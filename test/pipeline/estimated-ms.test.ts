/**
 * A counted run's estimated ms (issue 50): the run records in meta.json the published fit its report uses
 * (`timeEstimate`: estimated cycles under --cache-sim, else instructions), and summary.csv and summary.md give each
 * counted cell's count to the first answer × that fit's ms per million, marked as a model, with `beyond the fit`
 * for a cell outside the fit's cells. A folder without the record (every run before it) reports without it, so
 * the published runs re-report byte for byte (test/unit/published-runs.test.ts). In-process (fake deps, and copies
 * of published folders).
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { median } from 'simple-statistics';
import { CYCLES_AS_TIME, INSTRUCTIONS_AS_TIME } from '../../metrics/analyse/proxy-fit.ts';
import { cellLabel } from '../../metrics/core/cell.ts';
import type { TimeEstimateMeta } from '../../metrics/core/meta.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { readMeta } from '../../metrics/store/meta-file.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { ESTIMATE_CSV_COLUMNS } from '../../metrics/report/csv.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { ROOT, tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

type Row = Record<string, string>;
const [ESTIMATE, BEYOND] = ESTIMATE_CSV_COLUMNS as [string, string];
const rowsOf = (dir: string) => parse<Row>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
const headerOf = (dir: string) => readFileSync(path.join(dir, 'summary.csv'), 'utf8').split('\n')[0]!.split(',');

/**
 * Per counted cell (by label), from its samples: the median count of the fit's kind to the first answer × the fit's
 * ms per million, rounded as summary.csv rounds, and whether the cell is beyond the fit (its count larger than the
 * fit's largest, or its framework or runtime not the fit's).
 */
function expected(dir: string, fit: TimeEstimateMeta): Map<string, { ms: number; beyond: boolean }> {
  const byCell = new Map<string, { counts: number[]; framework: string; runtime: string | undefined }>();
  for (const s of readSamples(path.join(dir, 'samples.jsonl'))) {
    const count = s[fit.count]?.firstResponse;
    if (s.phase !== 'sample' || !s.ok || count === undefined) continue;
    const label = cellLabel(s.cell);
    const entry = byCell.get(label) ?? { counts: [], framework: s.cell.framework, runtime: s.runtimeVersion };
    entry.counts.push(count);
    byCell.set(label, entry);
  }
  return new Map(
    [...byCell].map(([label, { counts, framework, runtime }]) => {
      const count = median(counts);
      const beyond =
        count > fit.largestCount || !fit.dimensions.framework!.includes(framework) || !fit.runtimeVersions.includes(runtime ?? '');
      return [label, { ms: Math.round((count / 1e6) * fit.msPerMillion * 1000) / 1000, beyond }];
    }),
  );
}

/** summary.csv's estimate of each counted cell is the expected one, and its other rows have none. */
function assertColumn(dir: string, fit: TimeEstimateMeta): Map<string, { ms: number; beyond: boolean }> {
  const want = expected(dir, fit);
  assert.ok(want.size > 0, 'counted cells');
  const header = headerOf(dir);
  assert.deepEqual(header.slice(-2), [ESTIMATE, BEYOND], 'the two columns come last');
  for (const row of rowsOf(dir)) {
    const cell = want.get(row.file!);
    if (!cell) {
      assert.deepEqual([row[ESTIMATE], row[BEYOND]], ['', ''], `${row.file} is not counted: no estimate`);
      continue;
    }
    assert.equal(Number(row[ESTIMATE]), cell.ms, row.file);
    assert.equal(row[BEYOND], cell.beyond ? 'yes' : 'no', row.file);
  }
  assert.equal(rowsOf(dir).filter((r) => want.has(r.file!)).length, want.size);
  return want;
}

async function fakeRun(args: string[]): Promise<string> {
  const out = path.join(tempDir('coldstart-estms-'), 'run');
  const result = await mainInProcess(['run', ...args, '--samples', '1', '--debug-mode', '--out', out]);
  assert.equal(result.code, 0, result.stderr);
  return out;
}

/** A copy of a published run folder, its meta.json given `timeEstimate` (as a counted run made now records it) or not. */
function publishedCopy(name: string, fit: TimeEstimateMeta | undefined): string {
  const copy = path.join(tempDir('coldstart-estms-published-'), name);
  cpSync(path.join(ROOT, 'results', 'published', name), copy, { recursive: true });
  const file = path.join(copy, 'meta.json');
  const meta = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  assert.equal(meta.timeEstimate, undefined, 'a published run made before the record');
  if (fit) writeFileSync(file, JSON.stringify({ ...meta, timeEstimate: fit }, null, 2) + '\n');
  return copy;
}

describe("a counted run's estimated ms", () => {
  it('a counted run records the instructions fit and summary.csv has count × k per counted cell, summary.md the ✱ column', async () => {
    const dir = await fakeRun(['-f', 'node-http,fastify', '-r', '1,100', '--measure', 'time,instructions', '--count-samples', '3']);
    const fit = readMeta(dir)!.timeEstimate;
    assert.deepEqual(fit, JSON.parse(JSON.stringify(INSTRUCTIONS_AS_TIME)));
    assertColumn(dir, fit!);
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(md, /\| timed CPU \(ms\) \| est\. CPU ms ✱ \| timed wall \(ms\) \|/);
    assert.ok(md.includes("✱ **est. CPU ms**: the cell's instructions to the first answer × 0.151 ms per million"), md);
    const source = 'over 24 published cells on a 2-core AMD EPYC (docs/findings/2026-12-05-cycles-vs-cpu.md, 2026-12-05; ';
    assert.ok(md.includes(`${source}median error 7.1 %, worst deepkit 5000 +35.8 %)`), md);
  });

  it('under --cache-sim the run records the estimated cycles fit, the one the finding says to quote', async () => {
    const dir = await fakeRun(['-f', 'node-http', '-r', '1', '--measure', 'instructions', '--cache-sim']);
    assert.deepEqual(readMeta(dir)!.timeEstimate, JSON.parse(JSON.stringify(CYCLES_AS_TIME)));
  });

  it('a timed run records no fit and has no estimate', async () => {
    const dir = await fakeRun(['-f', 'node-http', '-r', '1']);
    assert.equal(readMeta(dir)!.timeEstimate, undefined);
    assert.ok(!headerOf(dir).some((c) => c.startsWith('estimated_')));
  });

  it("the fit's own cells, re-reported with the cycles fit: each estimate is from their cycles, and none is beyond the fit", async () => {
    const dir = publishedCopy('2026-12-05-cycles', CYCLES_AS_TIME);
    await writeReport(dir);
    const cells = assertColumn(dir, CYCLES_AS_TIME);
    assert.equal(cells.size, 24);
    assert.deepEqual(
      [...cells].filter(([, c]) => c.beyond),
      [],
    );
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.ok(md.includes("the cell's estimated cycles to the first answer × 0.120 ms per million"));
    assert.doesNotMatch(
      md
        .split('\n')
        .filter((l) => l.startsWith('| '))
        .join('\n'),
      /†/,
    );
  });

  it('frameworks the fit has no cell of are beyond it: marked † in summary.md and `yes` in summary.csv, with the figure', async () => {
    const dir = publishedCopy('2026-11-26-instructions', INSTRUCTIONS_AS_TIME);
    await writeReport(dir);
    const cells = assertColumn(dir, INSTRUCTIONS_AS_TIME);
    const beyond = [...cells].filter(([label]) => /express|koa|h3|hono/.test(label));
    assert.equal(beyond.length, 12);
    assert.ok(beyond.every(([, c]) => c.beyond));
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    const koa = md.split('\n').find((l) => l.startsWith('| 1000-startup-koa-routes.js'));
    assert.match(koa!, /\| \d+ † \|/);
  });

  it("a count larger than the fit's largest cell's is beyond it, a count at it is not", async () => {
    const rows = rowsOf(publishedCopy('2026-12-05-cycles', undefined));
    const counts = rows.map((r) => Number(r.cycles_total_median)).sort((a, b) => a - b);
    const fit = { ...CYCLES_AS_TIME, largestCount: counts[12]! };
    const dir = publishedCopy('2026-12-05-cycles', fit);
    await writeReport(dir);
    const cells = assertColumn(dir, fit);
    assert.equal([...cells.values()].filter((c) => c.beyond).length, 11);
  });

  it('a folder without the record re-reports without the column or the note', async () => {
    const dir = publishedCopy('2026-12-05-cycles', undefined);
    await writeReport(dir);
    assert.ok(!headerOf(dir).some((c) => c.startsWith('estimated_')));
    assert.doesNotMatch(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /est\. CPU ms/);
  });

  it('a record that is not one is one line naming the field', () => {
    const dir = publishedCopy('2026-12-05-cycles', { ...CYCLES_AS_TIME, msPerMillion: 'fast' } as unknown as TimeEstimateMeta);
    assert.throws(
      () => readMeta(dir),
      (error: Error) => error instanceof UsageError && /timeEstimate\.msPerMillion/.test(error.message) && !error.message.includes('\n'),
    );
  });
});
