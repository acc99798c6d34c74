/**
 * The managed runtime's start for real: AWS's Runtime Interface Client (aws-lambda-ric, built into
 * .runtimes/ on first use) launched as Lambda's bootstrap does, on both Lambda lines, loads every
 * installed framework's handler, answers the timed request correctly and rejects the invalid body.
 * Skipped with the reason when the client cannot be built here (no cmake, make or C++ compiler).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { runCli, tempDir, type CliResult } from '../support/helpers.ts';
import { ricSkip } from '../support/lambda-helpers.ts';

const skip = ricSkip();

/**
 * A framework that does not load on a line at all, whichever start: restify 11 calls
 * process.binding('http_parser'), which Node 24 no longer has. Its cell is unsupported at plan time
 * (one record with the reason), not a sample that fails in INIT.
 */
const INCOMPATIBLE: Record<string, RegExp> = { 'restify|nodejs24.x': /process\.binding\('http_parser'\)/ };

describe("the Runtime Interface Client starts every framework's handler", { skip: skip ?? false }, () => {
  let dir: string;
  let run: CliResult;
  let samples: SampleRecord[];

  before(() => {
    dir = path.join(tempDir(), 'run');
    run = runCli(
      [
        'run',
        '--target',
        'lambda',
        '--lambda-runtime',
        'nodejs22.x,nodejs24.x',
        '--lambda-bootstrap',
        'ric',
        '--file-cache',
        'warm',
        // the files as they always were (the eager ones: init-split.test.ts, init-lever.test.ts)
        '--init',
        'lazy',
        '--routes',
        '3',
        '--samples',
        '1',
        '--warmup',
        '0',
        '--out',
        dir,
      ],
      { timeoutMs: 600_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    samples = readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample');
  });

  it('every installed framework answers the last route on both lines, and rejects the invalid body', () => {
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { spec: { source: { frameworks: string[] } } };
    const { frameworks } = meta.spec.source;
    assert.ok(frameworks.length >= 8, `frameworks: ${frameworks.join(', ')}`);
    for (const line of ['nodejs22.x', 'nodejs24.x']) {
      for (const framework of frameworks) {
        const sample = samples.find((s) => s.cell.framework === framework && s.cell.runtime === line);
        assert.ok(sample, `${framework} on ${line} has a sample`);
        const incompatible = INCOMPATIBLE[`${framework}|${line}`];
        if (incompatible) {
          assert.equal(sample.ok, false, `${framework} on ${line} was expected to be unsupported`);
          assert.match(sample.unsupported ?? '', incompatible);
          assert.equal(sample.error, undefined);
          continue;
        }
        assert.equal(sample.ok, true, `${framework} on ${line}: ${sample.error ?? ''} ${sample.stderrTail ?? ''}`);
        assert.equal(sample.cell.bootstrap, 'ric');
        assert.equal(sample.invalidBody?.ok, true, `${framework} on ${line}: ${sample.invalidBody?.reason ?? ''}`);
      }
    }
  });

  it("a ric sample has the Runtime API's marks and the REPORT figures, and none of the probe's own marks", () => {
    for (const sample of samples.filter((s) => s.ok)) {
      assert.ok(sample.marks && sample.marks.init! > 0 && sample.marks.firstResponse > sample.marks.init!);
      assert.equal(sample.marks.startup, undefined);
      assert.equal(sample.marks.imported, undefined);
      assert.ok(sample.lambda && sample.lambda.initMs > 0 && sample.lambda.maxMemoryUsedMB! > 0);
    }
  });

  it('meta.json records the client, the flags and the variables each cell started with', () => {
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as {
      lambda: {
        client: string;
        variables: string[];
        starts: Record<string, { bootstrap: string; flags?: string[]; env: Record<string, string> }>;
        cpuSpeed: Record<string, { iterations: number; cpuMs: number[] }>;
      };
    };
    assert.match(meta.lambda.client, /^aws-lambda-ric@/);
    for (const line of ['nodejs22.x', 'nodejs24.x']) {
      const speed = meta.lambda.cpuSpeed[line];
      assert.ok(
        speed && speed.iterations > 0 && speed.cpuMs.length === 6,
        `the CPU reference's loop timed on ${line}, 3 times before the samples and 3 after`,
      );
    }
    assert.ok(meta.lambda.variables.includes('_HANDLER') && meta.lambda.variables.includes('AWS_LAMBDA_LOG_STREAM_NAME'));
    // a cell unsupported when planned (restify on Node 24) never starts: its entry has no flags, the others all do
    const entries = Object.entries(meta.lambda.starts);
    const unstarted = entries.filter(([, start]) => start.flags === undefined).map(([label]) => label);
    assert.ok(
      unstarted.length === 1 && unstarted.every((label) => label.includes('-restify-') && label.includes('nodejs24.x')),
      unstarted.join(', '),
    );
    const starts = entries.flatMap(([, start]) => (start.flags ? [{ ...start, flags: start.flags }] : []));
    assert.ok(starts.length > 0);
    for (const start of starts) {
      assert.equal(start.bootstrap, 'ric');
      assert.ok(start.flags.includes('--expose-gc') && start.flags.includes('--max-old-space-size=922'));
      assert.match(start.env.AWS_EXECUTION_ENV!, /^AWS_Lambda_nodejs2[24]\.x$/);
    }
  });
});

describe("ric-noflags: the client without the bootstrap's flags", { skip: skip ?? false }, () => {
  it('answers, and meta.json records the same variables and no flags', () => {
    const dir = path.join(tempDir(), 'run');
    const run = runCli(
      [
        'run',
        '--target',
        'lambda',
        '-f',
        'node-http',
        '--routes',
        '1',
        '--lambda-bootstrap',
        'ric,ric-noflags',
        // node-http has nothing to initialise: its eager cell would add an unsupported record per bootstrap
        '--init',
        'lazy',
        '--lambda-reference',
        'off',
        '--file-cache',
        'warm',
        '--samples',
        '1',
        '--warmup',
        '0',
        '--out',
        dir,
      ],
      { timeoutMs: 300_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const samples = readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample' && s.cell.framework === 'node-http');
    assert.deepEqual(samples.map((s) => [s.cell.bootstrap, s.ok]).sort(), [
      ['ric', true],
      ['ric-noflags', true],
    ]);
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as {
      lambda: { starts: Record<string, { bootstrap: string; flags: string[]; env: Record<string, string> }> };
    };
    const starts = Object.values(meta.lambda.starts);
    const bare = starts.find((s) => s.bootstrap === 'ric-noflags');
    const flagged = starts.find((s) => s.bootstrap === 'ric');
    assert.ok(bare && flagged);
    assert.deepEqual(bare.flags, []);
    assert.ok(flagged.flags.includes('--expose-gc'));
    assert.equal(bare.env.AWS_EXECUTION_ENV, flagged.env.AWS_EXECUTION_ENV);
  });
});
