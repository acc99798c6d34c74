/**
 * `hyperfine` through the same ports as `run`: the RunSpec, the cells from `deps.source`, hyperfine
 * itself from `deps.hyperfine`. With the fake deps nothing is spawned: the fake source plans the cells,
 * the fake hyperfine answers each benchmark, and the rest (the run folder, hyperfine.json, the merged
 * report) is the real code.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../metrics/core/errors.ts';
import { readHyperfine } from '../../metrics/store/hyperfine-file.ts';
import { DEFAULT_SOURCE, runSpec, type SpecInput } from '../../metrics/core/run-spec.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { runHyperfine } from '../../metrics/pipeline/hyperfine.ts';
import { runPipeline } from '../../metrics/pipeline/run.ts';
import { tempDir } from '../support/in-process.ts';

function specOf(out: string, input: SpecInput = {}) {
  return runSpec({
    command: 'coldstart hyperfine',
    source: { ...DEFAULT_SOURCE, frameworks: ['node-http', 'fastify'], routes: [1, 100] },
    sampling: { samples: 3, warmup: 2 },
    output: { out },
    ...input,
  });
}

describe('hyperfine through the ports (fake hyperfine, fake source)', () => {
  it('benchmarks every cell of the spec with its runs and warm-ups and writes hyperfine.json', async () => {
    const out = path.join(tempDir(), 'hf');
    const deps = fakeDeps();
    const spec = specOf(out, { cells: { builds: ['plain', 'bundle'] } });
    const result = await runHyperfine(spec, deps);
    assert.equal(result.measured, 2 * 2 * 2, 'framework × routes × build');
    assert.deepEqual(result.failed, []);
    assert.equal(result.merged, false, 'no samples.jsonl in the folder');
    assert.equal(deps.hyperfine.calls.length, 8);
    assert.ok(deps.hyperfine.calls.every((b) => b.runs === 3 && b.warmup === 2));
    assert.deepEqual(
      [...new Set(deps.hyperfine.calls.map((b) => b.parameters.build))].sort(),
      ['bundle', 'plain'],
      'the spec levers reach the cells',
    );
    const file = readHyperfine(out)!;
    assert.equal(file.results.length, 8);
    const info = file.coldstart!;
    assert.equal(info.runs, 3);
    assert.equal(info.warmup, 2);
    assert.equal(info.command, 'coldstart hyperfine');
    assert.match(info.hyperfine ?? '', /fake/);
    for (const r of file.results) assert.equal(r.times.length, 3);
  });

  it("into a run's folder: the report is rewritten with both clocks; a cell hyperfine fails is listed", async () => {
    const out = path.join(tempDir(), 'run');
    const run = await runPipeline(specOf(out), fakeDeps());
    assert.equal(run.failed, 0);
    const deps = fakeDeps({ hyperfine: { fail: ['fastify'] } });
    const result = await runHyperfine(specOf(out), deps);
    assert.equal(result.merged, true);
    assert.equal(result.measured, 2, 'node-http at 1 and 100 routes');
    assert.deepEqual(
      result.failed.map((f) => f.command),
      ['1-startup-fastify-routes.js', '100-startup-fastify-routes.js'],
    );
    const md = readFileSync(path.join(out, 'summary.md'), 'utf8');
    assert.match(md, /## Cross-check with hyperfine/);
    assert.match(md, /\| process\(ms\) \|/);
  });

  it('without hyperfine installed: the install hint, as a usage error, before any folder is made', async () => {
    const out = path.join(tempDir(), 'none');
    await assert.rejects(runHyperfine(specOf(out), fakeDeps({ hyperfine: { version: undefined } })), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /hyperfine is not installed/);
      return true;
    });
    assert.equal(existsSync(out), false);
  });
});
