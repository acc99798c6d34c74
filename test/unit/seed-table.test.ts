/**
 * docs/findings/2026-11-27-seed-table.md: every table is what metrics/tools/seed-table.ts computes
 * from the run folders it cites (`npm run docs:seed-table` rewrites them), and the figures it shares
 * with the run's report are the report's own.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { ms } from '../../metrics/core/format.ts';
import { SEED_FINDING, SEED_RUNS, seedTables, withSeedTables } from '../../metrics/tools/seed-table.ts';
import { ROOT } from '../support/in-process.ts';

/** A run's successful samples as JSON lines, read here without the project's reader. */
interface Raw {
  cell: { framework: string; routes: number; runtime?: string };
  phase: string;
  ok: boolean;
  marks?: Record<string, number>;
  cpu?: Record<string, number>;
  instructions?: Record<string, number>;
}
function samplesOf(folder: string): Raw[] {
  return readFileSync(path.join(ROOT, folder, 'samples.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Raw)
    .filter((s) => s.phase === 'sample' && s.ok);
}
function mid(values: number[]): number {
  assert.ok(values.length > 0, 'no sample');
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}
/** The median of `pick` over a cell's samples (framework, routes, node 20). */
function cellMedian(samples: Raw[], framework: string, routes: number, pick: (s: Raw) => number): number {
  return mid(
    samples.filter((s) => s.cell.framework === framework && s.cell.routes === routes && (s.cell.runtime ?? 'node') === 'node').map(pick),
  );
}
const cpuFromStart = (s: Raw) => s.cpu!.listen! - s.cpu!.start!;
const percent = (value: number) => `${value >= 0 ? '+' : '−'}${Math.round(Math.abs(value) * 100)} %`;

const finding = readFileSync(path.join(ROOT, SEED_FINDING), 'utf8');

describe("the seed's table finding", () => {
  const tables = seedTables();

  it('holds every table, each as its run folders give it (run npm run docs:seed-table after a re-run)', () => {
    for (const name of Object.keys(tables)) assert.ok(finding.includes(`<!-- seed-table:${name} -->`), `no table ${name}`);
    assert.ok(finding === withSeedTables(finding, tables), `${SEED_FINDING} is stale: run npm run docs:seed-table`);
  });

  it('fails on a figure that drifted, and on a table it does not know', () => {
    const drifted = finding.replace(/(<!-- seed-table:table -->\n(?:.*\n){2}\| fastify \| 10 \| 132 \| 198 \| )[^|]+/, '$1999.9 ');
    assert.notEqual(drifted, finding, 'the fastify 10 row is where the test expects it');
    assert.notEqual(withSeedTables(drifted, tables), drifted);
    assert.throws(() => withSeedTables('<!-- seed-table:nope -->\nx\n<!-- /seed-table:nope -->\n', tables), /no table named nope/);
  });

  it('says in its prose only figures its tables hold (besides versions, a year, a line number and the samples)', () => {
    const body = finding.slice(finding.indexOf("## The seed's table beside ours"));
    const blocks = /<!-- seed-table:(\w+) -->\n[\s\S]*?<!-- \/seed-table:\1 -->/g;
    const numbers = (text: string) => (text.match(/\d+(?:[.,]\d+)*/g) ?? []).map((n) => n.replace(/,/g, ''));
    const inTables = new Set(numbers(Object.values(tables).join('\n')));
    const allowed = new Set(['20.11.0', '20.20.2', '3.6.0', '4.0.7', '8.2.2', '9.10.1', '2024', '284', '431', '3']);
    const stray = numbers(body.replace(blocks, '')).filter((n) => !inTables.has(n) && !allowed.has(n));
    assert.deepEqual([...new Set(stray)], [], 'a figure in the prose that no table of the page holds');
  });

  it("shows the report's own startup and listen from start (summary.csv) for the seed's rows", () => {
    const rows = parse<Record<string, string>>(readFileSync(path.join(ROOT, SEED_RUNS.table, 'summary.csv'), 'utf8'), { columns: true });
    for (const framework of ['fastify', 'mion']) {
      for (const routes of ['10', '5000']) {
        const row = rows.find((r) => r.framework === framework && r.routes === routes)!;
        const startup = ms(Number(row.startup_from_start_median_ms));
        const listen = ms(Number(row.listen_from_start_median_ms));
        assert.match(
          tables.table!,
          new RegExp(`^\\| ${framework} \\| ${routes} \\| \\d+ \\| \\d+ \\| [\\d.]+ \\| ${startup} \\| ${listen} \\|`, 'm'),
        );
      }
    }
  });

  describe('the corrected causal claims, recomputed by hand from the samples of the runs they name', () => {
    // the prose as one line: a figure is found whatever the line breaks
    const prose = finding.replace(/\s+/g, ' ');
    const apps = samplesOf(SEED_RUNS.apps);
    // listen from the first statement, CPU: 10 → 5,000 growth and the cost per added route below and above 3,000
    const app = (version: 4 | 5, n: number) => cellMedian(apps, `f${version}-distinct-${n}`, 1, cpuFromStart);
    const turn = (at: (n: number) => number) => (at(5000) - at(3000)) / 2000 / ((at(3000) - at(1000)) / 2000) - 1;
    const growth = (at: (n: number) => number) => at(5000) / at(10);

    it("the seed's app turns upward above 3,000 routes on fastify 5 as on fastify 4; coldstart's file turns downward", () => {
      const [on4, on5] = [turn((n) => app(4, n)), turn((n) => app(5, n))];
      assert.ok(on5 > 0.3 && on4 > 0.2, `${on4} ${on5}`);
      const ours4 = turn((n) => cellMedian(samplesOf(SEED_RUNS.fastify4), 'fastify', n, cpuFromStart));
      const ours5 = turn((n) => cellMedian(samplesOf(SEED_RUNS.nodeLines), 'fastify', n, cpuFromStart));
      assert.ok(ours4 < 0 && ours5 < 0, `${ours4} ${ours5}`);
      for (const figure of [on4, on5, ours4, ours5]) assert.ok(prose.includes(percent(figure)), `the finding quotes ${percent(figure)}`);
      assert.ok(prose.includes(`+47 %`), 'the +47 % of issue 47');
    });

    it("most of the gap is the seed's app, fastify 4 adding about a quarter", () => {
      const seed = 6105 / 198;
      const oursWall = growth((n) => cellMedian(samplesOf(SEED_RUNS.table), 'fastify', n, (s) => s.marks!.listen! - s.marks!.start!));
      const ours5 = growth((n) => cellMedian(samplesOf(SEED_RUNS.nodeLines), 'fastify', n, cpuFromStart));
      const [app4, app5] = [growth((n) => app(4, n)), growth((n) => app(5, n))];
      const quoted = (text: string) => assert.ok(prose.includes(text), `the finding quotes ${text}`);
      quoted(
        `grows ${seed.toFixed(1)} times and ours (wall, quiet run) ${oursWall.toFixed(1)} times, ` +
          `${(seed / oursWall).toFixed(2)} times less`,
      );
      quoted(`the seed's app grows ${app5.toFixed(1)} times and coldstart's file ${ours5.toFixed(1)} times, ${(app5 / ours5).toFixed(2)}`);
      quoted(`(${app4.toFixed(1)} against ${app5.toFixed(1)} times, ${(app4 / app5).toFixed(2)}, in one run)`);
      // the app's share of the gap is most of it: its ratio is nearer the whole gap than fastify 4's
      assert.ok(app5 / ours5 > app4 / app5 && app5 / ours5 > Math.sqrt(seed / oursWall), `${app5 / ours5} ${app4 / app5}`);
      // fastify 4 / fastify 5 on CPU time to listen from the process start, at 1,000, 3,000 and 5,000 routes
      const cpuListen = (version: 4 | 5, n: number) => cellMedian(apps, `f${version}-distinct-${n}`, 1, (s) => s.cpu!.listen!);
      const ratios = [1000, 3000, 5000].map((n) => (cpuListen(4, n) / cpuListen(5, n)).toFixed(2));
      quoted(`1.01 at 1,000 routes, 1.25 at 3,000 and 1.26 at 5,000`);
      assert.deepEqual(ratios, ['1.01', '1.25', '1.26']);
    });

    it("find-my-way 8's cost per added route is a ramp from 1,000 routes on, in 5 counted samples a size, find-my-way 9's flat", () => {
      const ramp = samplesOf(SEED_RUNS.routerRamp);
      const sizes = [...new Set(ramp.map((s) => s.cell.framework.split('-').pop()!).map(Number))].sort((a, b) => a - b);
      assert.ok(sizes.filter((n) => n > 3000 && n < 5000).length >= 2, `sizes between 3,000 and 5,000: ${sizes.join(', ')}`);
      const counts = (version: 4 | 5, n: number) =>
        ramp.filter((s) => s.cell.framework === `f${version}-router-${n}`).map((s) => s.instructions!.listen! - s.instructions!.start!);
      for (const n of sizes)
        for (const v of [4, 5] as const) assert.ok(counts(v, n).length >= 5, `f${v} at ${n}: ${counts(v, n).length} samples`);
      const perAdded = (v: 4 | 5) => sizes.slice(1).map((n, i) => (mid(counts(v, n)) - mid(counts(v, sizes[i]!))) / (n - sizes[i]!) / 1e6);
      const [eight, nine] = [perAdded(4), perAdded(5)];
      // a ramp: every step dearer than the one before (no flat stretch, no single step)
      for (let i = 1; i < eight.length; i++) assert.ok(eight[i]! > eight[i - 1]!, eight.join(', '));
      assert.ok(Math.max(...nine) < Math.min(...eight), nine.join(', '));
      const m = (v: number) => v.toFixed(2);
      const [first, second, ...rest] = eight;
      assert.ok(
        prose.includes(
          `(${m(first!)} M instructions a route from 1,000 to 2,000 routes, ${m(second!)} M to 3,000, ` +
            `then ${rest.slice(0, -1).map(m).join(', ')} and ${m(rest.at(-1)!)} M`,
        ),
      );
      assert.ok(prose.includes(`between ${m(Math.min(...nine))} and ${m(Math.max(...nine))} M`), nine.map(m).join(', '));
      const times = (mid(counts(4, 5000)) / mid(counts(5, 5000))).toFixed(2);
      assert.ok(prose.includes(`executes ${times} times find-my-way 9's`), times);
    });
  });
});
