/**
 * report.html answers "what will it cost" on the page a user opens: in chromium (playwright-core
 * driving Debian's chromium, as test/e2e/report-html.test.ts), the page of a default-shaped run
 * (`npm run metrics` with no target: servers; the fake sampler of --debug-mode, a few frameworks and
 * route counts) shows a $ per million cold starts for every cell, each equal to the one computed here
 * from the run's own samples (the median firstResponse priced at Lambda's x86 rate for 1024 MB, the
 * defaults) and to summary.md's cost table; "how to read this" comes first, the warnings summary.md
 * lists are on the page, and the one line on how to get the Lambda answer. On a run with Lambda cells
 * each local Lambda cell is priced by its estimate, as the estimate table prices it. Skipped with the
 * reason when chromium or playwright-core is not installed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { median } from 'simple-statistics';
import { dollars } from '../../metrics/core/format.ts';
import { DEFAULT_MEMORY_MB, PRICE_PER_GB_SECOND } from '../../metrics/core/lambda-platform.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { CHROMIUM_ARGS, findChromium, loadChromium } from '../../metrics/tools/browser.ts';
import { runCli, tempDir } from '../support/helpers.ts';

const executablePath = findChromium();
const chromium = await loadChromium();
const skip = !executablePath
  ? `chromium is not installed (apt-get install chromium${process.env.CHROMIUM ? `; CHROMIUM=${process.env.CHROMIUM} does not exist` : ''})`
  : !chromium
    ? 'playwright-core is not installed (npm install)'
    : false;

/** A run with the fake sampler (nothing is started), in a fresh folder; its folder and what it printed. */
function fakeRun(args: string[]): { dir: string; stdout: string } {
  const dir = path.join(tempDir('coldstart-cost-e2e-'), 'run');
  const done = runCli(['run', '--debug-mode', ...args, '--out', dir]);
  assert.equal(done.status, 0, done.stderr);
  return { dir, stdout: done.stdout };
}

const HINT = /^No Lambda cell in this run: for the Lambda answer .* run npm run metrics -- --target server,lambda /m;

async function open(browser: Browser, file: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const problems: string[] = [];
  await context.route('**/*', async (route) => {
    if (route.request().url().startsWith('file:')) return route.continue();
    problems.push(`request: ${route.request().url()}`);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(pathToFileURL(file).href);
  return { page, problems };
}

/** The cost table's rows as the browser shows them: header → text. */
async function costRows(page: Page): Promise<Record<string, string>[]> {
  const headers = (await page.locator('#cost-table thead th').allInnerTexts()).map((h) => h.trim());
  const rows = await page
    .locator('#cost-table tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  return rows.map((cells) => Object.fromEntries(headers.map((h, i) => [h, cells[i]!.trim()])));
}

describe('report.html answers what it costs', { skip }, () => {
  let browser: Browser | undefined;
  before(async () => {
    browser = await chromium!.launch({ executablePath, args: CHROMIUM_ARGS });
  });
  after(async () => browser?.close());

  describe('a default-shaped run (servers; 3 frameworks × 3 route counts, 5 samples)', () => {
    let dir: string;
    let stdout: string;
    let page: Page;
    let problems: string[];
    before(async () => {
      ({ dir, stdout } = fakeRun(['--frameworks', 'node-http,fastify,hono', '--routes', '1,10,100']));
      ({ page, problems } = await open(browser!, path.join(dir, 'report.html')));
    });

    it('shows a $ per million cold starts for every cell, computed from its samples', async () => {
      const samples = readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample' && s.ok);
      const expected = new Map<string, string>();
      for (const framework of ['node-http', 'fastify', 'hono'])
        for (const routes of [1, 10, 100]) {
          const times = samples
            .filter((s) => s.cell.framework === framework && s.cell.routes === routes)
            .map((s) => s.marks!.firstResponse);
          assert.equal(times.length, 5, `${framework}@${routes}: 5 samples`);
          // the default cost model: 1024 MB, x86 on-demand, per million
          const perMillion = (median(times) / 1000) * (DEFAULT_MEMORY_MB / 1024) * PRICE_PER_GB_SECOND.x86_64 * 1e6;
          expected.set(`${framework}@${routes}`, dollars(perMillion));
        }
      const rows = await costRows(page);
      assert.equal(rows.length, 9, 'a row per cell');
      const shown = new Map(rows.map((r) => [`${r.series}@${r.routes}`, r['$ per million cold starts']]));
      assert.deepEqual(shown, expected);
      for (const row of rows) {
        assert.equal(row['priced on'], 'firstResponse median, measured here');
        assert.equal(row['memory (MB)'], '1024');
      }
      // the figures differ between cells: a table of one repeated value would not show a computation
      assert.ok(new Set(shown.values()).size > 3, [...shown.values()].join(' '));
    });

    it('shows the same figures as summary.md’s cost table', async () => {
      const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
      const section = summary.slice(summary.indexOf('## Cost: $ per million cold starts (AWS Lambda, 1024 MB, x86)'));
      const pivot = section.split('\n').filter((line) => /^\| \d+ \|/.test(line));
      assert.equal(pivot.length, 3, section.slice(0, 500));
      const header = section.split('\n').find((line) => line.startsWith('| routes |'))!;
      const frameworks = header
        .split('|')
        .slice(2, -1)
        .map((c) => c.trim());
      const fromSummary = new Map<string, string>();
      for (const line of pivot) {
        const [routes, ...values] = line
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim());
        frameworks.forEach((f, i) => fromSummary.set(`${f}@${routes}`, values[i]!));
      }
      const rows = await costRows(page);
      assert.deepEqual(new Map(rows.map((r) => [`${r.series}@${r.routes}`, r['$ per million cold starts']])), fromSummary);
    });

    it('labels the figure: its title, a model not a bill, the formula, and how to get the Lambda answer', async () => {
      assert.equal((await page.locator('h2#cost').innerText()).trim(), 'Cost: $ per million cold starts (AWS Lambda, 1024 MB, x86)');
      const section = await page.locator('h2#cost ~ p').allInnerTexts();
      const text = section.join('\n');
      assert.match(text, /A modelled figure, not a bill/);
      assert.match(text, /\$ per million cold starts = firstResponse median \(ms\) \/ 1000 × 1024 MB/);
      assert.match(text, /These are local timings, not Lambda timings/);
      assert.ok(await page.locator('#lambda-hint').isVisible());
      assert.match(await page.locator('#lambda-hint').innerText(), /--target server,lambda/);
      // and the terminal, in one line after the run's last
      assert.match(stdout, HINT);
    });

    it('begins with how to read it, then the warnings, before the charts', async () => {
      const order = await page.locator('h2').allInnerTexts();
      const at = (title: string) => order.findIndex((t) => t.trim().startsWith(title));
      assert.ok(at('How to read this') >= 0 && at('How to read this') < at('Warnings'), order.join(' | '));
      assert.ok(at('Warnings') < at('Charts'), order.join(' | '));
      assert.match(await page.locator('#how-to-read').innerText(), /What will it cost\?/);
      await page.locator('#how-to-read a[href="#cost"]').click();
      assert.ok(await page.locator('h2#cost').isVisible());
    });

    it('lists the warnings summary.md lists', async () => {
      const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
      const warned = summary
        .slice(summary.indexOf('## Warnings'))
        .split('\n')
        .filter((line) => line.startsWith('- ⚠ '))
        .map((line) => line.slice(4));
      assert.ok(warned.length > 0, 'the fake run has outliers');
      await page.locator('#warnings summary').click();
      const shown = await page.locator('#warnings').innerText();
      for (const line of warned) assert.ok(shown.includes(line), `${line} in the page's warnings`);
      // summary.md's environment block warns of the runtime's end of life, the page too
      if (/End of life/.test(summary)) assert.match(shown, /past its end of life/);
    });

    it('sorts the cost table by its $ column', async () => {
      const header = page.locator('#cost-table th', { hasText: '$ per million cold starts' });
      await header.click();
      const values = await page
        .locator('#cost-table tbody tr')
        .evaluateAll((trs) => trs.map((tr) => Number((tr.children[5] as HTMLElement).dataset.sort)));
      assert.deepEqual(
        values,
        [...values].sort((a, b) => a - b),
      );
      assert.deepEqual(problems, []);
    });
  });

  describe('a run with Lambda cells: each priced by its estimate, as the estimate table prices it', () => {
    let page: Page;
    let problems: string[];
    let stdout: string;
    before(async () => {
      let dir: string;
      ({ dir, stdout } = fakeRun(['--target', 'server,lambda', '--frameworks', 'fastify,hono', '--routes', '1,10', '--samples', '2']));
      ({ page, problems } = await open(browser!, path.join(dir, 'report.html')));
    });

    it('the cost table and the estimate table agree, cell by cell', async () => {
      const rows = await costRows(page);
      const lambda = rows.filter((r) => r['priced on'] === 'Billed Duration estimate on Lambda');
      // fastify at 1 and 10 routes, eager and lazy (the --init default), hono at 1 and 10, and the hello-world reference
      assert.equal(lambda.length, 7, rows.map((r) => `${r.series}: ${r['priced on']}`).join('; '));
      const estimates = await page
        .locator('#estimates tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
      const headers = (await page.locator('#estimates thead th').allInnerTexts()).map((h) => h.trim());
      const costAt = headers.indexOf('$ per million cold starts (interval)');
      assert.ok(costAt > 0, headers.join(' | '));
      // "$1.23 ($1.00–$1.50)": the estimate table's figure and interval, the cost table's two columns; beyond the
      // evidence, "$1.23 beyond evidence: …" in both, no interval (issue 47)
      const fromEstimates = estimates.map((cells) => cells[costAt]!.trim()).sort();
      const bracketed = (interval: string) =>
        interval === '–' ? '' : interval.startsWith('beyond evidence') ? ` ${interval}` : ` (${interval})`;
      const fromCost = lambda.map((r) => `${r['$ per million cold starts']}${bracketed(r['$ interval']!)}`).sort();
      assert.deepEqual(fromCost, fromEstimates);
      assert.equal(await page.locator('#lambda-hint').count(), 0, 'no hint when the run has Lambda cells');
      assert.doesNotMatch(stdout, HINT);
      assert.match(
        (await page.locator('h2#cost ~ p').allInnerTexts()).join('\n'),
        /calibrated estimate \(real cold starts from \d{4}-\d\d-\d\d/,
      );
      assert.deepEqual(problems, []);
    });
  });
});
