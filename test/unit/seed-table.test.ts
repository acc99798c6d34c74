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
});
