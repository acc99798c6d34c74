/**
 * A calibration table checked against its schema before it is read (issue 46, item 4): a value of the
 * wrong type or out of range in a file given with --calibration is one line naming the file, the row
 * and the field, exit 2. A memory size of 1e308 (an integer, so accepted), a runtime holding escape
 * bytes and a Max Memory Used of "x" (dropped without a word) were read as they were.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadCalibrationFile } from '../../metrics/calibration/calibration-file.ts';
import { readReferenceTable, SHIPPED_REFERENCE_FILE } from '../../metrics/calibration/lambda-reference.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { tempDir } from '../support/in-process.ts';

type Row = Record<string, unknown> & { initMs: Record<string, unknown> };

describe('a calibration table against its schema', () => {
  it('the shipped table passes', () => {
    assert.ok(readReferenceTable().rows.length > 0);
  });
  const cases: [string, (row: Row) => void, string][] = [
    ['a memory size of 1e308', (r) => (r.memoryMB = 1e308), 'memoryMB: a whole number of MB from 128 to 10240 expected, found 1e+308'],
    ['a memory size of 0', (r) => (r.memoryMB = 0), 'memoryMB: a whole number of MB from 128 to 10240 expected, found 0'],
    ['a memory size as text', (r) => (r.memoryMB = '1024'), 'memoryMB: a number expected, found "1024"'],
    [
      'a runtime with escape bytes',
      (r) => (r.runtime = 'nodejs22.x\u001b]0;owned\u0007'),
      'runtime: a Node.js runtime line (nodejs22.x) expected, found "nodejs22.x ]0;owned "',
    ],
    ['Max Memory Used as text', (r) => (r.maxMemoryUsedMB = 'x'), 'maxMemoryUsedMB: a number expected, found "x"'],
    ['a negative median', (r) => (r.initMs.median = -1), 'initMs.median: a finite number from 0 up expected, found -1'],
  ];
  for (const [what, edit, field] of cases) {
    it(`${what}: --calibration refuses it in one line naming the row and the field`, () => {
      const dir = tempDir('coldstart-calibration-schema-');
      const table = JSON.parse(readFileSync(SHIPPED_REFERENCE_FILE, 'utf8')) as { rows: Row[] };
      edit(table.rows[1]!);
      writeFileSync(path.join(dir, 'edited.json'), JSON.stringify(table));
      assert.throws(
        () => loadCalibrationFile('edited.json', dir),
        (e: unknown) => {
          assert.ok(e instanceof UsageError, String(e));
          assert.equal(e.message, `--calibration: edited.json is not a calibration table: row 2: ${field}`);
          return true;
        },
      );
    });
  }
});
