/**
 * An estimate beyond its calibration's range is marked in every output, with no interval (issues 36 and 47): a copy of
 * the published node-http floor run (every estimate within the code-loading term's fitted excesses), with
 * one cell planted beyond them (its Init, nodejs24.x at 1024 MB, three times the hello world's: an excess
 * of about 2 × H = 250 ms at the fit's speed, 2.5 × the largest fitted), is reported; summary.csv,
 * summary.md (estimate and cost tables, both architectures), report.html (estimate table and chart) and
 * RESULTS.md mark that cell, with the factor (two decimals, rounded up), and no other, and print no interval beside it.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { resultsPageOf } from '../../metrics/pipeline/results-page.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { ROOT, tempDir } from '../support/in-process.ts';

const FLOOR = path.join(ROOT, 'results', 'published', '2026-11-26-lambda-floor');

interface Line {
  cell: { framework: string; runtime: string; memory: number };
  marks?: Record<string, number>;
  lambda?: { initMs: number; billedMs: number };
}

const planted = (l: Line) => l.cell.framework === 'node-http' && l.cell.runtime === 'nodejs24.x' && l.cell.memory === 1024;

/** The floor run with the planted cell's Init three times what it measured (and its first response and Billed Duration with it). */
function plant(folder: string): void {
  mkdirSync(folder, { recursive: true });
  copyFileSync(path.join(FLOOR, 'meta.json'), path.join(folder, 'meta.json'));
  const lines = readFileSync(path.join(FLOOR, 'samples.jsonl'), 'utf8').trimEnd().split('\n');
  const out = lines.map((text) => {
    const line = JSON.parse(text) as Line;
    if (!planted(line) || !line.marks?.init || !line.lambda) return text;
    const added = 2 * line.marks.init;
    line.marks.init += added;
    if (line.marks.firstResponse !== undefined) line.marks.firstResponse += added;
    line.lambda.initMs += added;
    line.lambda.billedMs += Math.ceil(added);
    return JSON.stringify(line);
  });
  writeFileSync(path.join(folder, 'samples.jsonl'), `${out.join('\n')}\n`);
}

const PLANTED_LABEL = 'lambda/1-startup-node-http-routes.js [memory=1024MB, runtime=nodejs24.x, bootstrap=ric, fileCache=cold]';
const FLAG = /⚠ beyond evidence: loading excess (\d+) ms, (\d+\.\d\d)× the largest fitted \(101 ms\)/;
/** An interval as the outputs print one: two figures joined by an en dash ("1074–1924", "$18.10–$32.27"). */
const INTERVAL = /\d–\$?\d/;
/** The cells of a markdown or text row that carry the beyond-evidence mark. */
const markedCells = (row: string) => row.split('|').filter((cell) => cell.includes('beyond evidence'));

describe('an estimate planted beyond the calibrated range is marked in every output', () => {
  let dir: string;
  let run: string;
  before(async () => {
    dir = tempDir('coldstart-extrapolated-');
    run = path.join(dir, 'published', 'floor-planted');
    plant(run);
    await writeReport(run);
  });

  it('summary.csv: extrapolated yes with its factor for that cell, no for every other', () => {
    const rows = parse<Record<string, string>>(readFileSync(path.join(run, 'summary.csv'), 'utf8'), { columns: true });
    const estimated = rows.filter((r) => r.estimate_extrapolated !== '');
    assert.equal(estimated.length, 12, 'node-http and the reference, 2 lines × 3 sizes');
    const flagged = estimated.filter((r) => r.estimate_extrapolated === 'yes');
    assert.deepEqual(
      flagged.map((r) => r.file),
      [PLANTED_LABEL],
    );
    const factor = Number(flagged[0]!.estimate_extrapolation_factor);
    assert.ok(factor > 2 && factor < 3, String(factor));
    assert.ok(Number(flagged[0]!.estimate_init_excess_fit_speed_ms) > Number(flagged[0]!.estimate_init_fitted_up_to_ms));
    for (const r of estimated.filter((x) => x !== flagged[0])) assert.equal(r.estimate_extrapolation_factor, '', r.file);
    // per architecture: no interval beyond the evidence, the mark in its place; within it, an interval and its coverage
    for (const a of ['x86_64', 'arm64']) {
      for (const end of ['low', 'high'])
        for (const column of [
          `estimate_init_duration_${end}_ms_${a}`,
          `estimate_billed_duration_${end}_ms_${a}`,
          `estimate_cost_per_million_usd_${end}_${a}`,
        ])
          assert.equal(flagged[0]![column], '', column);
      assert.equal(
        flagged[0]![`estimate_beyond_evidence_${a}`],
        `beyond evidence: ×${(Math.ceil(factor * 100 - 1e-9) / 100).toFixed(2)} on loading`,
      );
      assert.equal(flagged[0]![`estimate_interval_coverage_${a}`], '');
      for (const r of estimated.filter((x) => x !== flagged[0])) {
        assert.ok(Number(r[`estimate_init_duration_low_ms_${a}`]) < Number(r[`estimate_init_duration_ms_${a}`]), r.file);
        assert.equal(r[`estimate_interval_coverage_${a}`], 'n=20 leave-one-out, 65 % of held-out errors within', r.file);
      }
    }
  });

  it('summary.md: its estimate rows (both architectures) and its $ in the cost table', () => {
    const md = readFileSync(path.join(run, 'summary.md'), 'utf8');
    const flagged = md.split('\n').filter((line) => FLAG.test(line));
    assert.equal(flagged.length, 2, 'x86_64 and arm64');
    for (const line of flagged) assert.ok(line.startsWith(`| ${PLANTED_LABEL} | nodejs24.x `), line);
    const factor = FLAG.exec(flagged[0]!)![2]!;
    const cost = md.slice(md.indexOf('## Cost'));
    const marked = cost.split('\n').filter((l) => l.startsWith('|') && l.includes('beyond evidence: ×'));
    assert.equal(marked.length, 1, cost);
    assert.ok(marked[0]!.includes(`beyond evidence: ×${factor} on loading`), marked[0]);
    for (const line of [...flagged, ...marked])
      for (const cell of markedCells(line).filter((c) => !c.includes('⚠'))) assert.doesNotMatch(cell, INTERVAL, cell);
    // the power-tuning table prices the same estimate: its row carries the mark too
    const power = md.slice(md.indexOf('## Power tuning'), md.indexOf('## ', md.indexOf('## Power tuning') + 3));
    const powerMarked = power.split('\n').filter((l) => l.startsWith('|') && l.includes(`beyond evidence: ×${factor}`));
    assert.equal(powerMarked.length, 1, power);
    for (const cell of markedCells(powerMarked[0]!)) assert.doesNotMatch(cell, INTERVAL, cell);
    assert.match(powerMarked[0]!, /^\| node-http \[runtime=nodejs24\.x\] \| 1 \|/);
    // the cost table's heading above that row names the planted cell's settings
    const heading = cost
      .slice(0, cost.indexOf(marked[0]!))
      .split('\n')
      .filter((l) => l.startsWith('### '))
      .at(-1);
    assert.match(heading ?? '', /memory=1024, runtime=nodejs24\.x/);
  });

  it("report.html: the estimate table's evidence and the chart's point, beside the calibrated band", () => {
    const html = readFileSync(path.join(run, 'report.html'), 'utf8');
    const table = html.match(/<table class="sortable" id="estimates">[^]*?<\/table>/)?.[0] ?? '';
    assert.equal(table.match(/⚠ beyond evidence: loading excess \d+ ms, \d+\.\d\d× the largest fitted/g)?.length, 2, 'both architectures');
    const json = html.match(/<script type="application\/json" id="coldstart-data">([^]*?)<\/script>/)?.[1] ?? '{}';
    const data = JSON.parse(json) as { charts: { id: string; spec: { data: { values?: Record<string, unknown>[] }[] } }[] };
    const values = data.charts.find((c) => c.id === 'estimate')?.spec.data.flatMap((d) => d.values ?? []) ?? [];
    const points = values.filter((v) => 'estimate' in v);
    assert.deepEqual(
      points.filter((p) => p.state === 'beyond evidence').map((p) => p.setting),
      ['nodejs24.x x86_64 1024 MB'],
    );
    assert.equal(points.filter((p) => p.state === 'within the fitted range').length, points.length - 1);
    assert.equal(values.filter((v) => 'text' in v && !('estimate' in v)).length, 6, 'a calibrated band per setting');
  });

  it('RESULTS.md: its estimate and its $', () => {
    const page = resultsPageOf(dir);
    const marked = page.split('\n').filter((l) => l.startsWith('|') && l.includes('beyond evidence: ×'));
    assert.equal(marked.length, 1, page);
    assert.match(marked[0]!, /^\| node-http \\\[memory=1024, runtime=nodejs24\.x\\\] \| 1 \|/);
    assert.equal(marked[0]!.match(/beyond evidence: ×\d+\.\d\d on loading/g)?.length, 2, 'beside the estimate and beside the $');
    for (const cell of markedCells(marked[0]!)) assert.doesNotMatch(cell, INTERVAL, cell);
  });
});
