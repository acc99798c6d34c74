/**
 * `compare --metric` through the command line (main() in-process), on synthetic run folders: a planted 5 % CPU
 * regression fails --fail-above on cpu.firstResponse while the unchanged wall time passes; an
 * unknown metric is a one-line usage error; runs recorded under different machine loads get the
 * advice to compare CPU time when compared on wall time.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { summarizeLoad, type LoadSummary } from '../../metrics/core/load.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess, type MainResult } from '../support/main-in-process.ts';
import { cell, sampleOf, writeRun } from '../support/synthetic.ts';

const N = 10;
/** `center` within ±0.5 %, evenly spread: tight enough that a 5 % shift separates the samples completely. */
const tight = (center: number) => Array.from({ length: N }, (_, i) => center * (1 + 0.01 * (i / (N - 1) - 0.5)));

/** Samples with these wall firstResponse values and CPU times at firstResponse (earlier CPU marks scaled down). */
function samples(wall: number[], cpu: number[]): SampleRecord[] {
  const c = cell('fastify', 1000);
  return wall.map((w, i) => {
    const f = cpu[i]!;
    return sampleOf(c, w, i + 1, { cpu: { start: 0.02 * f, imported: 0.4 * f, startup: 0.7 * f, listen: 0.75 * f, firstResponse: f } });
  });
}

/** A load record of `load1` on 2 cores all through the run, as meta.json keeps it. */
function loadOf(load1: number): LoadSummary {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  return summarizeLoad(
    [
      { at: at(0), load: [load1, load1, load1] },
      { at: at(5), load: [load1, load1, load1] },
    ],
    2,
  );
}

function withLoad(dir: string, load: LoadSummary): void {
  const file = path.join(dir, 'meta.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), load }, null, 2));
}

describe('compare --metric on the command line', () => {
  let cpuGate: MainResult;
  let wallGate: MainResult;
  let unknown: MainResult;
  let both: MainResult;

  before(async () => {
    const base = tempDir();
    const wall = tight(1550);
    // A on an idle machine (0.3 per core), B under load (0.95 per core): same wall times, CPU 5 % higher in B
    const a = writeRun(path.join(base, 'a'), samples(wall, tight(2300)), { samples: N });
    const b = writeRun(path.join(base, 'b'), samples([...wall].reverse(), tight(2300 * 1.05)), { samples: N });
    withLoad(a, loadOf(0.6));
    withLoad(b, loadOf(1.9));
    const results: MainResult[] = [];
    for (const args of [
      ['compare', a, b, '--metric', 'cpu.firstResponse', '--fail-above', '1.02'],
      ['compare', a, b, '--fail-above', '1.02'],
      ['compare', a, b, '--metric', 'nope'],
      ['compare', a, b, '--metric', 'firstResponse,cpu.firstResponse'],
    ])
      results.push(await mainInProcess(args));
    [cpuGate, wallGate, unknown, both] = results as [MainResult, MainResult, MainResult, MainResult];
  });

  it('a planted 5 % CPU regression: --metric cpu.firstResponse --fail-above 1.02 exits 1 and names the metric', () => {
    assert.equal(cpuGate.code, 1, cpuGate.stderr);
    assert.match(cpuGate.stdout, /^Metric: `cpu\.firstResponse`, CPU time of the child at firstResponse/m);
    const row = cpuGate.stdout.split('\n').find((l) => l.startsWith('| 1000-startup-fastify-routes.js | cpu.firstResponse |'));
    assert.match(row ?? cpuGate.stdout, /\| 1\.050 \| [^|]+ \| 10\/10 \| \*\*regression\*\* ✗ \(above --fail-above\) \|$/);
    assert.match(cpuGate.stdout, /--fail-above 1\.02: 1 regression\(s\) above it: FAIL\./);
    assert.doesNotMatch(cpuGate.stdout, /\| firstResponse \|/, 'wall time is not compared');
    assert.doesNotMatch(cpuGate.stdout, /⚠ .*compare on cpu/, 'no advice to compare CPU when CPU is compared');
  });

  it('the same runs on wall time (the default): unchanged, pass, and the advice to compare CPU time', () => {
    assert.equal(wallGate.code, 0, wallGate.stderr);
    assert.match(wallGate.stdout, /^Metric: `firstResponse`, wall time to firstResponse/m);
    assert.match(wallGate.stdout, /\| 1000-startup-fastify-routes\.js \| firstResponse \| .* \| 1\.000 \| .* \| no significant change \|/);
    assert.match(wallGate.stdout, /--fail-above 1\.02: none above it: pass\./);
    assert.match(
      wallGate.stdout,
      /^⚠ the machine load differed \(0\.30 per core in A, 0\.95 in B\): wall times are not comparable; compare on cpu\.firstResponse/m,
    );
  });

  it('several metrics: a row each, the advice still given for the wall one', () => {
    assert.equal(both.code, 0, both.stderr);
    assert.match(both.stdout, /^Metrics: `firstResponse`, .*; `cpu\.firstResponse`, /m);
    assert.match(both.stdout, /\| firstResponse \| .* \| no significant change \|/);
    assert.match(both.stdout, /\| cpu\.firstResponse \| .* \| \*\*regression\*\* \|/);
    assert.match(both.stdout, /^⚠ the machine load differed/m);
  });

  it('--metric nope: one line on stderr naming the choices, exit 2, nothing on stdout', () => {
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.equal(unknown.stdout, '');
    assert.equal(unknown.stderr.trimEnd().split('\n').length, 1, unknown.stderr);
    assert.match(unknown.stderr, /^coldstart: --metric: "nope" is not one of .*firstResponse.*cpu\.firstResponse/);
  });
});
