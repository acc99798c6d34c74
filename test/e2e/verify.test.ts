/**
 * `verify` end to end on real processes: a tiny published-like run folder (node-http and fastify at
 * 1 and 10 routes) made by a real run, then re-measured by `npm run verify`. Timings are not
 * asserted: the timed case checks the claims it reports (one line each, in the documented form),
 * its exit code (0 or 1, never another) and the run folder it writes; the counted case (valgrind,
 * deterministic counts) must hold, exit 0.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { findCountTools } from '../../metrics/measure/counting.ts';
import { runCli as cli, tempDir } from '../support/helpers.ts';

const CLAIM =
  /^(\S+@\d+) \/ node-http@1 (\S+): published [\d.]+× \[[\d.]+–[\d.]+\], here [\d.]+× \[[\d.]+–[\d.]+\]: (holds|does not hold)$/;

describe('verify on a real published-like run', () => {
  it('timed: one line per claim (3 cells × wall and CPU first response), verify.md and the new samples; exit 0 or 1', () => {
    const dir = tempDir();
    const published = path.join(dir, 'published');
    const made = cli(['run', '--frameworks', 'node-http,fastify', '--routes', '1,10', '--samples', '3', '--out', published]);
    assert.equal(made.status, 0, made.stderr);
    const out = path.join(dir, 'here');
    const result = cli(['verify', published, '--samples', '2', '--out', out]);
    assert.ok(result.status === 0 || result.status === 1, `exit ${result.status}: ${result.stderr}`);
    const lines = result.stdout.trim().split('\n');
    const claims = lines.slice(0, -1).map((line) => CLAIM.exec(line));
    assert.ok(
      claims.every((c) => c),
      result.stdout,
    );
    assert.deepEqual(
      claims.map((c) => `${c![1]} ${c![2]}`),
      [
        'fastify@1 firstResponse',
        'fastify@1 cpu.firstResponse',
        'fastify@10 firstResponse',
        'fastify@10 cpu.firstResponse',
        'node-http@10 firstResponse',
        'node-http@10 cpu.firstResponse',
      ],
    );
    const holding = claims.filter((c) => c![3] === 'holds').length;
    assert.match(lines.at(-1)!, new RegExp(`^${holding} of 6 claims hold here; results in `));
    assert.equal(result.status, holding === 6 ? 0 : 1, 'exit 1 exactly when a claim does not hold');
    assert.match(readFileSync(path.join(out, 'verify.md'), 'utf8'), new RegExp(`^${holding} of 6 claims hold here\\.$`, 'm'));
    const samples = readSamples(path.join(out, 'samples.jsonl')).filter((s) => s.phase === 'sample');
    assert.equal(samples.length, 4 * 2, '4 cells × 2 samples');
    assert.ok(samples.every((s) => s.ok));
    assert.ok(existsSync(path.join(out, 'summary.md')));
  });

  it('counted (valgrind): the instruction ratio holds on the same machine, exit 0', { skip: !findCountTools() && 'no valgrind' }, () => {
    const dir = tempDir();
    const published = path.join(dir, 'published');
    const made = cli(
      ['run', '--frameworks', 'node-http', '--routes', '1,10', '--measure', 'instructions', '--samples', '1', '--out', published],
      { timeoutMs: 600_000 },
    );
    assert.equal(made.status, 0, made.stderr);
    const result = cli(['verify', published, '--measure', 'instructions', '--out', path.join(dir, 'here')], { timeoutMs: 600_000 });
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(
      result.stdout,
      /^node-http@10 \/ node-http@1 instructions: published 1\.\d{3}× \[[\d.]+–[\d.]+\], here 1\.\d{3}× .*: holds$/m,
    );
    assert.match(result.stdout, /^1 of 1 claims hold here; /m);
  });
});
