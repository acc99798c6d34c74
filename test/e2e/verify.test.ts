/**
 * `verify` end to end on real processes: a tiny published-like run folder (node-http and fastify at
 * 1 and 10 routes) made by a real run, then re-measured by `npm run verify`. Timings are not
 * asserted: the timed case checks the claims it reports (one line each, in the documented form, on
 * the one metric the load chose), its exit code (0, 1 or 10 as the verdicts say, never another) and
 * the run folder it writes; the counted case (valgrind, deterministic counts on one checkout) must
 * hold, exit 0.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { findCountTools } from '../../metrics/measure/counting.ts';
import { runCli as cli, tempDir } from '../support/helpers.ts';

const ESTIMATE = String.raw`[\d.]+×? \[[\d.]+–[\d.]+\]`;
const CLAIM = new RegExp(
  String.raw`^(\S+@\d+) / node-http@1 (\S+): published ${ESTIMATE}, here ${ESTIMATE}; published/here ${ESTIMATE} within ±15 %: ` +
    String.raw`(holds|does not hold|undetermined — .*)$`,
);

describe('verify on a real published-like run', () => {
  it('timed: one line per claim (3 cells, wall or CPU time as the load says), verify.md and the new samples; exit 0, 1 or 10', () => {
    const dir = tempDir();
    const published = path.join(dir, 'published');
    const made = cli(['run', '--frameworks', 'node-http,fastify', '--routes', '1,10', '--samples', '3', '--out', published]);
    assert.equal(made.status, 0, made.stderr);
    const out = path.join(dir, 'here');
    const result = cli(['verify', published, '--samples', '2', '--out', out]);
    assert.ok([0, 1, 10].includes(result.status!), `exit ${result.status}: ${result.stderr}`);
    const lines = result.stdout.trim().split('\n');
    const judged = /^judged on (firstResponse|cpu\.firstResponse): /.exec(lines[0]!);
    assert.ok(judged, result.stdout);
    const claims = lines.slice(1, -1).map((line) => CLAIM.exec(line));
    assert.ok(
      claims.every((c) => c),
      result.stdout,
    );
    const metric = judged[1]!;
    assert.deepEqual(
      claims.map((c) => `${c![1]} ${c![2]}`),
      [`fastify@1 ${metric}`, `fastify@10 ${metric}`, `node-http@10 ${metric}`],
    );
    const verdicts = claims.map((c) => c![3]!.split(' — ')[0]);
    const holding = verdicts.filter((v) => v === 'holds').length;
    assert.match(lines.at(-1)!, new RegExp(`^${holding} of 3 claims hold here[;,] `));
    const expected = verdicts.includes('does not hold') ? 1 : verdicts.includes('undetermined') ? 10 : 0;
    assert.equal(result.status, expected, 'exit 1 when a claim does not hold, else 10 when one is undetermined');
    assert.match(readFileSync(path.join(out, 'verify.md'), 'utf8'), new RegExp(`^${holding} of 3 claims hold here[.,]`, 'm'));
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
      /^node-http@10 \/ node-http@1 instructions: published 1\.\d{3}× \[[\d.]+–[\d.]+\], here 1\.\d{3}× .* within ±4 %: holds$/m,
    );
    assert.match(result.stdout, /^1 of 1 claims hold here; /m);
  });
});
