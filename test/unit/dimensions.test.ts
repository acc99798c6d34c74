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
import { cellKey, cellLabel, compareCells, parseCell, shownDimensions } from '../../metrics/core/cell.ts';

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
