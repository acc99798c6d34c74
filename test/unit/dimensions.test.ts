/**
 * The dimensions table and the cell functions built on it: every cell of the golden run (and cells
 * that leave each default) keeps the key, label, shown dimensions and order it had before the table
 * (test/fixtures/cell-keys.json was written by the code before it), parseCell refuses values outside
 * the closed sets, and makeCell fills the stored values.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cellKey, cellLabel, compareCells, makeCell, parseCell, shownDimensions } from '../../metrics/core/cell.ts';
import { DIMENSION_TABLE, RUN_DIMENSIONS } from '../../metrics/core/dimensions.ts';

interface Snapshot {
  cells: { input: unknown; key: string; label: string }[];
  shownGolden: string[];
  shownAll: string[];
  sortedKeys: string[];
}
const snapshot = JSON.parse(readFileSync(path.join(import.meta.dirname, '../fixtures/cell-keys.json'), 'utf8')) as Snapshot;
const goldenCells = readFileSync(path.join(import.meta.dirname, '../fixtures/golden-run/samples.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => parseCell((JSON.parse(line) as { cell: unknown }).cell)!);

test('every snapshotted cell keeps its key and label', () => {
  for (const { input, key, label } of snapshot.cells) {
    const cell = parseCell(input);
    assert.ok(cell, `parses: ${JSON.stringify(input)}`);
    assert.equal(cellKey(cell), key);
    assert.equal(cellLabel(cell), label);
  }
});

test('the shown dimensions (CSV columns) and the sort order stay', () => {
  const cells = snapshot.cells.map((c) => parseCell(c.input)!);
  assert.deepEqual(shownDimensions(goldenCells), snapshot.shownGolden);
  assert.deepEqual(shownDimensions(cells), snapshot.shownAll);
  assert.deepEqual([...cells].sort(compareCells).map(cellKey), snapshot.sortedKeys);
});

test('every cell of the golden run is in the snapshot', () => {
  const keys = new Set(snapshot.cells.map((c) => c.key));
  for (const cell of goldenCells) assert.ok(keys.has(cellKey(cell)), cellKey(cell));
});

test('the table: key and label places are distinct, a tagged row has a stored value, every flag is distinct', () => {
  const rows = Object.entries(DIMENSION_TABLE);
  const keyPlaces = rows.map(([, row]) => row.key.at);
  assert.equal(new Set(keyPlaces).size, rows.length, `key places: ${keyPlaces.join(',')}`);
  const labelPlaces = rows.flatMap(([, row]) => (row.label === 'file' ? [] : [row.label.at]));
  assert.equal(new Set(labelPlaces).size, labelPlaces.length, `label places: ${labelPlaces.join(',')}`);
  for (const [name, row] of rows) {
    // a tagged row was added after runs were recorded: their records lack it and read as `stored`
    if (row.key.tagged) assert.notEqual(row.stored, undefined, `${name} is tagged but has no stored value`);
    // an untagged row is in every key: every record must hold it, or a label must show it
    if (row.stored !== undefined && !row.key.tagged) assert.notEqual(row.label, 'file', name);
  }
  const flags = [...rows.map(([, row]) => row), ...Object.values(RUN_DIMENSIONS)].flatMap((row) => row.flags.map((f) => f.flag));
  assert.equal(new Set(flags).size, flags.length, flags.join(' '));
});

test("versions sort in release order: a version's digit runs compare as numbers", () => {
  const at = (version: string) =>
    makeCell({ framework: 'fastify', variant: 'validated', routes: 1000, target: 'server', measure: 'instructions', version });
  const order = ['fastify@4.10.0', 'fastify@5.12.8', 'fastify@4.5.0', 'fastify@5.3.2', 'fastify@4.0.0'].map(at).sort(compareCells);
  assert.deepEqual(
    order.map((c) => c.version),
    ['fastify@4.0.0', 'fastify@4.5.0', 'fastify@4.10.0', 'fastify@5.3.2', 'fastify@5.12.8'],
  );
});
