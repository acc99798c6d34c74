/**
 * The README's picture of a published report: opens RUN/report.html in chromium (browser.ts) from disk,
 * with every request that is not a file refused, hovers the highest point of the left half of the
 * first-response chart (the slowest cell at a middle route count, its figures in its tooltip), and writes the chart with its tooltip as a
 * PNG. `npm run docs:screenshot -- RUN OUT.png`; the README says which run its picture shows.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM_ARGS, findChromium, loadChromium } from './browser.ts';
import { EXIT_USAGE } from '../core/exit-codes.ts';

const CHART = '#chart-firstresponse';

function fail(message: string): never {
  process.stderr.write(`coldstart docs:screenshot: ${message}\n`);
  process.exit(EXIT_USAGE);
}

async function main(argv: string[]): Promise<void> {
  const [run, out] = argv;
  if (!run || !out || argv.length !== 2) fail('usage: npm run docs:screenshot -- RUN_FOLDER OUT.png');
  if (!out.endsWith('.png')) fail(`${JSON.stringify(out)} is not a .png file name`);
  const page = path.resolve(run, 'report.html');
  if (!existsSync(page)) fail(`${JSON.stringify(run)} has no report.html: run npm run report -- ${run}`);
  const executablePath = findChromium();
  const chromium = await loadChromium();
  if (!executablePath || !chromium) fail('needs chromium (apt-get install chromium) and playwright-core (npm install)');
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1 });
    await context.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
    const tab = await context.newPage();
    await tab.goto(pathToFileURL(page).href);
    await tab.evaluate(() => (window as unknown as { __coldstart: { ready: Promise<unknown> } }).__coldstart.ready);
    const chart = tab.locator(CHART);
    await chart.scrollIntoViewIfNeeded();
    const points = chart.locator('g.points_marks path');
    const boxes = await points.evaluateAll((paths) => paths.map((p) => p.getBoundingClientRect()).map((r) => ({ x: r.left, y: r.top })));
    if (boxes.length === 0) fail(`${JSON.stringify(run)}: the first-response chart has no points`);
    // the highest point of the left half (the y axis grows upwards), so that its tooltip opens over the plot, not the legend
    const middle = (Math.min(...boxes.map((b) => b.x)) + Math.max(...boxes.map((b) => b.x))) / 2;
    const left = boxes.filter((b) => b.x <= middle);
    const highest = boxes.indexOf(left.reduce((top, b) => (b.y < top.y ? b : top)));
    await points.nth(highest).hover();
    await tab.locator('#tooltip').waitFor({ state: 'visible' });
    const box = await chart.boundingBox();
    if (!box) fail('the first-response chart is not on the page');
    await tab.screenshot({ path: out, clip: { x: 0, y: box.y - 8, width: 1100, height: box.height + 16 } });
    process.stdout.write(`wrote ${out}\n`);
  } finally {
    await browser.close();
  }
}

await main(process.argv.slice(2));
