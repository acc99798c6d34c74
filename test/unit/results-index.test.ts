/**
 * results/index.html: the committed page is what `npm run results:index` writes from the committed
 * results/published/ (a test fails when a published run is added without it), and the page of a
 * results folder lists its run folders by name, links each one's report, escapes every text from
 * outside (folder names, meta.json) and names a corrupt meta.json in a one-line UsageError; each run
 * shows its headline figures (on CPU time, instructions, or wall time when nothing else was recorded)
 * and the page says which run to quote for which question.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../metrics/core/errors.ts';
import { resultsIndexOf, writeResultsIndex } from '../../metrics/pipeline/results-index.ts';
import { loadRun } from '../../metrics/report/write.ts';
import { fixture, ROOT, tempDir } from '../support/in-process.ts';

const GOLDEN_META = path.join(fixture('golden-run'), 'meta.json');

describe('results/index.html', () => {
  it('the committed page is what `npm run results:index` writes', async () => {
    const committed = readFileSync(path.join(ROOT, 'results', 'index.html'), 'utf8');
    assert.ok(
      committed === (await resultsIndexOf(path.join(ROOT, 'results'))).html,
      'results/index.html is stale: run `npm run results:index`',
    );
  });

  it('with nothing published: a page that says so', async () => {
    const dir = tempDir('coldstart-index-');
    const { file, runs } = await writeResultsIndex(dir);
    assert.equal(runs, 0);
    const html = readFileSync(file, 'utf8');
    assert.match(html, /No run is published yet/);
    assert.doesNotMatch(html, /<table/);
  });

  it('lists the run folders by name, links their report and escapes folder names and meta.json', async () => {
    const dir = tempDir('coldstart-index-');
    const published = path.join(dir, 'published');
    const hostile = '<b>x&y "q"';
    for (const name of ['2026-11-26-server', '2026-11-25-lambda', hostile, '.hidden'])
      mkdirSync(path.join(published, name), { recursive: true });
    writeFileSync(path.join(published, 'notes.txt'), 'not a run');
    copyFileSync(GOLDEN_META, path.join(published, '2026-11-26-server', 'meta.json'));
    writeFileSync(path.join(published, '2026-11-26-server', 'report.html'), '');
    writeFileSync(path.join(published, '2026-11-26-server', 'summary.md'), '');
    const meta = JSON.parse(readFileSync(GOLDEN_META, 'utf8')) as Record<string, unknown>;
    meta.command = '</script><script>alert(1)</script>';
    meta.machine = { os: '<img src=x onerror=alert(1)>', cpu: 'cpu', cores: 2, memoryGB: 1 };
    writeFileSync(path.join(published, hostile, 'meta.json'), JSON.stringify(meta));
    const { html, runs } = await resultsIndexOf(dir);
    assert.equal(runs, 3);
    const rows = [...html.matchAll(/<tr><td>([^<]*)<\/td>/g)].map((m) => m[1]);
    assert.deepEqual(rows, ['2026-11-25-lambda', '2026-11-26-server', '&lt;b&gt;x&amp;y &quot;q&quot;']);
    assert.match(
      html,
      /<a href="published\/2026-11-26-server\/report.html">report.html<\/a> <a href="published\/2026-11-26-server\/summary.md">/,
    );
    assert.match(html, /<td>2026-11-22T17:42:05\.957Z<\/td><td>fastify, node-http, hono<\/td><td>1, 10, 100<\/td>/);
    assert.doesNotMatch(html, /<b>|<img|<script>alert|\.hidden|notes\.txt/);
    assert.match(html, /<td><\/td>|<td>–<\/td><td>–<\/td>/, 'a folder without meta.json still listed');
    assert.equal(html.match(/<script\b/g)?.length, 1, 'table sorting only');
    assert.ok(html === (await resultsIndexOf(dir)).html, 'the same folders give the same bytes');
  });

  it('a folder that is neither a results folder nor empty is refused, and nothing is written into it', async () => {
    const dir = tempDir('coldstart-index-');
    writeFileSync(path.join(dir, 'index.html'), 'the project page');
    await assert.rejects(
      () => writeResultsIndex(dir),
      (error) => error instanceof UsageError && /is not a results folder \(no published\/ in it/.test(error.message),
    );
    assert.equal(readFileSync(path.join(dir, 'index.html'), 'utf8'), 'the project page');
    assert.throws(() => readFileSync(path.join(dir, 'RESULTS.md')), /ENOENT/);
  });

  it("each run's headline figures from its samples, on CPU time, and which run to quote for which question", async () => {
    const html = (await resultsIndexOf(path.join(ROOT, 'results'))).html;
    // the seed's table run: its ranking at 5,000 routes and its floor, recomputed here from its samples
    const run = loadRun(path.join(ROOT, 'results', 'published', '2026-11-27-seed-table'));
    const cpu = (framework: string, routes: number) =>
      run.summaries.find((s) => s.cell.framework === framework && s.cell.routes === routes)!.cpu!.firstResponse!.median.toFixed(1);
    const at5000 = ['node-http', 'mion', 'fastify', 'deepkit'].map((f) => Number(cpu(f, 5000)));
    assert.deepEqual(
      [...at5000].sort((a, b) => a - b),
      at5000,
      'node-http < mion < fastify < deepkit on CPU time at 5,000 routes',
    );
    assert.ok(
      html.includes(
        `<td>at 5000 routes, CPU time to first response: fastest node-http ${cpu('node-http', 5000)} ms, ` +
          `slowest deepkit ${cpu('deepkit', 5000)} ms; floor node-http@1 ${cpu('node-http', 1)} ms</td>`,
      ),
      html,
    );
    // a counted run ranks on instructions, a Lambda run (no CPU time recorded) on wall time
    assert.match(html, /<td>at 1000 routes, instructions to first response: fastest node-http [\d.]+ M, slowest fastify [\d.]+ M; floor/);
    assert.match(html, /<td>at 5000 routes, wall time to first response: fastest node-http [\d.]+ ms/);
    // one run per question: the quiet, broadest run (the busy Lambda runs lose to the quiet 2026-11-27 one; counts ignore the
    // load, and the 2026-12-05 counted run, 3 frameworks × 8 route counts, is broader than 2026-11-26's 6 × 3)
    const quoted = Object.fromEntries([...html.matchAll(/<li>([^<:]+): <a href="[^"]+">([^<]+)<\/a><\/li>/g)].map((m) => [m[1]!, m[2]!]));
    assert.deepEqual(quoted, {
      'a server’s cold start by framework and route count': '2026-11-26-server-matrix',
      'a Lambda handler’s Init on Lambda and its price': '2026-11-27-lambda',
      'the work a route costs, independent of the machine': '2026-12-05-cycles',
      'what a build or the compile cache changes': '2026-11-26-levers',
    });
  });

  it('a corrupt meta.json is a UsageError naming it; a missing folder too', async () => {
    const dir = tempDir('coldstart-index-');
    mkdirSync(path.join(dir, 'published', 'broken'), { recursive: true });
    writeFileSync(path.join(dir, 'published', 'broken', 'meta.json'), '{not json');
    await assert.rejects(
      () => resultsIndexOf(dir),
      (error) => error instanceof UsageError && /broken\/meta\.json is not valid JSON/.test(error.message),
    );
    await assert.rejects(
      () => resultsIndexOf(path.join(dir, 'nowhere')),
      (error) => error instanceof UsageError && /is not a folder/.test(error.message),
    );
  });
});
