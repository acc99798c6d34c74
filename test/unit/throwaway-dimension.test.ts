/**
 * A dimension added as one row of a table: the cell functions (core/cell.ts), the CSV columns
 * (report/csv.ts), the flag and its --help (cli/groups/common.ts), the lever tables and the meta.json
 * list they read (report/levers.ts) are all built from the table passed in, so a throwaway row
 * (`warmth`, cold or hot) changes each of them for two cells that differ only in it, and the keys
 * and labels of every cell that leaves it at its stored value stay what they were
 * (test/fixtures/cell-keys.json, written before the table existed).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Command } from '@commander-js/extra-typings';
import { parse } from 'csv-parse/sync';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { cellFile, cellFunctions, cellKey, cellLabel, makeCell, type AnyCell, type Cell } from '../../metrics/core/cell.ts';
import { DIMENSION_TABLE, DIMENSIONS, type DimensionTable } from '../../metrics/core/dimensions.ts';
import type { RunMeta } from '../../metrics/core/meta.ts';
import { parseChoiceList } from '../../metrics/core/parse.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { dimensionOption } from '../../metrics/cli/groups/common.ts';
import { summaryCsv } from '../../metrics/report/csv.ts';
import { leverMarkdown } from '../../metrics/report/levers.ts';
import { expandCellsOf } from '../../metrics/plan/levers.ts';
import { floorLists } from '../../metrics/pipeline/verify.ts';
import { newLeverLists } from '../../metrics/pipeline/meta.ts';
import { DEFAULT_SPEC } from '../../metrics/core/run-spec.ts';

const WARMTHS = ['cold', 'hot'] as const;
/** The throwaway row, as docs/dev/adding-a-target-or-dimension.md says to write one. */
const WARMTH = {
  values: WARMTHS,
  stored: 'cold',
  cli: ['cold'],
  flags: [{ flag: '--warmth', arg: '<list>', group: 'levers', help: `comma list of ${WARMTHS.join(', ')}: the room's temperature` }],
  help: "the room's temperature",
  key: { at: 14, tagged: true },
  label: { at: 8 },
  sortByValues: true,
  lever: { rank: 9 },
  metaList: 'warmths',
  expand: 'levers',
} as const;
const TABLE: DimensionTable = { ...DIMENSION_TABLE, warmth: WARMTH };
const cells = cellFunctions(TABLE, (c) => cellFile(c as Cell));

const base = makeCell({ framework: 'fastify', variant: 'validated', routes: 10 });
const cold = cells.makeCell({ ...base });
const hot = cells.makeCell({ ...base, warmth: 'hot' });

test('two cells that differ only in the new row get two keys and two labels; the stored value keeps the old ones', () => {
  assert.equal(cold.warmth, 'cold', 'makeCell fills the stored value');
  assert.equal(cells.cellKey(cold), cellKey(base));
  assert.equal(cells.cellKey(hot), `${cellKey(base)}|warmth=hot`);
  assert.equal(cells.cellLabel(cold), cellLabel(base));
  assert.equal(cells.cellLabel(hot), `${cellLabel(base)} [warmth=hot]`);
  assert.equal(Math.sign(cells.compareCells(cold, hot)), -1, 'sorted in the order of its values');
});

test('parseCell reads the new field, gives an old record the stored value and refuses a value not of the row', () => {
  assert.deepEqual(cells.parseCell({ ...base, warmth: 'hot' }), hot);
  assert.deepEqual(cells.parseCell({ ...base }), cold);
  assert.equal(cells.parseCell({ ...base, warmth: 'lukewarm' }), undefined);
});

test('every snapshotted cell keeps its key and label under the table with a row more', () => {
  const snapshot = JSON.parse(readFileSync(path.join(import.meta.dirname, '../fixtures/cell-keys.json'), 'utf8')) as {
    cells: { input: unknown; key: string; label: string }[];
  };
  assert.ok(snapshot.cells.length > 20);
  for (const { input, key, label } of snapshot.cells) {
    const cell = cells.parseCell(input);
    assert.ok(cell, JSON.stringify(input));
    assert.equal(cells.cellKey(cell), key);
    assert.equal(cells.cellLabel(cell), label);
  }
});

/** Three answered samples of a cell of the new table, aggregated (one summary per cell: aggregate keys by the real table). */
function summaryOf(cell: AnyCell, firstResponse: number) {
  const samples = [1, 2, 3].map((index): SampleRecord => ({
    cell: cell as Cell,
    phase: 'sample',
    index,
    ok: true,
    marks: { processStart: 1, start: 10, imported: 20, startup: 30, listen: 40, firstResponse: firstResponse + index },
    durationMs: 1,
    at: '2026-01-01T00:00:00Z',
  }));
  return aggregate(samples);
}

test('summary.csv gets a warmth column once a cell leaves the stored value', () => {
  const csv = (rows: ReturnType<typeof summaryOf>): Record<string, string>[] =>
    parse(
      summaryCsv(
        rows,
        (s) => cellFile(s.cell),
        [],
        (c) => cells.shownDimensions(c),
      ),
      { columns: true },
    );
  const onlyCold = csv(summaryOf(cold, 100));
  assert.ok(!('warmth' in onlyCold[0]!), 'a run that never leaves the stored value keeps its columns');
  const both = csv([...summaryOf(cold, 100), ...summaryOf(hot, 50)]);
  assert.deepEqual(
    both.map((r) => r.warmth),
    ['cold', 'hot'],
  );
  const shown = cells.shownDimensions([cold, hot]);
  assert.ok(shown.includes('warmth') && !cells.shownDimensions([cold]).includes('warmth'));
  assert.deepEqual(Object.keys(both[0]!).slice(0, shown.length), shown);
});

test('--help lists the new flag from its row, with the default from its cli list', () => {
  const command = new Command('x').addOption(dimensionOption(WARMTH, '--warmth', parseChoiceList('--warmth', WARMTHS)));
  const help = command.helpInformation().replace(/\s+/g, ' ');
  assert.match(help, /Levers: --warmth <list> comma list of cold, hot: the room's temperature \(default: cold\)/);
  const opts = command.parse(['--warmth', 'hot,cold'], { from: 'user' }).opts();
  assert.deepEqual(opts.warmth, ['hot', 'cold']);
  // the real rows' flags come out of the same function: the measure flag's help is the row's
  assert.ok(dimensionOption(DIMENSIONS.measure, '--measure', String).description.startsWith('comma list of time, instructions'));
});

test('the lever tables get a warmth table, its columns in the order of the meta.json list the row names', () => {
  const summaries = [...summaryOf(cold, 100), ...summaryOf(hot, 50)];
  assert.equal(leverMarkdown(summaries, undefined, '##'), undefined, 'the real table has no warmth lever');
  const meta = { spec: { source: { kind: 'apps', apps: [] }, cells: { warmths: ['hot', 'cold'] } } } as unknown as RunMeta;
  const markdown = leverMarkdown(summaries, meta, '##', TABLE) ?? '';
  assert.match(markdown, /## warmth: hot vs cold \(ratio to hot\)/);
  assert.match(markdown, /\| framework \| routes \| hot \| cold \|/);
  assert.match(markdown, /`warmth=hot` \(vs cold\)|`warmth=cold` \(vs hot\)/);
});

test('the planner multiplies every cell by the new row (expand: levers) with the list the spec names, as it does the real levers', () => {
  const levers = { ...DEFAULT_SPEC.cells, builds: ['plain', 'bundle'], warmths: ['hot', 'cold'] } as typeof DEFAULT_SPEC.cells;
  const planned = expandCellsOf([base], levers, TABLE).map((c) => cells.makeCell(c));
  assert.deepEqual(
    planned.map((c) => [c.build, c.warmth]),
    [
      ['plain', 'hot'],
      ['plain', 'cold'],
      ['bundle', 'hot'],
      ['bundle', 'cold'],
    ],
  );
  assert.equal(new Set(planned.map((c) => cells.cellKey(c))).size, 4, 'four cells, four keys');
  // a spec that names no list for it: the row's cli list
  assert.deepEqual(
    expandCellsOf([base], DEFAULT_SPEC.cells, TABLE).map((c) => c.warmth),
    ['cold'],
  );
  // the real table has no such row: its cells are multiplied as before
  assert.ok(expandCellsOf([base], levers, DIMENSION_TABLE).every((c) => !('warmth' in c)));
});

test("verify re-measures a claim at the floor's value of the new row, from the row alone", () => {
  const lists = floorLists(hot, [hot, { ...hot, framework: 'hono', routes: 100 }], TABLE);
  assert.deepEqual(lists.cells.warmths, ['hot']);
  assert.deepEqual(lists.source.frameworks, ['fastify', 'hono']);
  assert.deepEqual(lists.source.routes, [10, 100]);
  // and every real row with a spec list at the floor's value: none is left to a default
  for (const [d, row] of Object.entries(DIMENSION_TABLE)) {
    if (!row.metaList || d === 'framework' || d === 'routes' || d === 'version') continue;
    const list = lists.source[row.metaList] ?? lists.cells[row.metaList];
    assert.deepEqual(list, [hot[d]], d);
  }
  assert.deepEqual(lists.cells.versions, [], 'a package as installed is no --versions value');
  const versioned = floorLists({ ...base, version: 'fastify@4.28.1' }, [base], DIMENSION_TABLE);
  assert.deepEqual(versioned.cells.versions, ['fastify@4.28.1'], 'verify knows the version dimension');
});

test("meta.json records the new row's list from the row alone, and only when a cell leaves its stored value", () => {
  assert.deepEqual(newLeverLists([hot, cold], TABLE), { warmths: ['hot', 'cold'] });
  assert.deepEqual(newLeverLists([cold], TABLE), {}, 'a run that never leaves it writes the bytes it wrote before');
  assert.deepEqual(newLeverLists([hot, cold], DIMENSION_TABLE), {}, 'the real rows are written by their own lines');
});
