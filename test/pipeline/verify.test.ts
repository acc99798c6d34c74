/**
 * `verify` in-process with the fake deps: a "published" run made by the fake sampler, re-measured
 * through the run pipeline. The same machine (the same seeded samples, or other jitter) holds every
 * claim and exits 0; a framework made 1.5× slower here breaks its claims and exits 1, and verify.md
 * says so claim by claim; counted cells hold within the instruction threshold and break beyond it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { EXIT_CLAIM_FAILED, verifyPipeline } from '../../metrics/pipeline/verify.ts';
import { ratioInterval } from '../../metrics/analyse/verify.ts';
import type { PlannedRun } from '../../metrics/plan/order.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

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
    // 5 cells beside the floor × 2 metrics (wall and CPU first response)
    assert.match(result.stdout, /^10 of 10 claims hold here; results in .*\(verify\.md\)$/m);
    assert.match(
      result.stdout,
      /^fastify@1000 \/ node-http@1 firstResponse: published [\d.]+× \[[\d.]+–[\d.]+\], here [\d.]+× \[[\d.]+–[\d.]+\]: holds$/m,
    );
    assert.match(result.stdout, /^hono@1 \/ node-http@1 cpu\.firstResponse: .*: holds$/m);
    const md = readFileSync(path.join(out, 'verify.md'), 'utf8');
    assert.match(md, /^10 of 10 claims hold here\.$/m);
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
      'fastify@1 cpu.firstResponse': 'does not hold',
      'fastify@1000 firstResponse': 'does not hold',
      'fastify@1000 cpu.firstResponse': 'does not hold',
      'hono@1 firstResponse': 'holds',
      'hono@1 cpu.firstResponse': 'holds',
      'hono@1000 firstResponse': 'holds',
      'hono@1000 cpu.firstResponse': 'holds',
      'node-http@1000 firstResponse': 'holds',
      'node-http@1000 cpu.firstResponse': 'holds',
    });
    const md = readFileSync(path.join(out, 'verify.md'), 'utf8');
    assert.match(md, /^6 of 10 claims hold here\.$/m);
    assert.match(md, /^\| fastify@1000 \/ node-http@1 \| firstResponse \| .* \| \*\*does not hold\*\* \|$/m);
  });

  it('--frameworks and --routes choose the slice; a framework the run lacks is one usage line, exit 2', async () => {
    const out = path.join(base, 'chosen');
    const deps = fakeDeps();
    const result = await verifyPipeline({ published, command: 'test', out, frameworks: ['hono'], routes: [100] }, deps);
    assert.deepEqual(
      result.claims.map((c) => `${c.cell.framework}@${c.cell.routes}/${c.floor.framework}@${c.floor.routes} ${c.metric}`),
      ['hono@100/node-http@1 firstResponse', 'hono@100/node-http@1 cpu.firstResponse'],
    );
    const bad = await mainInProcess(['verify', published, '--frameworks', 'express', '--debug-mode', '--out', path.join(base, 'bad')]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'coldstart: --frameworks: express not in the published run (it has fastify, hono, node-http)\n');
    assert.equal(existsSync(path.join(base, 'bad')), false, 'nothing measured');
  });

  it('counted cells: the same counts hold, 0.1 % more holds (within the 0.5 % threshold), 2 % more does not', async () => {
    const same = await verifyPipeline({ published: counted, command: 'test', out: path.join(base, 'c-same') }, fakeDeps());
    assert.equal(same.exitCode, 0);
    assert.ok(same.claims.length > 0 && same.claims.every((c) => c.metric === 'instructions' && c.verdict === 'holds'));
    const near = await verifyPipeline(
      { published: counted, command: 'test', out: path.join(base, 'c-near'), measure: 'instructions' },
      fakeDeps({ script: slower('hono', 1.001) }),
    );
    assert.equal(near.exitCode, 0, near.markdown);
    const far = await verifyPipeline(
      { published: counted, command: 'test', out: path.join(base, 'c-far') },
      fakeDeps({ script: slower('hono', 1.02) }),
    );
    assert.equal(far.exitCode, EXIT_CLAIM_FAILED);
    assert.deepEqual(
      far.claims.filter((c) => c.verdict !== 'holds').map((c) => `${c.cell.framework}@${c.cell.routes}`),
      ['hono@1', 'hono@1000'],
    );
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
    assert.ok(result.claims.every((c) => c.verdict === 'holds'));
    assert.equal(result.exitCode, 0, result.markdown);
  });

  it('the ratio interval is seeded and contains the ratio of medians', () => {
    const a = [10, 11, 12, 13, 14];
    const b = [2, 2.1, 2.2, 1.9, 2];
    const one = ratioInterval(a, b, 's')!;
    assert.deepEqual(one, ratioInterval(a, b, 's'));
    assert.equal(one.ratio, 12 / 2);
    assert.ok(one.interval.low <= one.ratio && one.ratio <= one.interval.high);
    assert.ok(one.interval.high > one.interval.low);
  });
});
