/**
 * --samples auto through the command line, in-process with the fake deps (--debug-mode: the fake
 * sampler's samples jitter by 5 %): a run takes between the minimum and the maximum samples per cell
 * and reports the precision reached; a precision no run can reach stops at the maximum after
 * interleaved rounds; bad settings are one-line usage errors (exit 2).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess, type MainResult } from '../support/main-in-process.ts';
import type { RunMeta } from '../../metrics/core/meta.ts';

/** The timed samples per cell (framework and routes) of a run folder. */
function perCell(samples: SampleRecord[]): Map<string, SampleRecord[]> {
  const cells = new Map<string, SampleRecord[]>();
  for (const s of samples.filter((r) => r.phase === 'sample')) {
    const key = `${s.cell.framework}|${s.cell.routes}`;
    cells.set(key, [...(cells.get(key) ?? []), s]);
  }
  return cells;
}

function precisionSection(dir: string): string {
  const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
  const start = md.indexOf('\n## Precision (--samples auto)\n');
  assert.ok(start >= 0, 'summary.md has the precision section');
  return md.slice(start, md.indexOf('\n## ', start + 1));
}

describe('a run with --samples auto', () => {
  let loose: string;
  let tight: string;
  let tightRun: MainResult;

  before(async () => {
    const base = tempDir();
    loose = path.join(base, 'loose');
    tight = path.join(base, 'tight');
    const args = ['run', '--frameworks', 'node-http', '--routes', '1', '--samples', 'auto', '--debug-mode'];
    const looseRun = await mainInProcess([...args, '--min-samples', '3', '--max-samples', '5', '--precision', '50%', '--out', loose]);
    assert.equal(looseRun.code, 0, looseRun.stderr);
    // ±0.001 % of a median of some 40 ms is ±0.4 µs: samples that jitter by 5 % never agree that closely
    tightRun = await mainInProcess([...args, '--min-samples', '2', '--max-samples', '4', '--precision', '0.001%', '--out', tight]);
    assert.equal(tightRun.code, 0, tightRun.stderr);
  });

  it('--precision 50%: between 3 and 5 samples per cell, numbered 1…n, and the precision section', () => {
    const cells = perCell(readSamples(path.join(loose, 'samples.jsonl')));
    assert.equal(cells.size, 1);
    for (const [key, samples] of cells) {
      assert.ok(samples.length >= 3 && samples.length <= 5, `${key}: ${samples.length} samples`);
      assert.deepEqual(
        samples.map((s) => s.index).sort((a, b) => a - b),
        samples.map((_, i) => i + 1),
      );
      for (const s of samples) assert.equal(s.ok, true, s.error);
    }
    const section = precisionSection(loose);
    assert.match(section, /within ±50\.0 % of it \(at least 3, at most 5 samples\)\. \d of 1 cells reached it\./);
    const n = cells.values().next().value!.length;
    const cellRow = `\\| 1-startup-node-http-routes\\.js \\| ${n} \\| [\\d.]+ \\| ±[\\d.]+ % \\([\\d.]+ ms\\) \\|`;
    const row = new RegExp(`${cellRow} (precision reached|maximum reached) \\|`);
    assert.match(section, row);
    const meta = JSON.parse(readFileSync(path.join(loose, 'meta.json'), 'utf8')) as RunMeta;
    assert.equal(meta.spec.sampling?.samples, 'auto');
    assert.deepEqual(meta.spec.sampling.precision, { precision: 0.5, minSamples: 3, maxSamples: 5, metric: 'firstResponse' });
  });

  it('a precision out of reach: interleaved rounds up to the maximum, each shown in the progress, then "maximum reached"', () => {
    const [samples] = [...perCell(readSamples(path.join(tight, 'samples.jsonl'))).values()];
    assert.equal(samples?.length, 4);
    assert.match(tightRun.stderr, /^round 3: 1 cell\(s\) above ±[\d.]+ %: 1-startup-node-http-routes\.js n=2 ±[\d.]+ %$/m);
    assert.match(tightRun.stderr, /^round 4: 1 cell\(s\) above ±[\d.]+ %: 1-startup-node-http-routes\.js n=3 ±[\d.]+ %$/m);
    assert.doesNotMatch(tightRun.stderr, /^round 5:/m);
    assert.match(precisionSection(tight), /\| 1-startup-node-http-routes\.js \| 4 \| .* \| maximum reached \|/);
  });
});

describe('--samples auto: bad settings', () => {
  const cases = [
    { args: ['--precision', '0%'], message: /^coldstart: --precision: "0%" is not a percentage above 0 and below 100/ },
    { args: ['--precision', 'abc'], message: /^coldstart: --precision: "abc" is not a percentage/ },
    { args: ['--min-samples', '1'], message: /^coldstart: --min-samples: "1" is not an integer from 2/ },
  ];
  const outs = cases.map(() => '');
  const results: MainResult[] = [];

  before(async () => {
    const base = tempDir();
    for (const [i, c] of cases.entries()) {
      outs[i] = path.join(base, `run-${i}`);
      results.push(
        await mainInProcess(['run', '--frameworks', 'node-http', '--routes', '1', '--samples', 'auto', ...c.args, '--out', outs[i]]),
      );
    }
  });

  cases.forEach((c, i) => {
    it(`${c.args.join(' ')}: one line on stderr, exit 2, nothing run`, () => {
      const result = results[i]!;
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, '');
      assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, c.message);
      assert.equal(existsSync(outs[i]!), false, 'no run folder');
    });
  });
});
