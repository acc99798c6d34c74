/**
 * lambda:reference's inputs are validated like any input: lambda-perf files and REPORT lines within
 * Lambda's own bounds, bounded in size, and the table written only to a new file or a table.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildReferenceTable, checkReferenceOut } from '../../metrics/cloud/lambda-perf.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { SHIPPED_REFERENCE_FILE } from '../../metrics/calibration/lambda-reference.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'coldstart-reference-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function dayFile(name: string, entry: Record<string, unknown>): string {
  const file = path.join(dir, name, '2026-08-01.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ runtimeData: [{ r: 'lambda-perf-nodejs22x-zip-128-x86_64', i: [120], ad: 2, mu: 70, ...entry }] }));
  return file;
}

function refused(input: Parameters<typeof buildReferenceTable>[0]): string {
  try {
    buildReferenceTable(input);
  } catch (error) {
    assert.ok(error instanceof UsageError, `a usage error, not ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/);
    return error.message;
  }
  assert.fail('accepted');
}

describe('lambda-perf files within Lambda bounds', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['negative', { i: [-5] }, /Init Duration \(ms\) -5 is outside Lambda's bounds \(0–10000\)/],
    ['huge', { i: [1e9] }, /Init Duration \(ms\) 1000000000 is outside/],
    ['duration', { ad: 1e12 }, /Duration \(ms\) 1000000000000 is outside Lambda's bounds \(0–900000\)/],
    ['string', { i: ['120'] }, /Init Duration \(ms\) \(a string\) is outside/],
    ['memory', { r: 'lambda-perf-nodejs22x-zip-7-x86_64' }, /memory size \(MB\) 7 is outside Lambda's bounds \(128–10240\)/],
    ['used', { mu: 4000 }, /memory size \(MB\) 4000 is outside Lambda's bounds \(0–128\)/],
    ['many', { i: Array.from({ length: 600_000 }, () => 120) }, /i is not a list of at most 1000 Init Durations/],
  ];
  for (const [name, entry, message] of cases) {
    it(`${name}: refused in one line naming the file and the entry`, () => {
      const file = dayFile(name, entry);
      const why = refused({ lambdaPerfFiles: [file] });
      assert.match(why, message);
      assert.ok(why.startsWith(`${file}: runtimeData[0]`), why);
    });
  }
  it('600 entries of one function on one day (6,000 Init Durations, over the 1,000 a day): refused at the second', () => {
    const file = path.join(dir, 'repeated', '2026-08-01.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const entry = { r: 'lambda-perf-nodejs22x-zip-128-x86_64', i: Array.from({ length: 10 }, () => 120), ad: 2, mu: 70 };
    writeFileSync(file, JSON.stringify({ runtimeData: Array.from({ length: 600 }, () => entry) }));
    const why = refused({ lambdaPerfFiles: [file] });
    assert.equal(
      why,
      `${file}: runtimeData[1] (lambda-perf-nodejs22x-zip-128-x86_64): a second entry of this function on 2026-08-01 ` +
        '(the first is runtimeData[0]): lambda-perf has one a function a day',
    );
  });
  it('one entry a function on one day, for each of two functions, is accepted', () => {
    const file = path.join(dir, 'two', '2026-08-01.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const entry = (memory: number) => ({ r: `lambda-perf-nodejs22x-zip-${memory}-x86_64`, i: [120], ad: 2, mu: 70 });
    writeFileSync(file, JSON.stringify({ runtimeData: [entry(128), entry(256)] }));
    assert.deepEqual(
      buildReferenceTable({ lambdaPerfFiles: [file] }).rows.map((r) => r.memoryMB),
      [128, 256],
    );
  });
  it('a valid entry still makes its row', () => {
    const table = buildReferenceTable({ lambdaPerfFiles: [dayFile('valid', {})] });
    assert.equal(table.rows[0]!.initMs.median, 120);
  });
  it('a file larger than the bound is refused before it is parsed', () => {
    const file = path.join(dir, 'big', '2026-08-02.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, ' '.repeat(64 * 1024 * 1024 + 1));
    assert.match(refused({ lambdaPerfFiles: [file] }), /is too large: a lambda-perf data file is at most 64 MB/);
  });
});

describe('REPORT lines within Lambda bounds', () => {
  it('a memory size of 7 MB is refused', () => {
    const file = path.join(dir, 'report.log');
    writeFileSync(
      file,
      'REPORT RequestId: a\tDuration: 3 ms\tBilled Duration: 3 ms\tMemory Size: 7 MB\tMax Memory Used: 5 MB\tInit Duration: 140.00 ms\n',
    );
    const why = refused({ reportFiles: [file], runtime: 'nodejs24.x', architecture: 'arm64' });
    assert.match(
      why,
      /no successful cold start .*1 line\(s\) refused, the first: .*report\.log:1: Memory Size 7 MB is not a Lambda memory size/,
    );
  });
});

describe('where the table may be written', () => {
  it('a new file, or a calibration table', () => {
    checkReferenceOut(path.join(dir, 'new-table.json'));
    checkReferenceOut(SHIPPED_REFERENCE_FILE);
  });
  it("a run's meta.json or any other file is refused", () => {
    const meta = path.join(dir, 'meta.json');
    writeFileSync(meta, JSON.stringify({ startedAt: '2026-11-25', command: 'run' }));
    assert.throws(() => checkReferenceOut(meta), /--out .*meta\.json exists and is not a calibration table/);
  });
});
