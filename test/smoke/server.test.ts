/**
 * Smoke (npm test): one real server sample through the command line: node-http at one route starts,
 * answers its route and is timed; the report is written from the sample and `report` rebuilds it.
 * The full runs (every framework, both targets, misbehaving servers) are test/e2e (npm run test:all).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { METRICS } from '../../metrics/core/samples.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { runCli, tempDir } from '../support/helpers.ts';

describe('smoke: one real server sample', () => {
  let dir: string;
  let samples: SampleRecord[];
  before(() => {
    dir = path.join(tempDir('coldstart-smoke-server-'), 'run');
    const run = runCli(['run', '-f', 'node-http', '-r', '1', '--samples', '1', '--warmup', '0', '--out', dir]);
    assert.equal(run.status, 0, run.stderr);
    samples = readSamples(path.join(dir, 'samples.jsonl'));
  });

  it('records one answered sample of the server cell, its marks in order', () => {
    assert.equal(samples.length, 1);
    const [s] = samples;
    assert.ok(s!.ok, s!.error);
    assert.equal(s!.cell.target, 'server');
    assert.equal(s!.cell.framework, 'node-http');
    const marks = METRICS.map((m) => s!.marks?.[m]).filter((m): m is number => m !== undefined);
    assert.ok(marks.length >= 4, JSON.stringify(s!.marks));
    for (let i = 1; i < marks.length; i++) assert.ok(marks[i]! >= marks[i - 1]!, JSON.stringify(s!.marks));
  });

  it('writes the report, and `report` rebuilds the same summary.md from the sample', () => {
    const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(summary, /node-http/);
    const again = runCli(['report', dir]);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(readFileSync(path.join(dir, 'summary.md'), 'utf8'), summary);
  });
});
