/**
 * The list of a run folder's files (store/run-folder.ts) against what writes them: every file the
 * report writes, the golden run's report, the raw data and the lock are run files, so no output
 * option can overwrite them.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ATTRIBUTION_FILE } from '../../metrics/core/attribution.ts';
import { HYPERFINE_FILE } from '../../metrics/core/hyperfine.ts';
import { META_FILE } from '../../metrics/core/meta.ts';
import { isRunFile } from '../../metrics/store/run-folder.ts';
import { SAMPLES_FILE } from '../../metrics/core/samples.ts';
import { LOCK_FILE } from '../../metrics/measure/run-lock.ts';
import { OUTPUTS } from '../../metrics/report/write.ts';

describe('a run folder’s files', () => {
  it('every output the report can write is one', () => {
    const files = OUTPUTS.flatMap((output) => (output.file === undefined ? [] : [output.file]));
    assert.ok(files.length >= 8, files.join(' '));
    for (const file of [...files, 'summary.md', 'summary.csv']) assert.ok(isRunFile(file), file);
  });

  it('the raw data, the lock and the golden run’s report are; a file of the user’s is not', () => {
    for (const file of [SAMPLES_FILE, META_FILE, ATTRIBUTION_FILE, HYPERFINE_FILE, LOCK_FILE]) assert.ok(isRunFile(file), file);
    for (const file of readdirSync(path.join(import.meta.dirname, '../fixtures/golden-run/expected'))) assert.ok(isRunFile(file), file);
    for (const file of ['export.json', 'compare.md', 'chart.svg', 'summary.txt']) assert.ok(!isRunFile(file), file);
  });
});
