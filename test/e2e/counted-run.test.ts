/**
 * Counted runs for real (valgrind; skipped with the reason when it is absent): a node-http cell
 * counted twice has every phase, in order, and its two counts agree within the README's stated
 * spread (0.1 %); a Lambda cell's INIT is cut at its first GET next; a copy of the generated
 * file that answers wrongly fails its counted sample with no counts; without valgrind the mode is a
 * one-line error and exit 2. That --jobs beside timed cells is refused is checked in-process by
 * test/unit/cli-usage.test.ts, that the shards of a run merged equal the unsharded run's cells by
 * test/pipeline/shard-merge.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { SyntaxValidator } from 'fast-xml-validator';
import { contractOf } from '../../generators/contract.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import { INSTRUCTION_MARKS } from '../../metrics/core/samples.ts';
import { readMeta } from '../../metrics/store/meta-file.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { countHooks, findCountTools } from '../../metrics/measure/counting.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { runSample } from '../../metrics/measure/sample.ts';
import { ROOT, runCli, tempDir } from '../support/helpers.ts';

const tools = findCountTools();
const skip = tools ? false : 'valgrind (and vgdb) not on PATH: apt-get install valgrind; counted tests skipped';
/** The spread two counts of one cell stay within (README, "Deterministic cold starts"). */
const STATED_SPREAD = 0.001;

describe('a counted run of node-http', { skip }, () => {
  let dir: string;
  before(() => {
    dir = path.join(tempDir('coldstart-counted-'), 'run');
    const result = runCli(['run', '-f', 'node-http', '-r', '1', '--measure', 'instructions', '--count-samples', '2', '--out', dir], {
      timeoutMs: 300_000,
    });
    assert.equal(result.status, 0, result.stderr);
  });

  it('counts every phase, in order, in both samples, which agree within the stated spread', () => {
    const samples = readSamples(path.join(dir, 'samples.jsonl'));
    assert.equal(samples.length, 2, 'two samples and no warm-up');
    for (const s of samples) {
      assert.ok(s.ok, s.error);
      assert.equal(s.cell.measure, 'instructions');
      const marks = INSTRUCTION_MARKS.filter((m) => m !== 'init').map((m) => s.instructions?.[m]);
      assert.ok(
        marks.every((m) => typeof m === 'number' && m > 0),
        JSON.stringify(s.instructions),
      );
      for (let i = 1; i < marks.length; i++)
        assert.ok(marks[i]! > marks[i - 1]!, `${INSTRUCTION_MARKS[i]} after ${INSTRUCTION_MARKS[i - 1]}`);
    }
    const [a, b] = samples.map((s) => s.instructions!.firstResponse!);
    assert.ok(Math.abs(a! - b!) / Math.min(a!, b!) <= STATED_SPREAD, `${a} vs ${b}`);
  });

  it('reports the counts: summary.md section, chart, csv columns, the flags in meta.json', () => {
    const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(summary, /## Instructions \(counted cells\)/);
    assert.match(summary, /\| 1-startup-node-http-routes\.js \[measure=instructions\] \|( [\d.,]+ \|){6} 0\.\d{3} % \(2\) \|/);
    const chart = readFileSync(path.join(dir, 'chart-phases-instructions.svg'), 'utf8');
    assert.doesNotThrow(() => SyntaxValidator.validate(chart), 'not well-formed XML');
    assert.match(chart, /route registration/);
    assert.match(readFileSync(path.join(dir, 'summary.csv'), 'utf8').split('\n')[0]!, /instructions_total_median/);
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { spec: { countFlags: string[] } };
    assert.deepEqual(meta.spec.countFlags, ['--predictable', '--hash-seed=1', '--random-seed=1']);
  });

  it('a copy of the file that answers wrongly fails its counted sample, with no counts', async () => {
    const original = readFileSync(path.join(ROOT, 'generated', '1-startup-node-http-routes.js'), 'utf8');
    const wrong = original.replace('route: 0 }', 'route: 7 }');
    assert.notEqual(wrong, original);
    const file = path.join(tempDir('coldstart-wrong-'), 'wrong.js');
    writeFileSync(file, wrong);
    const scratch = tempDir('coldstart-count-scratch-');
    const cell = makeCell({ framework: 'node-http', variant: 'validated', routes: 1, measure: 'instructions' });
    const sample = await runSample(
      {
        cell,
        launch: { command: process.execPath, args: [file], cwd: scratch, env: childEnvironment().env },
        contract: contractOf({}),
        phase: 'sample',
        index: 1,
        timeoutMs: 240_000,
        checkInvalidBody: false,
        firstHits: 0,
        slowdown: 10,
      },
      countHooks({ tools: tools!, scratch, shape: 'server' }),
    );
    assert.equal(sample.ok, false);
    assert.match(sample.error!, /wrong answer from POST \/route-0/);
    assert.equal(sample.instructions, undefined);
  });
});

describe('a counted run under the cache simulation (--cache-sim)', { skip }, () => {
  it('records estimated cycles at every mark, above the instructions, in summary.csv (with their ms), summary.md, meta.json', () => {
    const dir = path.join(tempDir('coldstart-cache-sim-'), 'run');
    const args = ['run', '-f', 'node-http', '-r', '1', '--measure', 'instructions', '--cache-sim', '--samples', '1', '--out', dir];
    const result = runCli(args, { timeoutMs: 300_000 });
    assert.equal(result.status, 0, result.stderr);
    const [s] = readSamples(path.join(dir, 'samples.jsonl'));
    assert.ok(s?.ok, s?.error);
    for (const mark of ['start', 'imported', 'startup', 'listen', 'firstResponse'] as const) {
      const [instructions, cycles] = [s.instructions?.[mark], s.cycles?.[mark]];
      assert.ok(instructions && cycles && cycles > instructions, `${mark}: ${cycles} estimated cycles over ${instructions} instructions`);
    }
    const [header, row] = readFileSync(path.join(dir, 'summary.csv'), 'utf8').split('\n');
    const columns = header!.split(',');
    const total = Number(row!.split(',')[columns.indexOf('cycles_total_median')]);
    assert.equal(total, s.cycles!.firstResponse);
    // the estimated ms: the cycles fit (the finding's to quote) recorded in meta.json, × the cell's estimated cycles
    const fit = readMeta(dir)!.timeEstimate!;
    assert.equal(fit.count, 'cycles');
    const estimate = Number(row!.split(',')[columns.indexOf('estimated_cpu_firstResponse_ms')]);
    assert.equal(estimate, Math.round((s.cycles!.firstResponse! / 1e6) * fit.msPerMillion * 1000) / 1000);
    assert.match(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /est\. cycles \(M\) \| cycles \/ instr/);
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { spec: { sampling: { cacheSim?: boolean } } };
    assert.equal(meta.spec.sampling.cacheSim, true);
  });
});

describe('a counted Lambda cell', { skip }, () => {
  it('cuts INIT at its first GET next (through vgdb): start < imported < startup < init < firstResponse', () => {
    const dir = path.join(tempDir('coldstart-counted-lambda-'), 'run');
    // the probe's start (its marks are what is cut) from a warm file cache, on the machine's node
    const lambdaStart = ['--lambda-runtime', 'node', '--lambda-bootstrap', 'probe', '--file-cache', 'warm', '--init', 'lazy'];
    const args = ['run', '-f', 'node-http', '-r', '1', '--target', 'lambda', ...lambdaStart, '--measure', 'instructions', '--out', dir];
    const result = runCli(args, { timeoutMs: 300_000 });
    assert.equal(result.status, 0, result.stderr);
    // a run of counted cells only has a report too (they stay out of the timed summaries)
    assert.match(result.stdout, /results in .*\(summary\.md\)/);
    const [sample] = readSamples(path.join(dir, 'samples.jsonl'));
    assert.ok(sample?.ok, sample?.error);
    const counts = sample.instructions!;
    assert.equal(counts.listen, undefined);
    const marks = [counts.start, counts.imported, counts.startup, counts.init, counts.firstResponse];
    for (let i = 1; i < marks.length; i++) assert.ok(marks[i]! > marks[i - 1]!, JSON.stringify(counts));
  });
});

describe('counted runs: usage', () => {
  it('without valgrind on PATH: one line and exit 2', () => {
    const result = runCli(['run', '-f', 'node-http', '-r', '1', '--measure', 'instructions', '--out', path.join(tempDir(), 'x')], {
      // a PATH without valgrind (the CLI itself runs as process.execPath)
      env: { ...process.env, PATH: tempDir('coldstart-empty-path-') },
    });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^coldstart: --measure instructions needs valgrind .*apt-get install valgrind/);
    assert.equal(result.stderr.trim().split('\n').length, 1);
  });
  // --jobs 2 with timed cells refused: test/unit/cli-usage.test.ts (in-process)
});
