/**
 * report.html in a real browser: Debian's chromium, driven by playwright-core (no browser of its
 * own), opens the page from disk with every request that is not a file refused, and checks that it
 * draws with no console error and no page error, that each chart has its series and points, that
 * a toggle changes what the charts and the table show, that a header click sorts its table, and
 * that hovering a point shows its figures; and that results/index.html lists published runs, sorts
 * them and links a report that draws. Skipped with the reason when chromium or playwright-core is
 * not installed (.ci/run installs chromium with apt-get); CHROMIUM names another chromium.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { cellKey } from '../../metrics/core/cell.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { writeResultsIndex } from '../../metrics/pipeline/results-index.ts';
import { publishedFolders } from '../../metrics/pipeline/results-page.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { CHROMIUM_ARGS, findChromium, loadChromium } from '../../metrics/tools/browser.ts';
import { fixture, ROOT, runCli, tempDir } from '../support/helpers.ts';

const executablePath = findChromium();
const chromium = await loadChromium();
const skip = !executablePath
  ? `chromium is not installed (apt-get install chromium${process.env.CHROMIUM ? `; CHROMIUM=${process.env.CHROMIUM} does not exist` : ''})`
  : !chromium
    ? 'playwright-core is not installed (npm install)'
    : false;

interface Shown {
  series: string;
  routes: number;
  median?: number;
  phase?: string;
}

interface Opened {
  page: Page;
  /** console errors, page errors and requests that were not for a file */
  problems: string[];
}

declare global {
  interface Window {
    __coldstart: { ready: Promise<unknown>; shown(id: string, mark: string): Shown[] };
  }
}

async function open(browser: Browser, file: string, waitForCharts = true): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const problems: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    problems.push(`request: ${url}`);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(pathToFileURL(file).href);
  if (waitForCharts) await page.evaluate(() => window.__coldstart.ready);
  return { page, problems };
}

const shown = (page: Page, id: string, mark = 'points_marks') => page.evaluate(([i, m]) => window.__coldstart.shown(i!, m!), [id, mark]);
const seriesOf = (items: Shown[]) => [...new Set(items.map((i) => i.series))].sort();

describe('report.html in chromium', { skip }, () => {
  let browser: Browser | undefined;
  before(async () => {
    browser = await chromium!.launch({ executablePath, args: CHROMIUM_ARGS });
  });
  after(async () => browser?.close());

  describe('the golden run (3 frameworks × 3 route counts × build plain, bundle)', () => {
    let opened: Opened;
    before(async () => {
      const dir = tempDir('coldstart-html-e2e-');
      for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(fixture('golden-run'), file), path.join(dir, file));
      await writeReport(dir);
      opened = await open(browser!, path.join(dir, 'report.html'));
    });

    it('draws with no console error, no page error and no request beyond the file', () => {
      assert.deepEqual(opened.problems, []);
    });

    it('each chart has its series and one point per cell', async () => {
      const { page } = opened;
      const labels = ['fastify', 'hono', 'node-http'].flatMap((f) => [`${f} [build=bundle]`, `${f} [build=plain]`]).sort();
      for (const id of ['firstresponse', 'ready']) {
        const points = await shown(page, id);
        assert.equal(points.length, 18, id);
        assert.deepEqual(seriesOf(points), labels, id);
        assert.deepEqual(
          [...new Set(points.map((p) => p.routes))].sort((a, b) => a - b),
          [1, 10, 100],
          id,
        );
        assert.equal(await page.locator(`#chart-${id} g.line_marks`).count(), 6, `${id}: one line per series`);
        assert.equal(await page.locator(`#chart-${id} g.points_marks path`).count(), 18, `${id}: the points drawn`);
      }
      const bars = await shown(page, 'phases', 'marks');
      assert.equal(bars.length, 6 * 5, 'five phases per series');
      assert.deepEqual([...new Set(bars.map((b) => b.routes))], [100], 'at the route count summary.md picks');
    });

    it('the build toggle shows only its cells, in every chart and in the table', async () => {
      const { page } = opened;
      await page.selectOption('select[data-filter="build"]', 'bundle');
      await page.waitForFunction(() => window.__coldstart.shown('firstresponse', 'points_marks').length === 9);
      for (const id of ['firstresponse', 'ready']) {
        const points = await shown(page, id);
        assert.deepEqual(seriesOf(points), ['fastify [build=bundle]', 'hono [build=bundle]', 'node-http [build=bundle]'], id);
      }
      assert.equal((await shown(page, 'phases', 'marks')).length, 3 * 5);
      assert.equal(await page.locator('#results tbody tr:visible').count(), 9);
      await page.selectOption('select[data-filter="build"]', '');
      await page.waitForFunction(() => window.__coldstart.shown('firstresponse', 'points_marks').length === 18);
      assert.equal(await page.locator('#results tbody tr:visible').count(), 18);
      assert.deepEqual(opened.problems, []);
    });

    it('the route count of the phase chart changes its bars', async () => {
      const { page } = opened;
      await page.selectOption('select[data-signal="phases_routes"]', '1');
      await page.waitForFunction(() => window.__coldstart.shown('phases', 'marks').every((b) => b.routes === 1));
      assert.equal((await shown(page, 'phases', 'marks')).length, 6 * 5);
    });

    it('a header click sorts its table by number, a second click reverses', async () => {
      const { page } = opened;
      // the column under its header, wherever it stands (runs with a start mark have the from-start columns before it)
      const headers = await page.locator('#results thead th').allInnerTexts();
      const at = headers.findIndex((text) => text.trim().startsWith('firstResponse (ms)'));
      assert.ok(at > 0, headers.join(' | '));
      const column = async () =>
        page
          .locator('#results tbody tr')
          .evaluateAll((rows, i) => rows.map((r) => Number((r.children[i] as HTMLElement).dataset.sort)), at);
      const header = page.locator('#results th', { hasText: 'firstResponse (ms)' });
      await header.click();
      const ascending = await column();
      assert.equal(ascending.length, 18);
      assert.deepEqual(
        ascending,
        [...ascending].sort((a, b) => a - b),
      );
      assert.notDeepEqual(
        ascending,
        [...ascending].sort((a, b) => b - a),
        'the medians differ',
      );
      await header.click();
      assert.deepEqual(await column(), [...ascending].reverse());
      assert.equal(await header.getAttribute('aria-sort'), 'descending');
    });

    it('hovering a point shows its median, CI, fastest and slowest, and samples', async () => {
      const { page } = opened;
      await page.locator('#chart-firstresponse g.points_marks path').first().hover();
      const tooltip = page.locator('#tooltip');
      await tooltip.waitFor({ state: 'visible' });
      const text = await tooltip.innerText();
      for (const field of ['series:', 'routes:', 'median (ms):', '95 % CI of the median (ms):', 'fastest–slowest (ms):', 'samples: 5'])
        assert.ok(text.includes(field), `${field} in ${JSON.stringify(text)}`);
    });
  });

  describe('a run on both targets (--debug-mode): the target toggle and the Lambda estimate', () => {
    let opened: Opened;
    before(async () => {
      const dir = path.join(tempDir('coldstart-html-e2e-'), 'run');
      const done = runCli([
        'run',
        '--debug-mode',
        '--target',
        'server,lambda',
        '--frameworks',
        'fastify,hono',
        '--routes',
        '1,10',
        '--samples',
        '2',
        '--out',
        dir,
      ]);
      assert.equal(done.status, 0, done.stderr);
      opened = await open(browser!, path.join(dir, 'report.html'));
    });

    it('draws with no error, with the estimate chart', async () => {
      assert.deepEqual(opened.problems, []);
      const estimates = await shown(opened.page, 'estimate');
      assert.ok(estimates.length >= 4, `${estimates.length} estimates`);
      assert.match(await opened.page.locator('body').innerText(), /Calibration: .*lambda-perf/);
    });

    it('the target toggle leaves only the Lambda series', async () => {
      const { page } = opened;
      const all = await shown(page, 'firstresponse');
      assert.ok(seriesOf(all).some((s) => s.includes('target=server')));
      await page.selectOption('select[data-filter="target"]', 'lambda');
      await page.waitForFunction((n) => window.__coldstart.shown('firstresponse', 'points_marks').length < n, all.length);
      const lambda = await shown(page, 'firstresponse');
      assert.ok(lambda.length > 0);
      assert.ok(
        lambda.every((p) => p.series.includes('target=lambda')),
        seriesOf(lambda).join(', '),
      );
      assert.deepEqual(opened.problems, []);
    });
  });

  describe('the committed report.html of every published run, as a clean clone has it', () => {
    for (const { name, folder, files } of publishedFolders(path.join(ROOT, 'results')).filter((f) => f.files.includes('report.html'))) {
      it(`${name}: draws offline with no error, a first-response point per timed cell that answered`, async () => {
        const opened = await open(browser!, path.join(folder, 'report.html'));
        const answered = readSamples(path.join(folder, 'samples.jsonl')).filter(
          (s) => s.phase === 'sample' && s.ok && s.cell.measure === 'time',
        );
        const cells = new Set(answered.map((s) => cellKey(s.cell))).size;
        // a curve against N only where a series answered at two route counts or more (no log-log chart of one point)
        const routesOf = new Map<string, Set<number>>();
        for (const s of answered) {
          const series = cellKey({ ...s.cell, routes: 0 });
          routesOf.set(series, (routesOf.get(series) ?? new Set()).add(s.cell.routes));
        }
        const curve = [...routesOf.values()].some((routes) => routes.size >= 2);
        if (cells > 0 && curve) assert.equal((await shown(opened.page, 'firstresponse')).length, cells, `${name}: ${files.join(', ')}`);
        if (!curve) {
          assert.equal(await opened.page.locator('#chart-firstresponse').count(), 0, name);
          if (cells > 0) assert.match(await opened.page.locator('body').innerText(), /no curve (to draw|against the route count)/, name);
        }
        assert.deepEqual(opened.problems, []);
        await opened.page.context().close();
      });
    }
  });

  describe('results/index.html with two published runs', () => {
    let opened: Opened;
    before(async () => {
      const results = tempDir('coldstart-html-e2e-');
      for (const name of ['2026-11-22-golden', '2026-11-23-golden-again']) {
        const dir = path.join(results, 'published', name);
        mkdirSync(dir, { recursive: true });
        for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(fixture('golden-run'), file), path.join(dir, file));
        await writeReport(dir);
      }
      const { file } = await writeResultsIndex(results);
      opened = await open(browser!, file, false);
    });

    it('lists both, sorts by a header click, and links a report that draws offline', async () => {
      const { page } = opened;
      const names = () => page.locator('#runs tbody tr').evaluateAll((rows) => rows.map((r) => r.children[0]!.textContent));
      assert.deepEqual(await names(), ['2026-11-22-golden', '2026-11-23-golden-again']);
      await page.locator('#runs th', { hasText: 'run' }).first().click();
      await page.locator('#runs th', { hasText: 'run' }).first().click();
      assert.deepEqual(await names(), ['2026-11-23-golden-again', '2026-11-22-golden']);
      await page.locator('#runs a', { hasText: 'report.html' }).first().click();
      await page.waitForURL(/2026-11-23-golden-again\/report\.html$/);
      await page.evaluate(() => window.__coldstart.ready);
      assert.equal((await shown(page, 'firstresponse')).length, 18);
      assert.deepEqual(opened.problems, []);
    });
  });
});
