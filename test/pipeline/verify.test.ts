/**
 * `verify` in-process with the fake deps: a "published" run made by the fake sampler, re-measured
 * through the run pipeline. The same machine (the same seeded samples, or other jitter) holds every
 * claim and exits 0; a framework made 1.5× slower here breaks its claims and exits 1, and verify.md
 * says so claim by claim; one 1.15× slower (on the margin) is undetermined, exit 10, with the samples
 * that would decide it; a loaded machine is judged on CPU time and says so; counted cells hold within
 * the count margin (4 %, another checkout's path) and break beyond it, naming the path.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import {
  DEFAULT_VERIFY_SAMPLES,
  EXIT_CLAIM_FAILED,
  EXIT_UNDETERMINED,
  judgedMetrics,
  verifyPipeline,
} from '../../metrics/pipeline/verify.ts';
import { summarizeLoad } from '../../metrics/core/load.ts';
import type { PlannedRun } from '../../metrics/plan/order.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

/** A ratio and its interval as a claim line shows them: 12.3× [11.8–12.9] (published / here: no ×). */
const ESTIMATE = String.raw`[\d.]+×? \[[\d.]+–[\d.]+\]`;

/** A record of `framework` made `factor` times slower (wall, CPU and counts alike). */
function slower(framework: string, factor: number) {
  return (run: PlannedRun, record: SampleRecord): SampleRecord | undefined => {
    if (run.cell.framework !== framework || !record.ok) return undefined;
    const scale = <T extends object | undefined>(marks: T, round = (v: number) => v): T =>
      marks && (Object.fromEntries(Object.entries(marks).map(([k, v]) => [k, typeof v === 'number' ? round(v * factor) : v])) as T);
    // counts are integers (samples.jsonl keeps no other)
    return { ...record, marks: scale(record.marks), cpu: scale(record.cpu), instructions: scale(record.instructions, Math.round) };
  };
}

describe('verify on a published run (fake sampler)', () => {
  let published: string;
  let counted: string;
  let base: string;

  before(async () => {
    base = tempDir();
    published = path.join(base, 'published');
    counted = path.join(base, 'counted');
    const common = ['run', '--frameworks', 'node-http,fastify,hono', '--routes', '1,100,1000', '--debug-mode'];
    const timed = await mainInProcess([...common, '--samples', '6', '--out', published]);
    assert.equal(timed.code, 0, timed.stderr);
    const count = await mainInProcess([...common, '--measure', 'instructions', '--samples', '1', '--out', counted]);
    assert.equal(count.code, 0, count.stderr);
  });

  it('re-measures the floor and each framework at its smallest and largest N, and every claim holds here: exit 0', async () => {
    const out = path.join(base, 'same');
    const result = await mainInProcess(['verify', published, '--debug-mode', 'cv=0.08', '--out', out]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const measured = new Set(
      readSamples(path.join(out, 'samples.jsonl'))
        .filter((s) => s.phase === 'sample')
        .map((s) => `${s.cell.framework}@${s.cell.routes}`),
    );
    assert.deepEqual([...measured].sort(), ['fastify@1', 'fastify@1000', 'hono@1', 'hono@1000', 'node-http@1', 'node-http@1000']);
    assert.equal(
      readSamples(path.join(out, 'samples.jsonl')).filter((s) => s.phase === 'sample').length,
      6 * DEFAULT_VERIFY_SAMPLES,
      'the default samples a cell',
    );
    // a quiet machine (the fake load): 5 cells beside the floor, on wall time
    assert.match(result.stdout, /^judged on firstResponse: wall time: neither run was loaded/m);
    assert.match(result.stdout, /^5 of 5 claims hold here; results in .*\(verify\.md\)$/m);
    assert.match(
      result.stdout,
      new RegExp(
        String.raw`^fastify@1000 / node-http@1 firstResponse: published ${ESTIMATE}, here ${ESTIMATE}; ` +
          String.raw`published/here ${ESTIMATE} within ±15 %: holds$`,
        'm',
      ),
    );
    assert.doesNotMatch(result.stdout, /cpu\.firstResponse: /);
    const md = readFileSync(path.join(out, 'verify.md'), 'utf8');
    assert.match(md, /^5 of 5 claims hold here\.$/m);
    assert.ok(existsSync(path.join(out, 'summary.md')), 'the re-measurement is a run folder with its report');
  });

  it('a framework 1.5× slower here: its claims do not hold, the others do, exit 1', async () => {
    const out = path.join(base, 'slower');
    const deps = fakeDeps({ script: slower('fastify', 1.5) });
    const result = await verifyPipeline({ published, command: 'test', out }, deps);
    assert.equal(result.exitCode, EXIT_CLAIM_FAILED);
    const verdicts = Object.fromEntries(result.claims.map((c) => [`${c.cell.framework}@${c.cell.routes} ${c.metric}`, c.verdict]));
    assert.deepEqual(verdicts, {
      'fastify@1 firstResponse': 'does not hold',
      'fastify@1000 firstResponse': 'does not hold',
      'hono@1 firstResponse': 'holds',
      'hono@1000 firstResponse': 'holds',
      'node-http@1000 firstResponse': 'holds',
    });
    const md = readFileSync(path.join(out, 'verify.md'), 'utf8');
    assert.match(md, /^3 of 5 claims hold here, 2 do not\.$/m);
    assert.match(md, /^\| fastify@1000 \/ node-http@1 \| firstResponse \| .* \| ±15 % \| \*\*does not hold\*\* \|$/m);
  });

  it('a framework 1.15× slower here (on the margin): undetermined, with the samples that would decide it, exit 10', async () => {
    const out = path.join(base, 'margin');
    const result = await verifyPipeline({ published, command: 'test', out }, fakeDeps({ script: slower('fastify', 1.15) }));
    const fastify = result.claims.filter((c) => c.cell.framework === 'fastify');
    assert.ok(
      fastify.some((c) => c.verdict === 'undetermined'),
      result.markdown,
    );
    assert.ok(
      result.claims.every((c) => c.verdict !== 'does not hold' && c.verdict !== 'not measured'),
      result.markdown,
    );
    assert.equal(result.exitCode, EXIT_UNDETERMINED);
    assert.match(
      result.markdown,
      /undetermined — (more samples needed \(about \d+ a cell: --samples \d+\)|the published run's own spread is too wide)/,
    );
    // a margin of 30 %: the same samples hold
    const wide = await verifyPipeline(
      { published, command: 'test', out: path.join(base, 'margin-30'), margin: 0.3 },
      fakeDeps({ script: slower('fastify', 1.15) }),
    );
    assert.equal(wide.exitCode, 0, wide.markdown);
    assert.ok(wide.claims.every((c) => c.margin === 0.3));
  });

  it('on a loaded machine the claims are on CPU time, and verify.md says why', async () => {
    const busy = summarizeLoad(
      [
        {
          at: '2026-01-01T00:00:00Z',
          load: [9, 9, 9],
          cpu: { user: 0, nice: 0, system: 0, idle: 0, iowait: 0, irq: 0, softirq: 0, steal: 0 },
          ownTicks: 0,
        },
        {
          at: '2026-01-01T00:01:00Z',
          load: [9, 9, 9],
          cpu: { user: 900, nice: 0, system: 100, idle: 0, iowait: 0, irq: 0, softirq: 0, steal: 0 },
          ownTicks: 100,
        },
      ],
      2,
    );
    assert.ok(busy.busy);
    const deps = { ...fakeDeps(), loadMonitor: () => ({ stop: () => busy }) };
    const result = await verifyPipeline({ published, command: 'test', out: path.join(base, 'loaded') }, deps);
    assert.deepEqual(result.judged.metrics, ['cpu.firstResponse']);
    assert.ok(result.claims.length === 5 && result.claims.every((c) => c.metric === 'cpu.firstResponse' && c.verdict === 'holds'));
    assert.match(
      result.markdown,
      /^- judged on cpu\.firstResponse: CPU time: this run ran on a loaded machine, which inflates wall times$/m,
    );
  });

  it('--frameworks and --routes choose the slice; a framework the run lacks is one usage line, exit 2', async () => {
    const out = path.join(base, 'chosen');
    const deps = fakeDeps();
    const result = await verifyPipeline({ published, command: 'test', out, frameworks: ['hono'], routes: [100] }, deps);
    assert.deepEqual(
      result.claims.map((c) => `${c.cell.framework}@${c.cell.routes}/${c.floor.framework}@${c.floor.routes} ${c.metric}`),
      ['hono@100/node-http@1 firstResponse'],
    );
    const bad = await mainInProcess(['verify', published, '--frameworks', 'express', '--debug-mode', '--out', path.join(base, 'bad')]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'coldstart: --frameworks: express not in the published run (it has fastify, hono, node-http)\n');
    assert.equal(existsSync(path.join(base, 'bad')), false, 'nothing measured');
  });

  it('counted cells: the same counts hold, 2 % more holds (4 % margin: another checkout), 6 % more does not, naming the path', async () => {
    const same = await verifyPipeline({ published: counted, command: 'test', out: path.join(base, 'c-same') }, fakeDeps());
    assert.equal(same.exitCode, 0);
    assert.ok(same.claims.length > 0 && same.claims.every((c) => c.metric === 'instructions' && c.verdict === 'holds'));
    const near = await verifyPipeline(
      { published: counted, command: 'test', out: path.join(base, 'c-near'), measure: 'instructions' },
      fakeDeps({ script: slower('hono', 1.02) }),
    );
    assert.equal(near.exitCode, 0, near.markdown);
    const far = await verifyPipeline(
      { published: counted, command: 'test', out: path.join(base, 'c-far') },
      fakeDeps({ script: slower('hono', 1.06) }),
    );
    assert.equal(far.exitCode, EXIT_CLAIM_FAILED);
    assert.deepEqual(
      far.claims.filter((c) => c.verdict !== 'holds').map((c) => `${c.cell.framework}@${c.cell.routes}`),
      ['hono@1', 'hono@1000'],
    );
    assert.match(far.markdown, /does not hold \(or this checkout's path differs in length from the published run's/);
    // a margin narrower than another checkout's counts at a path of the same length: refused, naming it
    const narrow = await mainInProcess(['verify', counted, '--margin', '0.2%', '--debug-mode', '--out', path.join(base, 'c-narrow')]);
    assert.equal(narrow.code, 2);
    assert.match(
      narrow.stderr,
      /^coldstart: --margin 0\.2 %: counts from another checkout differ by up to 0\.5 % even at a path of the same length/,
    );
    assert.equal(existsSync(path.join(base, 'c-narrow')), false, 'nothing measured');
  });

  it('a Lambda run: claims on its frameworks (not the reference) and only on metrics it recorded', async () => {
    const lambda = path.join(base, 'lambda');
    const made = await mainInProcess([
      'run',
      '--target',
      'lambda',
      '--frameworks',
      'node-http,hono',
      '--routes',
      '1,10',
      '--samples',
      '3',
      '--debug-mode',
      '--out',
      lambda,
    ]);
    assert.equal(made.code, 0, made.stderr);
    const result = await verifyPipeline({ published: lambda, command: 'test', out: path.join(base, 'lambda-here') }, fakeDeps());
    assert.ok(result.claims.length > 0);
    // no claim on the hello-world reference, and none on a metric the run did not record (it would be "not measured": exit 1)
    assert.deepEqual([...new Set(result.claims.map((c) => `${c.cell.framework}@${c.cell.routes}`))], ['hono@1', 'hono@10', 'node-http@10']);
    // 3 published samples a cell leave some claims undetermined (exit 10), none failed
    assert.ok(
      result.claims.every((c) => c.verdict === 'holds' || c.verdict === 'undetermined'),
      result.markdown,
    );
    assert.equal(result.exitCode, result.claims.every((c) => c.verdict === 'holds') ? 0 : EXIT_UNDETERMINED, result.markdown);
  });

  it('the metric judged: --metric as given; CPU time when either run was loaded; wall time when neither was or without CPU time', () => {
    const quiet = summarizeLoad([{ at: '2026-01-01T00:00:00Z', load: [0.1, 0.1, 0.1] }], 2);
    const loaded = { ...quiet, busy: true };
    const both = ['firstResponse', 'cpu.firstResponse'] as const;
    assert.deepEqual(judgedMetrics(both, {}, { published: quiet, here: quiet }).metrics, ['firstResponse']);
    assert.deepEqual(judgedMetrics(both, {}, { published: loaded, here: quiet }), {
      metrics: ['cpu.firstResponse'],
      why: 'CPU time: the published run ran on a loaded machine, which inflates wall times',
    });
    assert.deepEqual(judgedMetrics(both, {}, { published: undefined, here: loaded }).metrics, ['cpu.firstResponse']);
    assert.match(
      judgedMetrics(['firstResponse'], {}, { published: undefined, here: loaded }).why,
      /the published run recorded no CPU time/,
    );
    assert.deepEqual(judgedMetrics(both, { metrics: ['listen'] }, { published: loaded, here: loaded }).metrics, ['listen']);
  });
});
