/**
 * report.html's structure, written from the golden run folder (test/fixtures/golden-run) and from
 * hostile ones: one self-contained page (vega inline, no URL it would fetch, a policy that forbids
 * fetching), its chart data equal to the summaries summary.csv is written from, a toggle per varied
 * dimension, sortable tables, the same bytes from the same folder, and every text from outside
 * escaped for HTML and for the <script> element its JSON sits in. The browser test
 * (test/e2e/report-html.test.ts) opens the page in chromium.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { scriptJson } from '../../metrics/core/escape.ts';
import { shippedCodeLoading } from '../../metrics/analyse/code-loading.ts';
import { validationNote } from '../../metrics/report/code-loading.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { samplesCell } from '../../metrics/report/html-tables.ts';
import { curveHtmlSpec, OKABE_ITO, SERIES_DASHES, SERIES_SHAPES, seriesStyle } from '../../metrics/report/html-charts.ts';
import { fixture, tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const GOLDEN = fixture('golden-run');

async function reportOf(meta?: (m: Record<string, unknown>) => void): Promise<{ dir: string; html: string }> {
  const dir = tempDir('coldstart-html-');
  copyFileSync(path.join(GOLDEN, 'samples.jsonl'), path.join(dir, 'samples.jsonl'));
  const stored = JSON.parse(readFileSync(path.join(GOLDEN, 'meta.json'), 'utf8')) as Record<string, unknown>;
  meta?.(stored);
  writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(stored));
  const { written } = await writeReport(dir);
  assert.ok(written.includes('report.html'), written.join(' '));
  return { dir, html: readFileSync(path.join(dir, 'report.html'), 'utf8') };
}

interface PageData {
  charts: { id: string; spec: { data: { name: string; values?: Record<string, unknown>[] }[]; signals?: { name: string }[] } }[];
  toggles: { dimension: string; values: string[] }[];
}

function pageData(html: string): PageData {
  const blocks = [...html.matchAll(/<script type="application\/json" id="coldstart-data">([^]*?)<\/script>/g)];
  assert.equal(blocks.length, 1, 'one JSON block');
  return JSON.parse(blocks[0]![1]!) as PageData;
}

function chartValues(data: PageData, id: string): Record<string, unknown>[] {
  const chart = data.charts.find((c) => c.id === id);
  assert.ok(chart, `chart ${id}`);
  return chart.spec.data.flatMap((d) => d.values ?? []);
}

describe('report.html of the golden run', () => {
  let dir: string;
  let html: string;
  before(async () => ({ dir, html } = await reportOf()));

  it('is one self-contained page: vega inline, nothing fetched, fetching forbidden', () => {
    assert.match(html, /^<!doctype html>\n<html lang="en">/);
    assert.equal(html.match(/<script\b/g)?.length, 4, 'the data, vega, table sorting, the page script');
    assert.match(html, /t\.version="\d+\.\d+\.\d+"/, "vega's bundle");
    assert.doesNotMatch(html, /<script[^>]*\bsrc=|<link\b|@import|url\(\s*['"]?https?:/i);
    assert.doesNotMatch(html, /(?:src|href)="(?:https?:)?\/\//i);
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
    assert.ok(html.length < 800_000, `${html.length} bytes`);
  });

  it('has the charts, each with one point per cell, from the same medians as summary.csv', () => {
    const data = pageData(html);
    assert.deepEqual(
      data.charts.map((c) => c.id),
      ['firstresponse', 'ready', 'phases'],
    );
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    const points = chartValues(data, 'firstresponse');
    assert.equal(points.length, 18);
    assert.equal(new Set(points.map((p) => p.series)).size, 6, 'fastify, hono, node-http × plain, bundle');
    const medians = (values: unknown[]) => values.map((v) => Number(v).toFixed(3)).sort();
    assert.deepEqual(medians(points.map((p) => p.median)), medians(rows.map((r) => r.firstResponse_median_ms)));
    assert.equal(chartValues(data, 'ready').length, 18);
    // five phases per cell, every route count (the page picks one)
    assert.equal(chartValues(data, 'phases').length, 18 * 5);
  });

  it('has a toggle per varied dimension, a signal for it in every chart, and rows that carry it', () => {
    const data = pageData(html);
    assert.deepEqual(data.toggles, [{ dimension: 'build', values: ['bundle', 'plain'] }]);
    assert.match(html, /<select data-filter="build" data-signal="filter_build"><option value="" selected>all<\/option>/);
    for (const chart of data.charts)
      assert.ok(
        chart.spec.signals?.some((s) => s.name === 'filter_build'),
        chart.id,
      );
    // the results table and the cost table: a row per cell, each with its build
    for (const id of ['results', 'cost-table']) {
      const table = new RegExp(`<table class="sortable" id="${id}">[^]*?</table>`).exec(html)?.[0] ?? '';
      assert.equal(table.match(/<tr data-filter-build="bundle">/g)?.length, 9, id);
      assert.equal(table.match(/<tr data-filter-build="plain">/g)?.length, 9, id);
    }
  });

  it('has sortable tables whose numeric cells sort by value, and the machine and its calibration note', () => {
    assert.match(html, /<table class="sortable" id="results">/);
    assert.match(html, /<table class="sortable" id="fits">/);
    // the per-route cost as a fitted curve: a row per series and metric, ms per route with its interval
    const curves = html.match(/<table class="sortable" id="curves">[^]*?<\/table>/)?.[0] ?? '';
    assert.match(curves, /<th scope="col" tabindex="0">ms\/route at 1,000 routes \(95 % CI\)<\/th>/);
    assert.match(curves, /<td>first response<\/td>/);
    assert.match(curves, /<td class="num" data-sort="-?\d+(\.\d+)?">-?\d+\.\d{3} \(-?\d+\.\d{3} to -?\d+\.\d{3}\)<\/td>/);
    assert.match(html, /<td class="num" data-sort="161\.\d+">161<\/td>/);
    assert.match(html, /<dt>Machine<\/dt><dd>linux x64 6\.18\.44-fc-v769 \| 2 vCPUs \| 23\.5 GB \| AMD EPYC<\/dd>/);
    assert.match(html, /no local Lambda cell/);
  });

  it('is the same bytes from the same folder', async () => {
    const again = await reportOf();
    assert.ok(again.html === html, 'two reports of one run folder differ');
  });
});

describe('report.html of a run with local Lambda cells (--debug-mode)', () => {
  it('has the estimate chart, the calibration with its source, dates and validation note, and the estimate table', async () => {
    const dir = path.join(tempDir('coldstart-html-'), 'run');
    const run = await mainInProcess([
      'run',
      '--debug-mode',
      '--target',
      'lambda',
      '--frameworks',
      'fastify',
      '--routes',
      '1,10',
      '--samples',
      '2',
      '--out',
      dir,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    const data = pageData(html);
    // fastify at 1 and 10 routes, eager and lazy (--init's Lambda default), and the hello-world reference the
    // calibration needs (and one calibrated band: the setting's estimates the code-loading fit covers)
    const values = chartValues(data, 'estimate');
    assert.equal(values.filter((v) => 'estimate' in v).length, 5);
    assert.equal(values.filter((v) => 'text' in v && 'setting' in v && !('estimate' in v)).length, 1);
    assert.match(html, /<p>Calibration: maxday\/lambda-perf data, dates \d{4}-\d\d-\d\d–\d{4}-\d\d-\d\d \(hello world: <code>/);
    assert.ok(html.includes(validationNote(shippedCodeLoading()).replace(/"/g, '&quot;').replace(/'/g, '&#39;')), 'the validation note');
    assert.equal(
      html.match(/<table class="sortable" id="estimates">[^]*?<\/table>/)?.[0].match(/<tr\b/g)?.length,
      1 + 5,
      'the header and five cells',
    );
  });
});

describe("report.html's series and what it leaves out", () => {
  it('tells 11 series apart: Okabe–Ito colours, and past eight other colours, a dashed line and another point shape', () => {
    const labels = Array.from({ length: 11 }, (_, i) => `framework-${i}`);
    const points = labels.flatMap((series) =>
      [1, 10].map((routes) => ({ series, routes, median: routes, low: routes, high: routes, n: 3 })),
    ) as unknown as Parameters<typeof curveHtmlSpec>[0];
    const spec = JSON.stringify(curveHtmlSpec(points, { title: 't', axis: 'a' }, []));
    const ranges = (channel: string) => {
      const found = [...spec.matchAll(new RegExp(`"${channel}":\\{"field":"series"[^]*?"range":(\\[[^]*?\\])\\}`, 'g'))];
      assert.ok(found.length, `${channel} encodes the series`);
      return JSON.parse(found[0]![1]!) as unknown[];
    };
    const colors = ranges('color') as string[];
    const dashes = ranges('strokeDash');
    const shapes = ranges('shape');
    assert.equal(colors.length, 11);
    assert.ok(colors.slice(0, 8).every((c) => (OKABE_ITO as readonly string[]).includes(c)));
    // issue 51: deepkit and node-http were both black, deepkit-http and restify both orange
    assert.equal(new Set(colors).size, 11, 'eleven colours, each once');
    const styles = labels.map((_, i) => JSON.stringify([colors[i], dashes[i], shapes[i]]));
    assert.equal(new Set(styles).size, 11, 'every series its own colour, dash and shape together');
    assert.deepEqual(dashes[8], SERIES_DASHES[1]);
    assert.equal(shapes[8], SERIES_SHAPES[1]);
    assert.deepEqual(seriesStyle(0), { color: '#000000', dash: [1, 0], shape: 'circle' });
  });

  it('opens with the answers: the curve and the $ per million before the charts and the long table of every cell', async () => {
    const { html } = await reportOf();
    const at = (text: string) => {
      const i = html.indexOf(text);
      assert.ok(i >= 0, `${text} is on the page`);
      return i;
    };
    const results = at('<h2>Results</h2>');
    assert.ok(at('<h2 id="scaling">') < results, 'the curve before the results table');
    assert.ok(at('<h2 id="cost">') < results, 'the $ per million before the results table');
    assert.ok(at('<h2 id="cost">') < at('<h2 id="charts">'), 'the $ per million before the charts');
    assert.ok(at('<h2 id="scaling">') < at('<h2 id="cost">'));
    assert.doesNotMatch(html, />0\/0</, 'no 0/0 cell');
  });

  it('a cell with no sample at all reads "no sample", not 0/0 (which reads as a failure)', () => {
    assert.equal(samplesCell({ ok: 0, failed: 0 }).text, 'no sample');
    assert.equal(samplesCell({ ok: 0, failed: 2 }).text, '0/2');
    assert.equal(samplesCell({ ok: 3, failed: 1 }).text, '3/4');
  });

  it('the palette: every series of up to 16 its own colour, of up to 32 its own colour and dash together', () => {
    const styles = Array.from({ length: 32 }, (_, i) => seriesStyle(i));
    assert.equal(new Set(styles.slice(0, 16).map((s) => s.color.toLowerCase())).size, 16);
    assert.equal(new Set(styles.map((s) => `${s.color} ${s.dash.join(',')}`)).size, 32);
    // a colour is seen on the white page: none lighter than Okabe–Ito's yellow
    const lightness = (hex: string) => [1, 3, 5].reduce((sum, at) => sum + parseInt(hex.slice(at, at + 2), 16), 0) / 3;
    for (const s of styles) assert.ok(lightness(s.color) <= lightness('#F0E442'), s.color);
  });

  it('says which frameworks were skipped and why, and which failed in every sample (escaped)', async () => {
    const { html } = await reportOf((meta) => {
      meta.skipped = { mion: '@mionkit/router not installed', '<b>x</b>': '<i>y</i>' };
    });
    assert.ok(
      html.includes(
        '<p class="note skipped">Skipped, not measured: mion (@mionkit/router not installed); ' +
          '&lt;b&gt;x&lt;/b&gt; (&lt;i&gt;y&lt;/i&gt;).</p>',
      ),
      html.slice(0, 3000),
    );
    const golden = await reportOf();
    assert.ok(golden.html.includes('<p class="note skipped">No framework was skipped.</p>'));
    const dir = path.join(tempDir('coldstart-html-'), 'run');
    const run = await mainInProcess([
      'run',
      '--debug-mode',
      'crash=fastify',
      '--frameworks',
      'fastify,hono',
      '--routes',
      '1',
      '--samples',
      '2',
      '--allow-failures',
      '--out',
      dir,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      readFileSync(path.join(dir, 'report.html'), 'utf8'),
      /Failed in every sample, so absent from the charts: fastify \([^)]+\)\./,
    );
  });
});

describe('report.html of a hostile run folder', () => {
  const HOSTILE = '</script><script>alert(1)</script><img src=x onerror=alert(1)>&amp;\u2028\u2029<!--';
  let html: string;
  before(
    async () =>
      ({ html } = await reportOf((meta) => {
        meta.command = HOSTILE;
        meta.startedAt = HOSTILE;
        meta.machine = { os: HOSTILE, cpu: HOSTILE, cores: 2, memoryGB: 1 };
        meta.runtimes = { [HOSTILE]: HOSTILE };
        meta.frameworks = { [HOSTILE]: { version: HOSTILE, packages: {}, validation: '', alwaysValidates: false } };
      })),
  );

  it('escapes every text from meta.json: no tag, entity or comment of its own reaches the page', () => {
    assert.doesNotMatch(html, /<script>alert|<img|<!--/);
    assert.match(html, /&lt;\/script&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;&lt;img src=x onerror=alert\(1\)&gt;&amp;amp;/);
    assert.equal(html.match(/<script\b/g)?.length, 4);
    assert.equal(html.match(/<\/script>/g)?.length, 4);
  });
});

describe('scriptJson', () => {
  it('for any value: JSON that reads back the same, with no character that could end a <script> or a line', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        for (const v of [value, text, { [text]: [text] }]) {
          const json = scriptJson(v);
          assert.doesNotMatch(json, /[<>&\u2028\u2029]/);
          assert.deepEqual(JSON.parse(json), JSON.parse(JSON.stringify(v)));
        }
      }),
    );
  });
});
