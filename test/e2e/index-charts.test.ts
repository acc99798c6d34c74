/**
 * results/index.html's charts in a real browser (Debian's chromium driven by playwright-core, as
 * report-html.test.ts does; skipped with the reason without it): a results folder holding copies of
 * three published runs (the server matrix, the Lambda run, the levers run) gets its index written, the
 * page is opened from disk with every other request refused, and each chart's values are read back
 * from what it draws (every mark's accessible description) and checked against the run folders: the
 * first responses against medians recomputed here from samples.jsonl, the Lambda $ per million against
 * RESULTS.md's column for the same cell, each lever's ratio against the medians' ratios recomputed here;
 * and the points' heights follow their values (a larger median is drawn higher).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { writeResultsIndex } from '../../metrics/pipeline/results-index.ts';
import { resultsPageOf } from '../../metrics/pipeline/results-page.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { CHROMIUM_ARGS, findChromium, loadChromium } from '../../metrics/tools/browser.ts';
import { ROOT, tempDir } from '../support/helpers.ts';

const executablePath = findChromium();
const chromium = await loadChromium();
const skip = !executablePath
  ? `chromium is not installed (apt-get install chromium${process.env.CHROMIUM ? `; CHROMIUM=${process.env.CHROMIUM} does not exist` : ''})`
  : !chromium
    ? 'playwright-core is not installed (npm install)'
    : false;

const RUNS = { server: '2026-11-26-server-matrix', lambda: '2026-11-27-lambda', levers: '2026-11-26-levers' } as const;
const published = (name: string) => path.join(ROOT, 'results', 'published', name);

interface Mark {
  label: string;
  /** the centre of the mark on the page, px */
  x: number;
  y: number;
}

/** Every mark of a chart that has a description, with where it is drawn. */
function marksOf(page: Page, chart: string): Promise<Mark[]> {
  return page
    .locator(`#chart-${chart} svg [aria-roledescription="point"], #chart-${chart} svg [aria-roledescription="bar"]`)
    .evaluateAll((els) =>
      els.map((el) => {
        const box = el.getBoundingClientRect();
        return { label: el.getAttribute('aria-label') ?? '', x: box.x + box.width / 2, y: box.y + box.height / 2 };
      }),
    );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The successful samples' first responses by cell (the cell's JSON without `routes`, then routes). */
function firstResponses(run: string): Map<string, number[]> {
  const cells = new Map<string, number[]>();
  for (const s of readSamples(path.join(published(run), 'samples.jsonl'))) {
    const first = s.marks?.firstResponse;
    if (s.phase !== 'sample' || !s.ok || first === undefined) continue;
    const key = JSON.stringify(s.cell);
    cells.set(key, [...(cells.get(key) ?? []), first]);
  }
  return cells;
}

describe('results/index.html: a chart per question, its values read back in chromium', { skip }, () => {
  let browser: Browser | undefined;
  let page: Page;
  let dir: string;
  const problems: string[] = [];
  before(async () => {
    dir = tempDir('coldstart-index-charts-');
    for (const name of Object.values(RUNS)) {
      mkdirSync(path.join(dir, 'published', name), { recursive: true });
      for (const file of ['samples.jsonl', 'meta.json'])
        copyFileSync(path.join(published(name), file), path.join(dir, 'published', name, file));
    }
    const { file } = await writeResultsIndex(dir);
    browser = await chromium!.launch({ executablePath, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.route('**/*', async (route) => {
      if (route.request().url().startsWith('file:')) return route.continue();
      problems.push(`request: ${route.request().url()}`);
      return route.abort();
    });
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(pathToFileURL(file).href);
  });
  after(async () => browser?.close());

  it('has a chart per question, each naming the run it is drawn from, and fetches nothing', async () => {
    const captions = await page.locator('figure.index-chart figcaption').allInnerTexts();
    assert.deepEqual(captions, [
      `a server’s cold start by framework and route count: ${RUNS.server}`,
      `a Lambda handler’s Init on Lambda and its price: ${RUNS.lambda}`,
      `what a build or the compile cache changes: ${RUNS.levers}`,
    ]);
    assert.equal(await page.locator('script[src], link[href], img').count(), 0);
    assert.deepEqual(problems, []);
  });

  it('first response against routes: every cell, at the median of its samples, drawn higher when slower', async () => {
    const marks = await marksOf(page, 'first-response');
    const byHand = new Map<string, number>();
    for (const [key, values] of firstResponses(RUNS.server)) {
      const cell = JSON.parse(key) as SampleRecord['cell'];
      byHand.set(`${cell.framework}|${cell.routes}`, median(values));
    }
    assert.equal(marks.length, byHand.size);
    const drawn = marks.map(({ label, y }) => {
      const m = /^(.+), (\d+) routes?: first response ([\d.]+) ms \(95 % CI ([\d.]+)–([\d.]+)\)$/.exec(label);
      assert.ok(m, label);
      const [series, routes, value, low, high] = [m[1]!, m[2]!, Number(m[3]), Number(m[4]), Number(m[5])];
      const expected = byHand.get(`${series}|${routes}`);
      assert.ok(expected !== undefined, label);
      assert.equal(value, Number(expected.toFixed(1)), label);
      assert.ok(low <= value && value <= high, label);
      return { value, y };
    });
    // a log scale: the slower the cell, the higher its point (a smaller y on the page)
    const sorted = [...drawn].sort((a, b) => a.value - b.value);
    for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i]!.y <= sorted[i - 1]!.y + 0.5, JSON.stringify([sorted[i - 1], sorted[i]]));
  });

  it('Lambda $ per million cold starts: each cell as RESULTS.md prices it, with its interval', async () => {
    const marks = await marksOf(page, 'lambda-cost');
    const results = resultsPageOf(dir);
    const section = results.slice(results.indexOf(`## ${RUNS.lambda}\n`)).split('\n## ')[0]!;
    // RESULTS.md's rows: series | routes | ok | … | $ per 1M cold starts (interval), the last column
    const priced = new Map<string, string>();
    for (const row of section.split('\n').filter((l) => /^\| [^|]+ \| \d+ \| \d+\/\d+ \|/.test(l))) {
      const cells = row.split(' | ');
      const dollars = cells[cells.length - 1]!.replace(/ \|$/, '');
      if (dollars !== '–') priced.set(`${cells[0]!.slice(2).replace(/\\/g, '')}|${cells[1]}`, dollars);
    }
    assert.ok(priced.size > 10, section.slice(0, 400));
    assert.equal(marks.length, priced.size);
    for (const { label } of marks) {
      const m = /^(.+), (\d+) routes?: (\$[\d.]+) per million cold starts (?:\((\$[\d.]+)–(\$[\d.]+)\)|\(no interval\))(.*)$/.exec(label);
      assert.ok(m, label);
      const [series, routes, cost, low, high, mark] = [m[1]!, m[2]!, m[3]!, m[4], m[5], m[6]!];
      const interval = low && high ? ` (${low}–${high})` : '';
      assert.equal(`${cost}${interval}${mark}`, priced.get(`${series}|${routes}`), label);
      if (low && high) assert.ok(Number(low.slice(1)) <= Number(cost.slice(1)) && Number(cost.slice(1)) <= Number(high.slice(1)), label);
    }
  });

  it('what to change: each lever’s median ratio of the medians to its base, recomputed from the samples', async () => {
    const marks = await marksOf(page, 'levers');
    const cells = firstResponses(RUNS.levers);
    const medians = new Map([...cells].map(([key, values]) => [key, median(values)]));
    assert.ok(marks.length >= 9, String(marks.length));
    for (const { label } of marks) {
      const m = /^(.+): (\w+)=(\S+) ([\d.]+)× the first response of \w+=(\S+) \(median of (\d+) comparisons?\)$/.exec(label);
      assert.ok(m, label);
      const [framework, dimension, value, ratio, base, comparisons] = [m[1]!, m[2]!, m[3]!, Number(m[4]), m[5]!, Number(m[6])];
      // every cell of the framework at the base, against the same cell with the lever's value, where both answered
      const ratios: number[] = [];
      for (const [key, at] of medians) {
        const cell = JSON.parse(key) as Record<string, unknown>;
        if (cell.framework !== framework || String(cell[dimension]) !== base) continue;
        const other = medians.get(JSON.stringify({ ...cell, [dimension]: value }));
        if (other !== undefined) ratios.push(other / at);
      }
      assert.equal(ratios.length, comparisons, label);
      assert.equal(ratio, Number(median(ratios).toFixed(2)), label);
    }
  });
});
