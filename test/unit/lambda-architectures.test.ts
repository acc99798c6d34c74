/**
 * Both architectures (issue 27): `--arch x86_64,arm64` gives every local Lambda cell an estimate per
 * architecture, each calibrated on that architecture's real reference and priced at its own price; an
 * old run folder (`arch: "x86"`) reads as x86_64 and reports one architecture, as before.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { shippedCodeLoading, termModel } from '../../metrics/analyse/code-loading.ts';
import { costPerMillion } from '../../metrics/analyse/cost.ts';
import { costOf } from '../../metrics/cli/groups/cost.ts';
import { ms } from '../../metrics/core/format.ts';
import { PRICE_PER_GB_SECOND, REQUEST_PRICE_PER_MILLION } from '../../metrics/core/lambda-platform.ts';
import { readReferenceTable, referenceRow } from '../../metrics/calibration/lambda-reference.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { cell, sampleOf, writeRun } from '../support/synthetic.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'coldstart-arch-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function lambdaSample(framework: string, initMs: number, index: number): SampleRecord {
  const base = sampleOf(cell(framework, 1, { target: 'lambda' }), initMs + 3, index);
  const { listen: _listen, ...marks } = base.marks!;
  return {
    ...base,
    marks: { ...marks, init: initMs, firstResponse: initMs + 3 },
    lambda: { initMs, durationMs: 3, billedMs: Math.ceil(initMs) + 3, memorySizeMB: 1024, maxMemoryUsedMB: 40, invokeCpuMs: 2 },
  };
}

const samples = [
  lambdaSample('node-http', 40, 1),
  lambdaSample('reference', 35, 1),
  lambdaSample('node-http', 40, 2),
  lambdaSample('reference', 35, 2),
];

// nodejs20.x: no public row on that line, so H is every row's median
const model = termModel(shippedCodeLoading());
const k = model.coefficient;
const atFit = (40 / 35 - 1) * model.helloWorldMs('nodejs20.x');
const onLambda = (1 + k) * atFit;
const table = readReferenceTable();

function estimateRows(summary: string): string[] {
  return summary.split('\n').filter((line) => /^\| lambda\/\S*node-http\S* \| nodejs20\.x /.test(line));
}

describe('an estimate per architecture', () => {
  it('an old run folder (arch x86) reports one architecture, x86_64, as it did', async () => {
    const run = writeRun(path.join(dir, 'old'), samples, { samples: 2, arch: 'x86' });
    await writeReport(run);
    const summary = readFileSync(path.join(run, 'summary.md'), 'utf8');
    const rows = estimateRows(summary);
    assert.equal(rows.length, 1);
    assert.match(rows[0]!, /nodejs20\.x x86_64 1024 MB/);
    // one architecture: its cost column, with the interval (issue 36), and no per-architecture CSV column
    assert.match(summary, /\$ per million cold starts \(estimate, interval\)/);
    assert.doesNotMatch(readFileSync(path.join(run, 'summary.csv'), 'utf8'), /_arm64/);
    assert.match(summary, /## Cost: \$ per million cold starts \(AWS Lambda, 1024 MB, x86\)/);
  });

  it('--arch x86_64,arm64: each calibrated on its own real reference and priced at its own price', async () => {
    const run = writeRun(path.join(dir, 'both'), samples, { samples: 2 });
    await writeReport(run, { cost: { architectures: ['x86_64', 'arm64'] } });
    const summary = readFileSync(path.join(run, 'summary.md'), 'utf8');
    const rows = estimateRows(summary);
    assert.equal(rows.length, 2, summary);
    for (const [i, architecture] of (['x86_64', 'arm64'] as const).entries()) {
      const cells = rows[i]!.split('|').map((c) => c.trim());
      assert.equal(cells[2], `nodejs20.x ${architecture} 1024 MB`);
      // the real reference's median on that architecture + (1 + k) × the excess at the fit's speed, (40 / 35 − 1) × H;
      // the column: that minus the 5 ms measured here, which "Lambda adds" (real − 35) already carries
      const real = referenceRow(table, 'nodejs20.x', architecture, 1024)!.initMs.median;
      assert.equal(cells[5], `+${ms(onLambda - 5)} (+${ms(5)} here → +${ms(atFit)} at the fit's speed, × ${1 + k} on Lambda)`);
      assert.equal(cells[6], ms(real + onLambda), `${architecture} Init estimate`);
      const billed = Number(cells[14]);
      const dollars =
        costPerMillion(billed, { memoryMB: 1024, pricePerGBs: PRICE_PER_GB_SECOND[architecture] }) + REQUEST_PRICE_PER_MILLION;
      assert.ok(
        cells[16]!.startsWith(`$${dollars.toFixed(2)} ($`),
        `${architecture} cost at its own price, then its interval: ${cells[16]}`,
      );
    }
    assert.ok(Number(rows[1]!.split('|')[6]) < Number(rows[0]!.split('|')[6]), "arm64's real hello world starts faster");
    const csv = readFileSync(path.join(run, 'summary.csv'), 'utf8').split('\n');
    const header = csv[0]!.split(',');
    for (const a of ['x86_64', 'arm64']) assert.ok(header.includes(`estimate_init_duration_ms_${a}`), a);
    // the term is the same for both architectures (the same local excess): one column, beside the first estimate
    const term = header.indexOf('estimate_init_code_loading_ms');
    assert.equal(term, header.indexOf('estimate_init_duration_ms') + 1);
    assert.ok(
      csv.slice(1).some((line) => Number(line.split(',')[term]) === Math.round((onLambda - 5) * 1000) / 1000),
      '(1 + k) × the excess at the fit speed − the excess here',
    );
    assert.ok(header.includes('estimate_cost_per_million_usd_arm64'));
  });

  it('--price with two architectures is refused: a price is one architecture’s', () => {
    assert.throws(
      () => costOf({ arch: ['x86_64', 'arm64'], price: 0.00001 }),
      /--price with --arch x86_64,arm64: a price is one architecture's/,
    );
    assert.deepEqual(costOf({ arch: ['arm64'], price: 0.00001 }), { architectures: ['arm64'], pricePerGBs: 0.00001 });
  });
});
