/**
 * A `measure` report speaks of the user's app, not of generated route files: summary.md and
 * report.html are titled for the app, define firstResponse as the answer to the request (not "the
 * LAST route"), have no "by route count" pivot, no cost of a route and no log-log chart of one point
 * (no chart-firstresponse.svg, chart-listen.svg, scaling.md or scaling.csv; no curve on the page),
 * and the cost table has a row per app. A generated run of several route counts keeps all of them.
 * The generated runs use the fake sampler (--debug-mode): nothing is started.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { writeReport } from '../../metrics/report/write.ts';
import { ROOT, tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

/** `npm run measure` of 16 apps (results/published): its samples and meta.json, reported again here. */
const APPS_RUN = path.join(ROOT, 'results', 'published', '2026-11-27-seed-fastify-apps');

/** The page's text outside its scripts (vega's bundle and the data), tags dropped. */
function pageText(html: string): string {
  return html
    .slice(html.indexOf('<h1'), html.indexOf('<script'))
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
}

/** The ids of the charts the page draws (its JSON block). */
function chartIds(html: string): string[] {
  const json = /<script type="application\/json" id="coldstart-data">([^]*?)<\/script>/.exec(html)?.[1] ?? '{"charts":[]}';
  return (JSON.parse(json) as { charts: { id: string }[] }).charts.map((c) => c.id);
}

describe('a measure report is worded for the app (16 fastify apps of the seed, a published measure run)', () => {
  let dir: string;
  let summary: string;
  let html: string;
  before(async () => {
    dir = tempDir('coldstart-measure-words-');
    for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(APPS_RUN, file), path.join(dir, file));
    await writeReport(dir);
    summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    html = readFileSync(path.join(dir, 'report.html'), 'utf8');
  });

  it('titles both pages for the app and defines firstResponse as the answer to the request', () => {
    assert.match(summary, /^# Cold start of your app\n/);
    assert.match(html, /<h1>Cold start of your app \(/);
    assert.match(summary, /- \*\*firstResponse:\*\* the runner has received the first valid answer to the request/);
    assert.match(summary, /None: every sample answered the request correctly\./);
  });

  it('says nothing of route counts or of the LAST route', () => {
    for (const [name, text] of [
      ['summary.md', summary],
      ['report.html', pageText(html)],
    ] as const) {
      assert.doesNotMatch(text, /route count/i, name);
      assert.doesNotMatch(text, /last route/i, name);
      assert.doesNotMatch(text, /N = \d/, name);
      assert.doesNotMatch(text, /Scaling with routes/, name);
    }
  });

  it('draws no curve of one point: no curve files, no scaling files, no curve on the page', () => {
    for (const file of ['chart-firstresponse.svg', 'chart-listen.svg', 'scaling.md', 'scaling.csv'])
      assert.ok(!existsSync(path.join(dir, file)), `${file} is not written`);
    assert.ok(existsSync(path.join(dir, 'chart-phases.svg')));
    assert.doesNotMatch(summary, /## Charts/);
    // (these apps mark no import or route registration: no phase chart either)
    assert.ok(!chartIds(html).some((id) => id === 'firstresponse' || id === 'ready'), chartIds(html).join(', '));
    assert.match(pageText(html), /One point per app: no curve to draw/);
  });

  it('prices the app in a row of its own', () => {
    const cost = summary.slice(summary.indexOf('## Cost:'));
    const rows = cost.split('\n').filter((line) => /^\| app:f[45]-/.test(line));
    assert.equal(rows.length, 16, cost.slice(0, 400));
    for (const row of rows) assert.match(row, /^\| app:f[45]-(distinct|identical)-\d+ \| \$\d+(\.\d+)? \|$/);
    assert.match(cost, /^## Cost[^\n]*\n\n\| app \| \$ per million cold starts \|\n/);
    assert.match(cost, /relative cost of the apps' cold starts/);
    assert.match(html, /<th scope="col" tabindex="0">app<\/th><th scope="col" tabindex="0">priced on<\/th>/);
  });
});

describe('a generated run of several route counts keeps its curves', () => {
  it('writes the curve charts and scaling files, and draws both curves', async () => {
    const dir = path.join(tempDir('coldstart-measure-words-'), 'run');
    const done = await mainInProcess([
      'run',
      '--debug-mode',
      '--frameworks',
      'hono',
      '--routes',
      '1,10,100',
      '--samples',
      '2',
      '--out',
      dir,
    ]);
    assert.equal(done.code, 0, done.stderr);
    for (const file of ['chart-firstresponse.svg', 'chart-listen.svg', 'scaling.md', 'scaling.csv'])
      assert.ok(existsSync(path.join(dir, file)), file);
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    assert.deepEqual(chartIds(html), ['firstresponse', 'ready', 'phases']);
    assert.match(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /^# Cold start by route count\n/);
  });

  it('a run of one route count draws no curve either', async () => {
    const dir = path.join(tempDir('coldstart-measure-words-'), 'run');
    const done = await mainInProcess([
      'run',
      '--debug-mode',
      '--frameworks',
      'hono,fastify',
      '--routes',
      '100',
      '--samples',
      '2',
      '--out',
      dir,
    ]);
    assert.equal(done.code, 0, done.stderr);
    assert.ok(!existsSync(path.join(dir, 'chart-firstresponse.svg')));
    assert.ok(existsSync(path.join(dir, 'scaling.md')), 'a generated run keeps scaling.md (it says a fit needs more route counts)');
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    assert.deepEqual(chartIds(html), ['phases']);
    assert.match(pageText(html), /One route count per series: no curve against the route count to draw/);
  });
});
