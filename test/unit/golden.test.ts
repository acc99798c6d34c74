/**
 * A stored run folder (test/fixtures/golden-run: samples.jsonl and meta.json of a real run) reported
 * again must give, byte for byte, the files in its expected/ folder: a change of structure must not
 * change a result. A deliberate change of an output updates expected/ in the same commit.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { writeReport } from '../../metrics/report/write.ts';
import { fixture, tempDir } from '../support/in-process.ts';

const GOLDEN = fixture('golden-run');
const EXPECTED = path.join(GOLDEN, 'expected');
const INPUTS = ['samples.jsonl', 'meta.json'];
/**
 * report.html is left out of expected/: it carries vega's browser bundle inline (about 520 KB), so a
 * golden copy would store a third-party file and change with every upgrade of vega or vega-lite; its
 * data comes from the summaries the golden files check, and test/unit/report-html.test.ts checks the
 * page itself (its data against summary.csv, its escaping, the same bytes from the same folder).
 */
const NOT_GOLDEN = ['report.html'];

/** Where two texts first differ: the line number and both lines. */
function firstDifference(expected: string, actual: string): string {
  const want = expected.split('\n');
  const got = actual.split('\n');
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    if (want[i] !== got[i]) {
      const show = (line: string | undefined) =>
        line === undefined ? '(no line)' : JSON.stringify(line.length > 300 ? `${line.slice(0, 300)}…` : line);
      return `line ${i + 1}:\n  expected ${show(want[i])}\n  written  ${show(got[i])}`;
    }
  }
  return 'the same lines, different bytes';
}

describe('the golden run folder reports to the same bytes', () => {
  const expectedFiles = readdirSync(EXPECTED).sort();
  let dir: string;
  let written: string[] = [];
  before(async () => {
    dir = tempDir('coldstart-golden-');
    for (const file of INPUTS) copyFileSync(path.join(GOLDEN, file), path.join(dir, file));
    ({ written } = await writeReport(dir));
    written = written.filter((file) => !NOT_GOLDEN.includes(file));
  });

  it('writes exactly the files of expected/', () => {
    assert.ok(expectedFiles.length > 0, 'expected/ holds the report');
    assert.deepEqual([...written].sort(), expectedFiles);
    assert.deepEqual(readdirSync(dir).sort(), [...expectedFiles, ...INPUTS, ...NOT_GOLDEN].sort());
  });

  for (const file of expectedFiles) {
    it(file, () => {
      const expected = readFileSync(path.join(EXPECTED, file));
      const actual = readFileSync(path.join(dir, file));
      if (!expected.equals(actual))
        assert.fail(`${file} differs from expected/${file} at ${firstDifference(expected.toString('utf8'), actual.toString('utf8'))}`);
    });
  }

  it('leaves its inputs as they were', () => {
    for (const file of INPUTS) assert.ok(readFileSync(path.join(dir, file)).equals(readFileSync(path.join(GOLDEN, file))), file);
  });
});
