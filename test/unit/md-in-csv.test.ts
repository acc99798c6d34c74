/**
 * Nothing summary.md shows that summary.csv lacks (issue 36): for every published run with Lambda
 * cells, each figure of summary.md's per-cell tables (the results table, the firstResponse pivot, the
 * REPORT figures, the estimate table per architecture, the cost table, the power-tuning table) is one of its row's CSV values,
 * rounded as summary.md rounds it. The exceptions are named in test/support/md-in-csv.ts
 * (UNCHECKED_SECTIONS, the text columns) and here (1 + k, a constant of the fit). And the check fails
 * when a column goes missing: the same summary.md against a CSV without the arm64 estimate columns.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'csv-stringify/sync';
import { parse } from 'csv-parse/sync';
import { shippedCodeLoading } from '../../metrics/analyse/code-loading.ts';
import { ROOT } from '../support/in-process.ts';
import { figuresMissingFromCsv, tablesOf } from '../support/md-in-csv.ts';

const RUNS = [
  '2026-11-26-lambda',
  '2026-11-26-lambda-10',
  '2026-11-26-lambda-floor',
  // INIT split into loading and running, two architectures (issue 47: the arm64 running part had no column)
  '2026-11-27-lambda',
  '2026-11-27-lambda-init',
  '2026-11-27-lambda-init-cpu',
].map((name) => path.join(ROOT, 'results', 'published', name));

/** 1 + k, as the code-loading column prints it ("× 2.16 on Lambda"): the fit's, not the run's. */
const CONSTANTS = [String(Math.round((1 + shippedCodeLoading().fit.coefficient) * 1000) / 1000)];

const read = (run: string, file: string) => readFileSync(path.join(run, file), 'utf8');

describe('summary.csv holds every figure summary.md shows, per architecture', () => {
  for (const run of RUNS) {
    it(path.basename(run), () => {
      assert.ok(existsSync(path.join(run, 'summary.md')), run);
      const markdown = read(run, 'summary.md');
      // the check reads the tables it should: the estimate table has a row per cell and architecture
      const estimates = tablesOf(markdown).filter((t) => t.header.includes('Init estimate'));
      assert.ok(estimates.length === 1 && estimates[0]!.rows.length > 0, 'the estimate table');
      const misses = figuresMissingFromCsv(markdown, read(run, 'summary.csv'), CONSTANTS);
      assert.deepEqual(misses.slice(0, 10), [], `${misses.length} figures of summary.md are not in summary.csv`);
    });
  }

  it('fails when summary.csv lacks a figure: the arm64 estimates dropped', () => {
    const run = RUNS[1]!;
    const records = parse<Record<string, string>>(read(run, 'summary.csv'), { columns: true });
    const kept = Object.keys(records[0]!).filter((k) => !/^estimate_init_duration_(?:low_|high_)?ms_arm64$/.test(k));
    const without = stringify(records, { header: true, columns: kept });
    const misses = figuresMissingFromCsv(read(run, 'summary.md'), without, CONSTANTS);
    assert.ok(misses.length > 0);
    assert.ok(
      misses.every((m) => m.section.startsWith('Lambda: measured here') && m.column.startsWith('Init ')),
      JSON.stringify(misses.slice(0, 3)),
    );
  });

  it('fails when summary.csv lacks a figure: the arm64 running part dropped (the columns issue 47 added)', () => {
    const run = RUNS[3]!;
    const records = parse<Record<string, string>>(read(run, 'summary.csv'), { columns: true });
    const kept = Object.keys(records[0]!).filter((k) => !/^estimate_init_running_(?:low_|high_)?ms_arm64$/.test(k));
    assert.ok(kept.length < Object.keys(records[0]!).length, 'the run has the arm64 running columns');
    const misses = figuresMissingFromCsv(read(run, 'summary.md'), stringify(records, { header: true, columns: kept }), CONSTANTS);
    assert.ok(misses.length > 0);
    assert.ok(
      // the running part on Lambda: its column, and the evidence column that names it unvalidated
      misses.every((m) => m.column === "Init: running (× Lambda's CPU)" || m.column === 'evidence'),
      JSON.stringify(misses.slice(0, 3)),
    );
  });
});
