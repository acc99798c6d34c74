/**
 * Lambda estimates made under load are marked (issue 38): with other processes at 76–88 % of the CPU
 * the estimates of three real handlers rose by about 30 %. A run whose load monitor says other
 * processes took at least ESTIMATE_LOAD_BOUND of the CPU time marks its estimates in summary.md (the
 * Lambda section and the cost table), report.html and on the console; below the bound, nothing is
 * marked. The load readings are fakes handed to the run (no real load, no timing).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ESTIMATE_LOAD_BOUND, estimateLoadWarning, summarizeLoad, type CpuTimes } from '../../metrics/core/load.ts';
import { runSpec } from '../../metrics/core/run-spec.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { runPipeline } from '../../metrics/pipeline/run.ts';
import { tempDir } from '../support/in-process.ts';

const IDLE: CpuTimes = { user: 0, nice: 0, system: 0, idle: 0, iowait: 0, irq: 0, softirq: 0, steal: 0 };

/** Two readings 1,000 ticks apart in which other processes took `others` of the CPU time (the run itself none). */
function loadWith(others: number) {
  const busy = Math.round(others * 1000);
  return summarizeLoad(
    [
      { at: '2026-01-01T00:00:00.000Z', load: [1, 1, 1], cpu: IDLE, ownTicks: 0 },
      { at: '2026-01-01T00:00:10.000Z', load: [1, 1, 1], cpu: { ...IDLE, user: busy, idle: 1000 - busy }, ownTicks: 0 },
    ],
    2,
  );
}

async function lambdaRun(others: number) {
  const out = path.join(tempDir('coldstart-estimate-load-'), 'run');
  const warnings: string[] = [];
  const deps = fakeDeps();
  await runPipeline(
    runSpec({
      source: { kind: 'generated', frameworks: ['hono'], routes: [1, 10], variants: ['validated'], shapes: ['flat'], schemas: ['small'] },
      cells: { targets: ['lambda'] },
      sampling: { samples: 3 },
      output: { out },
    }),
    {
      ...deps,
      loadMonitor: () => ({ stop: () => loadWith(others) }),
      progress: { write: (text: string) => (warnings.push(text), true) } as never,
    },
  );
  return {
    summary: readFileSync(path.join(out, 'summary.md'), 'utf8'),
    html: readFileSync(path.join(out, 'report.html'), 'utf8'),
    console: warnings.join(''),
  };
}

describe('Lambda estimates under load', () => {
  it('the bound: marked from ESTIMATE_LOAD_BOUND of the CPU time taken by others, not below', () => {
    assert.equal(estimateLoadWarning(loadWith(ESTIMATE_LOAD_BOUND - 0.01)), undefined);
    assert.match(estimateLoadWarning(loadWith(ESTIMATE_LOAD_BOUND))!, /^Lambda estimates made under load: other processes used 25 %/);
    assert.match(estimateLoadWarning(loadWith(0.8))!, /used 80 % of the CPU time while samples ran, above the 25 %/);
    assert.equal(estimateLoadWarning(undefined), undefined);
  });

  it('at 80 %: every output that shows the estimate marks it', async () => {
    const run = await lambdaRun(0.8);
    const mark = estimateLoadWarning(loadWith(0.8))!;
    const lambdaSection = run.summary.slice(run.summary.indexOf('## Lambda: measured here'));
    assert.ok(lambdaSection.includes(`⚠ ${mark}`), 'the Lambda section');
    const costSection = run.summary.slice(run.summary.indexOf('## Cost'));
    assert.ok(costSection.includes(`⚠ ${mark}.`), 'the cost table');
    assert.ok(run.html.includes(`<p class="warning">⚠ ${mark}</p>`), 'report.html');
    assert.ok(run.console.includes(mark), 'the console');
  });

  it('at 10 %: no mark anywhere', async () => {
    const run = await lambdaRun(0.1);
    for (const text of [run.summary, run.html, run.console]) assert.doesNotMatch(text, /Lambda estimates made under load/);
    // the estimate is there, unmarked
    assert.match(run.summary, /## Lambda: measured here, what Lambda adds, the estimate/);
  });
});
