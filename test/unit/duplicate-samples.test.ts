/**
 * A sample counts once (issue 37, class 7): a samples.jsonl line that repeats a (cell, phase, index)
 * already read is refused by every reader (report, compare, merge) with one line naming file:line and
 * exit 2; before, a copied line counted twice (n 19 became 38).
 */
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { forEachSample } from '../../metrics/core/samples.ts';
import { FIXTURES, tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const GOLDEN = path.join(FIXTURES, 'golden-run');

/** A copy of the golden run whose samples.jsonl ends with its own line `n` (1-based) again. */
function withRepeatedLine(n: number): { dir: string; line: number } {
  const dir = path.join(tempDir('coldstart-dup-'), 'run');
  cpSync(GOLDEN, dir, { recursive: true });
  const file = path.join(dir, 'samples.jsonl');
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  appendFileSync(file, `${lines[n - 1]}\n`);
  return { dir, line: lines.length + 1 };
}

describe('a repeated sample line is refused', () => {
  it('by the reader every command uses, naming the line', () => {
    const { dir, line } = withRepeatedLine(3);
    assert.throws(
      () => forEachSample(path.join(dir, 'samples.jsonl'), () => undefined),
      new RegExp(`samples\\.jsonl:${line} repeats (sample|warmup) \\d+ of .*already read`),
    );
  });

  it('by report, compare and merge: exit 2, one line naming the file and line', async () => {
    const { dir, line } = withRepeatedLine(5);
    const other = path.join(tempDir('coldstart-dup-'), 'merged');
    for (const args of [
      ['report', dir],
      ['compare', GOLDEN, dir],
      ['merge', GOLDEN, dir, '--out', other],
    ]) {
      const result = await mainInProcess(args);
      assert.equal(result.code, 2, `${args[0]}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`samples\\.jsonl:${line} repeats`));
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    }
  });
});
