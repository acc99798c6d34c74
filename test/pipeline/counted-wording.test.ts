/**
 * Counted runs speak of counts (issue 51): a run of instruction counts printed each cell's "median
 * firstResponse … ms" (its wall time under valgrind, no figure of it) and, on a loaded machine, "wall
 * times are inflated; compare CPU times", of figures it has none of. Now its progress line gives the
 * median instructions to firstResponse, and its load warning says load does not move counts; a timed
 * run keeps both as they were.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { countedLoad } from '../../metrics/pipeline/run.ts';
import type { LoadSummary } from '../../metrics/core/load.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const LOADED: LoadSummary = {
  cores: 2,
  before: { load1: 4 },
  after: { load1: 4 },
  during: {},
  busy: true,
  warning: 'load 4.0 on 2 cores (other processes used 60 % of the CPU time) while samples ran: wall times are inflated; compare CPU times',
} as unknown as LoadSummary;

describe('counted runs speak of counts', () => {
  it('the progress line of a counted cell gives its instructions, not ms; a timed cell keeps its ms', async () => {
    const common = ['run', '--frameworks', 'node-http,fastify', '--routes', '1', '--samples', '1', '--debug-mode'];
    const counted = await mainInProcess([...common, '--measure', 'instructions', '--out', path.join(tempDir(), 'c')]);
    assert.equal(counted.code, 0, counted.stderr);
    const done = (counted.stdout + counted.stderr).split('\n').filter((l) => l.startsWith('done '));
    assert.equal(done.length, 2);
    for (const line of done) {
      assert.match(line, /median instructions to firstResponse \d+\.\d M \[\d\/2\]$/);
      assert.doesNotMatch(line, / ms\b/);
    }
    const timed = await mainInProcess([...common, '--out', path.join(tempDir(), 't')]);
    assert.match(timed.stderr, /^done .*median firstResponse [\d.]+ ms \[\d\/\d\]$/m);
  });

  it("a counted run's load warning says counts are not moved by load; a timed or mixed run's keeps CPU times", () => {
    const counted = countedLoad(LOADED, ['instructions', 'instructions']);
    assert.match(counted.warning!, /while samples ran: instruction counts are not moved by it$/);
    assert.doesNotMatch(counted.warning!, /CPU times|wall/);
    assert.equal(countedLoad(LOADED, ['time']).warning, LOADED.warning);
    assert.equal(countedLoad(LOADED, ['time', 'instructions']).warning, LOADED.warning);
  });
});
