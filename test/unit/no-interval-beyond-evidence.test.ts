/**
 * No bracketed interval on an estimate beyond its evidence, in any output (issue 47's done-when): every
 * published run and the golden run, as committed (test/unit/published-runs.test.ts holds them to what
 * `npm run report` writes), and results/RESULTS.md. An estimate beyond the evidence is known from
 * summary.csv (estimate_extrapolated, estimate_beyond_evidence…) and from the mark each output prints;
 * where it is, no Init, running, Billed or $ interval may be printed: not in summary.csv's interval
 * columns, not in a table cell that carries the mark, not in the estimate tables' interval columns of
 * its row (summary.md, report.html), not as the chart's interval bar. And no factor reads ×1.0 for a
 * cell beyond the range (issue 47: 1.04× the range was printed "extrapolated ×1.0").
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { ROOT, fixture } from '../support/in-process.ts';
import { tablesOf } from '../support/md-in-csv.ts';

const PUBLISHED = path.join(ROOT, 'results', 'published');
const FOLDERS = [
  ...readdirSync(PUBLISHED, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(PUBLISHED, d.name)),
  path.join(fixture('golden-run'), 'expected'),
];

/** An interval as the outputs print one: two figures joined by an en dash ("1074–1924", "$18.10–$32.27"). */
const INTERVAL = /\d–\$?\d/;
/** The marks of an estimate beyond its evidence, the new one and the one it replaced. */
const MARK = /beyond evidence|extrapolated ×/;
/** A factor beyond the range printed as if it were none. */
const FACTOR_ONE = /(?:beyond evidence: |extrapolated )×1\.0{1,2}(?![\d])/;
/** summary.csv's interval columns of an estimate (any architecture's suffix). */
const INTERVAL_COLUMN = new RegExp(
  String.raw`^(?:estimate_(?:init_duration|billed_duration|init_running)_(?:low|high)_ms|estimate_cost_per_million_usd_(?:low|high)|` +
    String.raw`power_tuning_(?:first_response_(?:low|high)_ms|cost_per_million_usd_(?:low|high)))(?:_|$)`,
);
/** The estimate tables' columns that hold an interval resting on the Init estimate (Duration's is its samples' alone). */
const ESTIMATE_INTERVAL_HEADERS = ['Init interval', 'Billed interval', "Init: running (× Lambda's CPU)"];

const read = (file: string) => readFileSync(file, 'utf8');
const stripTags = (html: string) => html.replace(/<[^>]*>/g, '');

/** The violations of one text output: a marked cell with an interval, a factor of ×1.0. */
function markedCellViolations(text: string, cells: (text: string) => string[]): string[] {
  const found = cells(text).filter((cell) => MARK.test(cell) && INTERVAL.test(cell));
  if (FACTOR_ONE.test(text)) found.push(`a factor printed ×1.0: ${FACTOR_ONE.exec(text)![0]}`);
  return found;
}

/** A markdown output's table cells (its paragraphs quote the rule in words, with dates joined by an en dash). */
const markdownCells = (md: string) => md.split('\n').flatMap((line) => (line.startsWith('|') ? line.split('|') : []));
const htmlCells = (html: string) => [...html.matchAll(/<td[^>]*>([^]*?)<\/td>/g)].map((m) => stripTags(m[1]!));

/** summary.md's estimate table: a row beyond the evidence (its evidence column) prints no interval in the Init-based columns. */
function markdownEstimateViolations(md: string): string[] {
  return tablesOf(md)
    .filter((t) => t.header.includes('Init interval') && t.header.includes('evidence'))
    .flatMap((t) =>
      t.rows
        .filter((row) => row[t.header.indexOf('evidence')]!.startsWith('⚠'))
        .flatMap((row) =>
          [...ESTIMATE_INTERVAL_HEADERS, ...t.header.filter((h) => h.startsWith('$ per million'))]
            .filter((h) => t.header.includes(h) && INTERVAL.test(row[t.header.indexOf(h)]!))
            .map((h) => `${row[0]} ${h}: ${row[t.header.indexOf(h)]}`),
        ),
    );
}

/** report.html's estimate table, as summary.md's; and the chart's points beyond the evidence have no interval bar. */
function htmlEstimateViolations(html: string): string[] {
  const table = /<table class="sortable" id="estimates">([^]*?)<\/table>/.exec(html)?.[1];
  const found: string[] = [];
  if (table) {
    const header = [...table.matchAll(/<th[^>]*>([^]*?)<\/th>/g)].map((m) => stripTags(m[1]!));
    for (const tr of table.matchAll(/<tr>([^]*?)<\/tr>/g)) {
      const row = htmlCells(tr[1]!);
      if (row.length !== header.length || !row[header.indexOf('evidence')]!.startsWith('⚠')) continue;
      for (const h of [...ESTIMATE_INTERVAL_HEADERS, '$ per million cold starts (interval)'])
        if (header.includes(h) && INTERVAL.test(row[header.indexOf(h)]!)) found.push(`${row[0]} ${h}: ${row[header.indexOf(h)]}`);
    }
  }
  const json = /<script type="application\/json" id="coldstart-data">([^]*?)<\/script>/.exec(html)?.[1];
  if (json) {
    const data = JSON.parse(json) as { charts: { id: string; spec: { data: { values?: Record<string, unknown>[] }[] } }[] };
    const points = (data.charts.find((c) => c.id === 'estimate')?.spec.data ?? []).flatMap((d) => d.values ?? []);
    for (const p of points.filter((v) => 'estimate' in v && v.state !== 'within the fitted range'))
      if (p.low !== p.estimate || p.high !== p.estimate || INTERVAL.test(String(p.intervalText)))
        found.push(`chart point ${String(p.series)} ${String(p.routes)}: ${String(p.intervalText)}`);
  }
  return found;
}

/** summary.csv: a row beyond the evidence (either mark) has every interval column empty. */
function csvViolations(csv: string): string[] {
  const rows = parse<Record<string, string>>(csv, { columns: true });
  return rows.flatMap((r) => {
    const beyond = r.estimate_extrapolated === 'yes' || Object.entries(r).some(([k, v]) => k.startsWith('estimate_beyond_evidence') && v);
    if (!beyond) return [];
    return Object.entries(r)
      .filter(([k, v]) => INTERVAL_COLUMN.test(k) && v !== '')
      .map(([k, v]) => `${r.file} ${k}=${v}`);
  });
}

/** Every violation of one run folder's outputs. */
function folderViolations(folder: string): string[] {
  const at = (file: string) => path.join(folder, file);
  const found: string[] = [];
  for (const file of ['summary.md', 'levers.md', 'scaling.md'].filter((f) => existsSync(at(f)))) {
    found.push(...markedCellViolations(read(at(file)), markdownCells).map((v) => `${file}: ${v}`));
    found.push(...markdownEstimateViolations(read(at(file))).map((v) => `${file}: ${v}`));
  }
  if (existsSync(at('report.html'))) {
    const html = read(at('report.html'));
    found.push(...markedCellViolations(html, htmlCells).map((v) => `report.html: ${v}`));
    found.push(...htmlEstimateViolations(html).map((v) => `report.html: ${v}`));
  }
  if (existsSync(at('summary.csv'))) found.push(...csvViolations(read(at('summary.csv'))).map((v) => `summary.csv: ${v}`));
  return found;
}

describe('no interval on an estimate beyond its evidence, in any output', () => {
  it('reads the folders it should: every published run, the golden run, and some estimate beyond the evidence among them', () => {
    assert.ok(FOLDERS.length >= 18, String(FOLDERS.length));
    const marked = FOLDERS.filter((f) => existsSync(path.join(f, 'summary.md')) && MARK.test(read(path.join(f, 'summary.md'))));
    assert.ok(marked.length >= 5, `${marked.length} runs with an estimate beyond the evidence`);
  });

  for (const folder of FOLDERS) {
    it(path.relative(ROOT, folder), () => {
      const found = folderViolations(folder);
      assert.deepEqual(found.slice(0, 5), [], `${found.length} intervals beyond the evidence`);
    });
  }

  it('results/RESULTS.md', () => {
    const found = markedCellViolations(read(path.join(ROOT, 'results', 'RESULTS.md')), markdownCells);
    assert.deepEqual(found.slice(0, 5), [], `${found.length} intervals beyond the evidence`);
  });

  it('finds them when they are there: the outputs as published before issue 47 (an interval and "×1.0" on marked cells)', () => {
    const before =
      '| fastify \\[init=lazy\\] | 1 | 5/5 | 356.8 (246.0–522.3; p95 388.6) extrapolated ×1.0 | $7.70 ($5.77–$10.70) extrapolated ×1.0 |';
    assert.equal(markedCellViolations(before, markdownCells).length, 3, 'two cells and the factor');
    const csv = 'file,estimate_extrapolated,estimate_init_duration_low_ms_arm64,estimate_beyond_evidence\na,yes,100,\nb,no,90,\n';
    assert.deepEqual(csvViolations(csv), ['a estimate_init_duration_low_ms_arm64=100']);
    const md = [
      '## Lambda',
      '',
      '|  | Init estimate | Init interval | Billed interval | $ per million cold starts (estimate, interval) | evidence |',
      '| :-- | --: | --: | --: | --: | :-- |',
      '| a | 1419 | 987–1782 | 1074–1924 | $25.43 | ⚠ extrapolated: excess 509 ms |',
      '| b | 400 | 300–500 | 310–520 | $7.00 ($5.00–$9.00) | within the fitted range |',
    ].join('\n');
    assert.equal(markdownEstimateViolations(md).length, 2, 'a row beyond the evidence: its Init and Billed intervals');
  });
});
