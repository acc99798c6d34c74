/**
 * The publication protocol in-process (fake sampler): a run whose --out is under results/published/
 * is refused before anything is made when the 1-min load is above 0.75 a core (1.5 on 2 cores), with
 * one line naming the load, the limit and --force-publish; it starts when the machine is quiet, when
 * forced, when every cell is counted, and anywhere else than results/published/ whatever the load.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../metrics/core/errors.ts';
import { summarizeLoad } from '../../metrics/core/load.ts';
import { runSpec, type RunSpec } from '../../metrics/core/run-spec.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { isPublishedOut } from '../../metrics/pipeline/publish.ts';
import { runPipeline } from '../../metrics/pipeline/run.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

/** The fake deps on a machine whose 1-min load is `load1` on 2 cores. */
function depsAt(load1: number) {
  const deps = fakeDeps();
  return {
    ...deps,
    loadMonitor: () => ({ stop: () => summarizeLoad([{ at: '2026-01-01T00:00:00.000Z', load: [load1, load1, load1] }], 2) }),
  };
}

function spec(out: string, extra: { measures?: RunSpec['cells']['measures']; forcePublish?: boolean } = {}): RunSpec {
  return runSpec({
    source: { kind: 'generated', frameworks: ['node-http'], routes: [1], variants: ['validated'], shapes: ['flat'], schemas: ['small'] },
    cells: { measures: extra.measures ?? ['time'] },
    sampling: { samples: 1 },
    output: { out, ...(extra.forcePublish ? { forcePublish: true } : {}) },
  });
}

describe('a run into results/published/', () => {
  it('is refused above 1.5 on 2 cores: one line, nothing made', async () => {
    const out = path.join(tempDir(), 'results', 'published', 'busy');
    await assert.rejects(
      runPipeline(spec(out), depsAt(1.6)),
      (error: Error) =>
        error instanceof UsageError &&
        error.message ===
          `--out ${out}: a published run starts on a quiet machine, and the 1-min load is 1.60 on 2 cores ` +
            '(above 1.50, 0.75 a core); wait, or --force-publish (docs/dev/publishing.md)',
    );
    assert.equal(existsSync(out), false);
  });

  it('starts at 1.5, forced, with counted cells only, or outside results/published/', async () => {
    const base = tempDir();
    const cases: [string, RunSpec, number][] = [
      ['quiet', spec(path.join(base, 'results', 'published', 'quiet')), 1.5],
      ['forced', spec(path.join(base, 'results', 'published', 'forced'), { forcePublish: true }), 9],
      ['counted', spec(path.join(base, 'results', 'published', 'counted'), { measures: ['instructions'] }), 9],
      ['elsewhere', spec(path.join(base, 'results', 'elsewhere')), 9],
    ];
    for (const [name, s, load] of cases) {
      const result = await runPipeline(s, depsAt(load));
      assert.equal(result.recorded, 1, name);
    }
  });

  it('--force-publish is an option of run (and refused by nothing else)', async () => {
    const out = path.join(tempDir(), 'results', 'published', 'cli');
    const result = await mainInProcess([
      'run',
      '--frameworks',
      'node-http',
      '--routes',
      '1',
      '--samples',
      '1',
      '--debug-mode',
      '--force-publish',
      '--out',
      out,
    ]);
    assert.equal(result.code, 0, result.stderr);
  });

  it('knows a folder under results/published/ from the published folder itself and from others', () => {
    assert.equal(isPublishedOut('results/published/2026-11-27-x'), true);
    assert.equal(isPublishedOut('/a/results/published/x/y'), true);
    assert.equal(isPublishedOut('results/published'), false);
    assert.equal(isPublishedOut('results/2026-11-27'), false);
    assert.equal(isPublishedOut('published/x'), false);
    assert.equal(isPublishedOut(undefined), false);
  });
});
