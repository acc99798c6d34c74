/**
 * merge, the use case in-process: two shards join into one run folder whose meta.json names each part
 * and whose report is written once; a cell measured in both parts, a single folder or a taken --out
 * is refused before anything is written.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../metrics/core/errors.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { lockFolder } from '../../metrics/measure/run-lock.ts';
import { machinesDiffer, runMerge, type MergedPart } from '../../metrics/pipeline/merge.ts';
import { tempDir } from '../support/in-process.ts';
import { cell, samplesOf, spread, writeRun } from '../support/synthetic.ts';

let base: string;
let shardA: string;
let shardB: string;
before(() => {
  base = tempDir();
  shardA = writeRun(path.join(base, 'a'), samplesOf(cell('fastify', 10), spread(100, 5)), { shard: '1/2' });
  shardB = writeRun(path.join(base, 'b'), samplesOf(cell('hono', 10), spread(80, 5)), { shard: '2/2' });
});
after(() => rmSync(base, { recursive: true, force: true }));

describe('runMerge', () => {
  it('joins the shards: every sample kept, each part named in meta.json, the report written', async () => {
    const warnings: string[] = [];
    const out = path.join(base, 'merged');
    const { dir, parts } = await runMerge([shardA, shardB], out, (line) => warnings.push(line));
    assert.equal(dir, out);
    assert.deepEqual(
      parts.map((p) => [p.from, p.shard, p.cells.length]),
      [
        ['a', '1/2', 1],
        ['b', '2/2', 1],
      ],
    );
    // every sample as it was, part after part, in order (streamed: merge never holds the samples)
    assert.deepEqual(readSamples(path.join(out, 'samples.jsonl')), [
      ...readSamples(path.join(shardA, 'samples.jsonl')),
      ...readSamples(path.join(shardB, 'samples.jsonl')),
    ]);
    const meta = JSON.parse(readFileSync(path.join(out, 'meta.json'), 'utf8')) as { command: string; parts: MergedPart[] };
    assert.match(meta.command, /^merge of 2 runs \(first: /);
    assert.equal(meta.parts.length, 2);
    assert.ok(existsSync(path.join(out, 'summary.md')));
    assert.equal(machinesDiffer(parts), false);
  });

  it('refuses a cell measured in both parts, one folder, and an --out that holds a run', async () => {
    const twice = writeRun(path.join(base, 'twice'), samplesOf(cell('fastify', 10), spread(100, 3)));
    const refused = (pattern: RegExp) => (error: unknown) => error instanceof UsageError && pattern.test(error.message);
    await assert.rejects(
      runMerge([shardA, twice], path.join(base, 'm1'), () => undefined),
      refused(/was measured in both/),
    );
    await assert.rejects(
      runMerge([shardA], path.join(base, 'm2'), () => undefined),
      refused(/at least two run folders/),
    );
    await assert.rejects(
      runMerge([shardA, shardB], shardA, () => undefined),
      refused(/already holds a run/),
    );
    assert.equal(existsSync(path.join(base, 'm1')), false);
  });

  it('refuses a part with a line that is not a sample, naming it, before writing anything', async () => {
    const broken = writeRun(path.join(base, 'broken'), samplesOf(cell('koa', 10), spread(90, 3)));
    appendFileSync(path.join(broken, 'samples.jsonl'), '{"not":"a sample"}\n');
    await assert.rejects(
      runMerge([shardA, broken], path.join(base, 'm3'), () => undefined),
      (error: unknown) => error instanceof UsageError && /broken\/samples\.jsonl:4 is not a sample record/.test(error.message),
    );
    assert.equal(existsSync(path.join(base, 'm3')), false);
  });

  it('refuses a part a live run still holds, and an interrupted part unless --partial (issue 37, class 7)', async () => {
    const live = writeRun(path.join(base, 'live'), samplesOf(cell('koa', 10), spread(90, 3)), { shard: '2/2' });
    const lock = lockFolder(live, 'run', () => undefined);
    try {
      await assert.rejects(
        runMerge([shardA, live], path.join(base, 'm4'), () => undefined),
        (error: unknown) => error instanceof UsageError && /live is in use by a run \(run pid \d+/.test(error.message),
      );
    } finally {
      lock.release();
    }
    const cut = writeRun(path.join(base, 'cut'), samplesOf(cell('h3', 10), spread(90, 3)), { shard: '2/2' });
    const meta = JSON.parse(readFileSync(path.join(cut, 'meta.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(cut, 'meta.json'), JSON.stringify({ ...meta, interrupted: true }));
    await assert.rejects(
      runMerge([shardA, cut], path.join(base, 'm5'), () => undefined),
      (error: unknown) => error instanceof UsageError && /cut is an interrupted run: merge --partial/.test(error.message),
    );
    assert.equal(existsSync(path.join(base, 'm5')), false);
    const joined = await runMerge([shardA, cut], path.join(base, 'm6'), () => undefined, true);
    assert.equal(joined.parts.length, 2);
  });

  it('refuses a part whose run was killed outright (its meta.json never says finished) unless --partial, naming it', async () => {
    // what a SIGKILLed runner leaves: the meta.json of its start (no finishedAt, no interrupted), its samples so far
    const killed = writeRun(path.join(base, 'killed'), samplesOf(cell('express', 10), spread(95, 2)), { shard: '2/2' });
    const meta = JSON.parse(readFileSync(path.join(killed, 'meta.json'), 'utf8')) as Record<string, unknown>;
    delete meta.finishedAt;
    writeFileSync(path.join(killed, 'meta.json'), JSON.stringify(meta));
    await assert.rejects(
      runMerge([shardA, killed], path.join(base, 'm7'), () => undefined),
      (error: unknown) =>
        error instanceof UsageError &&
        /killed did not finish: its meta\.json has no finishedAt .*merge --partial accepts it/.test(error.message),
    );
    assert.equal(existsSync(path.join(base, 'm7')), false, 'nothing written');
    const joined = await runMerge([shardA, killed], path.join(base, 'm8'), () => undefined, true);
    assert.equal(readSamples(path.join(joined.dir, 'samples.jsonl')).length, 5 + 2, 'with --partial: joined as it is');
  });

  it('says when the parts ran on different machines', () => {
    const part = (cpu: string): Pick<MergedPart, 'machine' | 'runtimes'> => ({
      machine: { os: 'linux', cpu, cores: 2, memoryGB: 4 },
      runtimes: { node: 'v24' },
    });
    assert.equal(machinesDiffer([part('a'), part('a')]), false);
    assert.equal(machinesDiffer([part('a'), part('b')]), true);
  });
});
