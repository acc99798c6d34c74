/**
 * One rounding for one figure (issue 47): a local Lambda cell's estimate is priced at its Billed estimate
 * (Init and Duration estimates, each rounded up to 1 ms: estimate-interval.ts billedMs) in every table. The
 * power-tuning table priced Init + Duration unrounded, so the same cell read $25.42 there and $25.43 in the
 * estimate and cost tables (deepkit at 1 route, 2026-11-27-lambda). Re-reported here from its samples, every
 * estimated cell's cold start and $ must be the same in summary.csv's power-tuning and estimate columns, and
 * the same text in summary.md's cost and power-tuning tables.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { billedMs } from '../../metrics/analyse/estimate-interval.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { ROOT, tempDir } from '../support/in-process.ts';

const RUN = path.join(ROOT, 'results', 'published', '2026-11-27-lambda');

describe('one rounding for the price of an estimate', () => {
  let dir: string;
  before(async () => {
    dir = tempDir('coldstart-rounding-');
    for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(RUN, file), path.join(dir, file));
    await writeReport(dir);
  });

  it('billedMs rounds each part up to 1 ms, then adds', () => {
    assert.equal(billedMs(1419.2, 93.8), 1514, 'deepkit at 1 route: 1420 + 94, not round(1513.0)');
    assert.equal(billedMs(100, 3), 103);
  });

  it('summary.csv: the power-tuning cold start and $ are the Billed estimate and its price, for every estimated cell', () => {
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    const estimated = rows.filter((r) => r.estimate_billed_duration_ms !== '' && r.power_tuning_first_response_ms !== '');
    assert.ok(estimated.length >= 30, String(estimated.length));
    for (const r of estimated) {
      assert.equal(r.power_tuning_first_response_ms, r.estimate_billed_duration_ms, r.file);
      assert.equal(r.power_tuning_cost_per_million_usd, r.estimate_cost_per_million_usd, r.file);
      assert.equal(r.cost_per_million_usd, r.estimate_cost_per_million_usd, r.file);
    }
  });

  it('summary.md: the cost table and the power-tuning table print the same $ for the same cell', () => {
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    const section = (title: string) => md.slice(md.indexOf(`## ${title}`), md.indexOf('\n## ', md.indexOf(`## ${title}`) + 3));
    // the power-tuning row "| deepkit [init=lazy] | 1 | 1514 ms · $25.43 …" and the cost pivot's deepkit column at 1 route
    const power = /^\| deepkit \[init=lazy\] \| 1 \| (\d+) ms · (\$[\d.]+)/m.exec(section('Power tuning'));
    assert.ok(power, 'the power-tuning row');
    const cost = section('Cost');
    const header = cost
      .split('\n')
      .find((l) => l.startsWith('| routes'))!
      .split('|')
      .map((c) => c.trim());
    const row = cost
      .split('\n')
      .find((l) => l.startsWith('| 1 |'))!
      .split('|')
      .map((c) => c.trim());
    const costText = row[header.indexOf('deepkit')]!;
    assert.equal(/^\$[\d.]+/.exec(costText)?.[0], power[2], `${costText} against ${power[0]}`);
    assert.equal(power[2], '$25.43');
    assert.equal(power[1], '1514');
  });
});
