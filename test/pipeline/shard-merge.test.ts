/**
 * `--shard i/n` and `merge`, in-process with the fake deps: the shards of a run, merged, hold
 * exactly the unsharded run's cells, each sample once and in the parts' order; meta.json names the
 * parts' shards, summary.md says it is a merged run, and a part given twice is refused. The specs
 * are the CLI's own (specOfArgv), so the options mean what they mean on the command line.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { specOfArgv } from '../../metrics/cli/main.ts';
import { cellKey, type Cell } from '../../metrics/core/cell.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { runMerge } from '../../metrics/pipeline/merge.ts';
import { exitCodeOf, runPipeline } from '../../metrics/pipeline/run.ts';
import { tempDir } from '../support/in-process.ts';

/** A clock one second a tick from a fixed date, shared by the three runs: every record's `at` is its own. */
let tick = Date.parse('2026-01-01T00:00:00.000Z');
const now = () => new Date((tick += 1000));

async function run(out: string, extra: string[] = []): Promise<SampleRecord[]> {
  const args = ['run', '-f', 'node-http,hono', '-r', '1,2', '--samples', '1', '--warmup', '0', ...extra, '--out', out];
  const spec = await specOfArgv(args);
  assert.ok(spec);
  const result = await runPipeline(spec, fakeDeps({ now }));
  assert.equal(exitCodeOf(result, false), 0);
  return readSamples(path.join(out, 'samples.jsonl'));
}

describe('--shard and merge', () => {
  const base = tempDir('coldstart-shards-');
  const dir = (name: string) => path.join(base, name);
  let whole: SampleRecord[];
  let one: SampleRecord[];
  let two: SampleRecord[];
  before(async () => {
    whole = await run(dir('whole'));
    one = await run(dir('one'), ['--shard', '1/2']);
    two = await run(dir('two'), ['--shard', '2/2']);
    await runMerge([dir('one'), dir('two')], dir('merged'), () => undefined);
  });

  it('the shards of a run, merged, hold exactly the unsharded run cells, each sample once', () => {
    assert.ok(one.length > 0 && two.length > 0, 'each shard has cells');
    const keys = (samples: { cell: Cell }[]) => samples.map((s) => cellKey(s.cell)).sort();
    assert.deepEqual(new Set(keys(one)).size + new Set(keys(two)).size, new Set(keys(whole)).size, 'no cell in both shards');
    const joined = readSamples(path.join(dir('merged'), 'samples.jsonl'));
    assert.deepEqual([...new Set(keys(joined))], [...new Set(keys(whole))]);
    assert.equal(new Set(joined.map((s) => s.at)).size, joined.length, 'every record its own time');
    assert.deepEqual(
      joined.map((s) => s.at),
      [...one, ...two].map((s) => s.at),
    );
  });

  it("meta.json names the parts' shards, summary.md says it is a merged run", () => {
    const meta = JSON.parse(readFileSync(path.join(dir('merged'), 'meta.json'), 'utf8')) as { parts: { shard: string }[] };
    assert.deepEqual(
      meta.parts.map((p) => p.shard),
      ['1/2', '2/2'],
    );
    assert.match(readFileSync(path.join(dir('merged'), 'summary.md'), 'utf8'), /## Merged run/);
  });

  it('a part given twice is refused: its cells were measured in both', async () => {
    await assert.rejects(
      runMerge([dir('one'), dir('one')], dir('again'), () => undefined),
      (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, /measured in both/);
        return true;
      },
    );
  });
});
