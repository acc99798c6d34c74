/**
 * results/RESULTS.md: the committed page is what `npm run results:index` writes from the committed
 * run folders of results/published/ (a test fails when it is stale), and the page of a results folder
 * shows each run's cells with medians and spreads, the machine and its load, the cost per route and
 * counted instructions where the run has them, newest run first, every outside text escaped.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { resultsPageOf, RESULTS_PAGE } from '../../metrics/pipeline/results-page.ts';
import { fixture, ROOT, tempDir } from '../support/in-process.ts';
import { cell, samplesOf, spread, writeRun } from '../support/synthetic.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';

const GOLDEN = fixture('golden-run');
/** a published Lambda run: every framework at 1 to 5,000 routes, nodejs24.x at 1024 MB */
const LAMBDA_RUN = path.join(ROOT, 'results', 'published', '2026-11-26-lambda');

describe('results/RESULTS.md', () => {
  it('the committed page is what `npm run results:index` writes', () => {
    const committed = readFileSync(path.join(ROOT, 'results', RESULTS_PAGE), 'utf8');
    assert.ok(committed === resultsPageOf(path.join(ROOT, 'results')), 'results/RESULTS.md is stale: run `npm run results:index`');
  });

  it('with nothing published: a page that says so', () => {
    assert.match(resultsPageOf(tempDir('coldstart-page-')), /No run is published yet/);
  });

  it('a run: a row per cell with median (p25–p75), the machine, the load and links; newest first', () => {
    const dir = tempDir('coldstart-page-');
    const golden = path.join(dir, 'published', '2026-11-22-golden');
    mkdirSync(golden, { recursive: true });
    for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(GOLDEN, file), path.join(golden, file));
    writeFileSync(path.join(golden, 'summary.md'), '');
    const newer = writeRun(path.join(dir, 'published', 'z-synthetic'), [
      ...samplesOf(cell('fastify', 1), spread(100, 5)),
      ...samplesOf(cell('fastify', 10), spread(110, 5)),
      ...samplesOf(cell('fastify', 100), spread(200, 5)),
    ]);
    mkdirSync(path.join(dir, 'published', 'empty'));
    const page = resultsPageOf(dir);
    assert.match(page, /^# Published results$/m);
    // the golden run (2026-11-22) is older than the synthetic one: it comes second
    assert.ok(page.indexOf('## z-synthetic') < page.indexOf('## 2026-11-22-golden'), page);
    assert.match(page, /\[run folder\]\(published\/2026-11-22-golden\/\) · \[summary\.md\]\(published\/2026-11-22-golden\/summary\.md\)/);
    assert.match(page, /- \*\*Machine:\*\* .+ cores, .+ GB, .+, node v\d+\.\d+\.\d+; /);
    // samples with a start mark: startup and listen from the file's first statement beside the spawn-based figures
    const header =
      '| series | routes | ok | startup ms | ready ms | startup from start ms | listen from start ms | first response ms | ' +
      'first response ms per route (N→N) |';
    assert.ok(page.includes(header), page);
    // every row of a table has the header's columns; the synthetic series: 5 samples, its spread shown
    for (const line of page.split('\n').filter((l) => /^\| fastify \| \d/.test(l))) assert.equal(line.split(' | ').length, 9, line);
    // the curve table: a row per series and metric, ms per route with its interval, beyond the measured N said so
    const curve = page.split('\n').find((l) => l.startsWith('| fastify | first response |'));
    assert.ok(curve, page);
    assert.equal(curve.split(' | ').length, 7, curve);
    assert.match(curve, /\| \d+\.\d{3} \(-?\d+\.\d{3} to \d+\.\d{3}\) \| beyond measured N \| beyond measured N \|$/);
    const row = page.split('\n').find((l) => l.startsWith('| fastify | 100 | 5/5 |'));
    assert.ok(row, page);
    assert.match(row, /\| \d+\.\d \(\d+\.\d–\d+\.\d\) \|/);
    // marks at 0.1, 0.5 and 0.9 of firstResponse (median 200): the seed's startup 100 and listen 180 from spawn, 80 and 160 from start
    assert.match(
      row,
      /^\| fastify \| 100 \| 5\/5 \| 100\.0 \([^)]+\) \| 180\.0 \([^)]+\) \| 80\.0 \([^)]+\) \| 160\.0 \([^)]+\) \| 200\.0 /,
    );
    assert.match(page, /## empty\n\n\[run folder\]\(published\/empty\/\)\n\nThis folder holds no samples\.jsonl/);
    assert.ok(resultsPageOf(dir) === page, 'the same folders give the same bytes');
    assert.ok(newer);
  });

  it('a Lambda run: the estimate with its p95 and $ beside the measured figures, and where the estimate comes from', () => {
    const dir = tempDir('coldstart-page-');
    const folder = path.join(dir, 'published', 'lambda');
    mkdirSync(folder, { recursive: true });
    for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(LAMBDA_RUN, file), path.join(folder, file));
    const page = resultsPageOf(dir);
    const reference = JSON.parse(readFileSync(path.join(ROOT, 'metrics', 'calibration', 'lambda-reference.json'), 'utf8')) as {
      source: string;
    };
    assert.ok(
      page.includes(`- **Lambda estimate (x86_64):** measured here + what Lambda adds to a hello world (${reference.source})`),
      page,
    );
    assert.match(page, /k = \d\.\d+, fitted on \d+ public functions; leave-one-out error [−+]?\d+\.\d to [−+]?\d+\.\d %/);
    const columns = '| first response ms per route (N→N) | Lambda Init estimate ms (interval; p95) | $ per 1M cold starts (interval) |';
    assert.ok(page.includes(columns), page);
    const row = page.split('\n').find((l) => l.startsWith('| node-http | 1 |'));
    assert.ok(row, page);
    // the estimate inside its interval, its p95 above it, and a price inside its own interval
    const match = /\| (\d+\.\d) \((\d+\.\d)–(\d+\.\d); p95 (\d+\.\d)\) \| \$(\d+\.\d\d) \(\$(\d+\.\d\d)–\$(\d+\.\d\d)\) \|$/.exec(row);
    assert.ok(match, row);
    const [estimate, low, high, p95, cost, costLow, costHigh] = match.slice(1).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    assert.ok(low < estimate && estimate < high && p95 > estimate, row);
    assert.ok(costLow < cost && cost < costHigh, row);
    // a failed cell (restify does not load on nodejs24.x) shows no estimate
    const failed = page.split('\n').find((l) => l.startsWith('| restify | 1 | 0/5 |'));
    assert.ok(failed?.endsWith('| – | – |'), failed);
  });

  it("the cost per route is the first response's, from the medians at the series' ends (recomputed from samples.jsonl)", () => {
    // 2026-11-27-lambda-init-cpu: fastify lazy is ready early at every N and pays its routes at the first response
    const run = path.join(ROOT, 'results', 'published', '2026-11-27-lambda-init-cpu');
    const dir = tempDir('coldstart-page-');
    const folder = path.join(dir, 'published', 'lambda-init');
    mkdirSync(folder, { recursive: true });
    for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(run, file), path.join(folder, file));
    const page = resultsPageOf(dir);
    assert.ok(page.includes('| first response ms | first response ms per route (N→N) |'), page);
    // the medians, by hand from the raw samples: series (framework, init) → routes → firstResponse values
    const byCell = new Map<string, Map<number, number[]>>();
    for (const s of readSamples(path.join(run, 'samples.jsonl'))) {
      const first = s.marks?.firstResponse;
      if (s.phase !== 'sample' || !s.ok || first === undefined || s.cell.framework === 'reference') continue;
      const series = `${s.cell.framework} \\[init=${s.cell.init}\\]`;
      const cells = byCell.get(series) ?? new Map<number, number[]>();
      cells.set(s.cell.routes, [...(cells.get(s.cell.routes) ?? []), first]);
      byCell.set(series, cells);
    }
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const mid = sorted.length >> 1;
      return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    };
    assert.equal(byCell.size, 4);
    for (const [series, cells] of byCell) {
      const routes = [...cells.keys()].sort((a, b) => a - b);
      const [low, high] = [routes[0]!, routes[routes.length - 1]!];
      const perRoute = ((median(cells.get(high)!) - median(cells.get(low)!)) / (high - low)).toFixed(4);
      const rows = page.split('\n').filter((l) => l.startsWith(`| ${series} |`) && /^\| [^|]+ \| \d+ \| \d+\/\d+ \|/.test(l));
      assert.equal(rows.length, routes.length, series);
      for (const row of rows) assert.equal(row.split(' | ')[6], `${perRoute} (${low}→${high})`, row);
    }
    // fastify lazy: its first response grows about a ms a route, where ready's slope said 0.0444
    const lazy = page.split('\n').find((l) => l.startsWith('| fastify \\[init=lazy\\] | 5000 |'))!;
    assert.ok(Number(lazy.split(' | ')[6]!.split(' ')[0]) > 0.9, lazy);
  });

  it('says what each figure rests on, and ranks each run on CPU time with wall time beside it', () => {
    const page = readFileSync(path.join(ROOT, 'results', RESULTS_PAGE), 'utf8');
    assert.match(page, /a run’s \*\*ranking\*\* rests on CPU time to the first response/);
    // the seed's table run (node-http, mion, fastify, deepkit): its own section's ranking line
    const section = page.split('\n## ').find((s) => s.startsWith('2026-11-27-seed-table\n')) ?? '';
    const line = section.split('\n').find((l) => l.startsWith('- **Ranking at 5000 routes**, on CPU time'));
    assert.ok(line, page);
    const ranked = [...line.matchAll(/\d+\. (\S+) ([\d.]+) ms \(wall ([\d.]+)\)/g)].map((m) => [m[1], Number(m[2])] as const);
    assert.deepEqual(
      ranked.map(([f]) => f),
      ['node-http', 'mion', 'fastify', 'deepkit'],
    );
    assert.ok(
      ranked.every(([, cpu], i) => i === 0 || cpu >= ranked[i - 1]![1]),
      'cheapest first',
    );
    // the host and the load of the Lambda run with 10 samples: other processes 1 % (meta.json's run share)
    const lambda10 = page.slice(page.indexOf('## 2026-11-26-lambda-10\n'));
    const host = 'node v20.20.2; load (1 min) 0.4 before, 0.4–1.6 while the samples ran, on 2 cores; other processes 1 % of the CPU time';
    assert.ok(lambda10.split('\n## ')[0]!.includes(`${host}\n`), lambda10.slice(0, 600));
  });

  it('escapes folder names and meta.json text', () => {
    const dir = tempDir('coldstart-page-');
    const folder = path.join(dir, 'published', '<b>x|y');
    mkdirSync(folder, { recursive: true });
    copyFileSync(path.join(GOLDEN, 'samples.jsonl'), path.join(folder, 'samples.jsonl'));
    const meta = JSON.parse(readFileSync(path.join(GOLDEN, 'meta.json'), 'utf8')) as Record<string, unknown>;
    meta.machine = { os: '<img src=x onerror=alert(1)>', cpu: '[x](javascript:alert(1))', cores: 2, memoryGB: 1 };
    writeFileSync(path.join(folder, 'meta.json'), JSON.stringify(meta));
    const page = resultsPageOf(dir);
    assert.doesNotMatch(page, /<b>|<img|(?<!\\)\]\(javascript:/);
    assert.match(page, /## &lt;b&gt;x&#124;y\n\n\[run folder\]\(published\/%3Cb%3Ex%7Cy\/\)/);
  });
});
