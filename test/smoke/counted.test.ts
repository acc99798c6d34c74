/**
 * Smoke (npm test): one counted sample (valgrind; skipped with the reason when it is absent):
 * node-http at one route, --measure instructions, one count: every phase counted, in order. Two
 * counts agreeing within the stated spread, the report's section and a counted Lambda cell are
 * test/e2e/counted-run.test.ts's (npm run test:all).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { INSTRUCTION_MARKS } from '../../metrics/core/samples.ts';
import { findCountTools } from '../../metrics/measure/counting.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { runCli, tempDir } from '../support/helpers.ts';

const skip = findCountTools() ? false : 'valgrind (and vgdb) not on PATH: apt-get install valgrind; the counted smoke test skipped';

describe('smoke: one counted sample', { skip }, () => {
  it('counts every phase of node-http, in order', () => {
    const dir = path.join(tempDir('coldstart-smoke-counted-'), 'run');
    const args = ['run', '-f', 'node-http', '-r', '1', '--measure', 'instructions', '--count-samples', '1', '--out', dir];
    const run = runCli(args, { timeoutMs: 300_000 });
    assert.equal(run.status, 0, run.stderr);
    const samples = readSamples(path.join(dir, 'samples.jsonl'));
    assert.equal(samples.length, 1, 'one count and no warm-up');
    const [s] = samples;
    assert.ok(s!.ok, s!.error);
    assert.equal(s!.cell.measure, 'instructions');
    const marks = INSTRUCTION_MARKS.filter((m) => m !== 'init').map((m) => s!.instructions?.[m]);
    assert.ok(
      marks.every((m) => typeof m === 'number' && m > 0),
      JSON.stringify(s!.instructions),
    );
    for (let i = 1; i < marks.length; i++)
      assert.ok(marks[i]! > marks[i - 1]!, `${INSTRUCTION_MARKS[i]} after ${INSTRUCTION_MARKS[i - 1]}`);
  });
});
