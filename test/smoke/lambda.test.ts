/**
 * Smoke (npm test): one real Lambda sample through the command line: node-http's Lambda file at one
 * route, under this tool's Runtime API, started as its own Runtime API client (--lambda-bootstrap
 * probe) on the machine's node (--lambda-runtime node). AWS's Runtime Interface Client (the default
 * bootstrap, ric) is built with cmake and g++ once per machine (73 s at load 8 here; docs/guide/lambda.md), so its
 * samples are test/e2e's (ric.test.ts, measure-ric.test.ts: npm run test:all), as are the runtime lines.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { runCli, tempDir } from '../support/helpers.ts';

describe('smoke: one real Lambda sample (probe bootstrap, the Runtime API)', () => {
  let samples: SampleRecord[];
  before(() => {
    const dir = path.join(tempDir('coldstart-smoke-lambda-'), 'run');
    // --init lazy: node-http has nothing to initialise, so its eager cell would be one more (unsupported) record
    const local = [
      '--lambda-runtime',
      'node',
      '--lambda-bootstrap',
      'probe',
      '--file-cache',
      'warm',
      '--no-lambda-reference',
      '--init',
      'lazy',
    ];
    const run = runCli([
      'run',
      '--target',
      'lambda',
      '-f',
      'node-http',
      '-r',
      '1',
      '--samples',
      '1',
      '--warmup',
      '0',
      ...local,
      '--out',
      dir,
    ]);
    assert.equal(run.status, 0, run.stderr);
    samples = readSamples(path.join(dir, 'samples.jsonl'));
  });

  it("records one answered Lambda sample with REPORT's figures", () => {
    assert.equal(samples.length, 1);
    const [s] = samples;
    assert.ok(s!.ok, s!.error);
    assert.equal(s!.cell.target, 'lambda');
    assert.equal(s!.cell.bootstrap, 'probe');
    const figures = s!.lambda;
    assert.ok(figures, 'a Lambda sample has REPORT figures');
    assert.ok(figures.initMs > 0 && figures.durationMs >= 0, JSON.stringify(figures));
    assert.ok(figures.billedMs >= Math.ceil(figures.initMs), JSON.stringify(figures));
    assert.ok(s!.marks!.init !== undefined && s!.marks!.firstResponse >= s!.marks!.init, JSON.stringify(s!.marks));
  });
});
