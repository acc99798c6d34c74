/**
 * Every input is bounded before it is read (issue 26; docs/guide/robustness.md, "Bounds"): a file over
 * its bound, a device where a file is expected (/dev/zero never ends) and a line over a streamed
 * input's cap each end in one line and exit 2 (or, for a run folder's optional files, a note in the
 * report), never in a hang or a growing process. FIFOs need mkfifo, a child process: test/e2e/input-fifo.test.ts.
 */
import assert from 'node:assert/strict';
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readLinesBounded, readTextBounded } from '../../metrics/store/input-files.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { cell, samplesOf, writeRun } from '../support/synthetic.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess, type MainResult } from '../support/main-in-process.ts';

function refused(result: MainResult, pattern: RegExp): void {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, pattern);
}

/** A sparse file of `bytes`: as large as a bound needs, written in no time. */
function sparse(file: string, bytes: number): string {
  const fd = openSync(file, 'w');
  ftruncateSync(fd, bytes);
  closeSync(fd);
  return file;
}

function runFolder(): string {
  return writeRun(tempDir('coldstart-bounds-run-'), samplesOf(cell('fastify', 10), [100, 110, 120]));
}

describe('the one bounded reader', () => {
  it('refuses a file over the bound before reading it, a folder, and /dev/zero at the bound', () => {
    const dir = tempDir('coldstart-bounds-');
    assert.throws(
      () => readTextBounded(sparse(path.join(dir, 'big'), 1025), 1024, 'a thing'),
      /big is too large: a thing is at most 1 KiB/,
    );
    assert.throws(() => readTextBounded(dir, 1024, 'a thing'), /is a folder, not a thing/);
    assert.throws(
      () => readTextBounded('/dev/zero', 1024, 'a thing'),
      (error) => error instanceof UsageError && /too large/.test(error.message),
    );
    assert.equal(readTextBounded(sparse(path.join(dir, 'start'), 5000), 16, 'a thing', { prefix: true }).length, 16);
  });

  it('streams lines: a device is refused, an overlong line skipped or named, a line across chunks whole', () => {
    const dir = tempDir('coldstart-bounds-lines-');
    assert.throws(
      () => readLinesBounded('/dev/zero', 'a log', { maxLine: 100, overlong: 'skip' }, () => undefined),
      /is a device: a log must be a file/,
    );
    const file = path.join(dir, 'lines');
    const long = 'é'.repeat(50_000);
    writeFileSync(file, `a\n${'x'.repeat(200)}\n${long}\nb`);
    const lines: [number, number][] = [];
    const skipped: number[] = [];
    readLinesBounded(file, 'a log', { maxLine: 100_000, overlong: 'skip', skipped: (n) => skipped.push(n) }, (line, n) =>
      lines.push([n, line.length]),
    );
    assert.deepEqual(lines, [
      [1, 1],
      [2, 200],
      [3, 50_000],
      [4, 1],
    ]);
    assert.deepEqual(skipped, []);
    const short: number[] = [];
    const cut: number[] = [];
    readLinesBounded(file, 'a log', { maxLine: 150, overlong: 'skip', skipped: (n) => cut.push(n) }, (_line, n) => short.push(n));
    assert.deepEqual(
      [short, cut],
      [
        [1, 4],
        [2, 3],
      ],
    );
    assert.throws(
      () => readLinesBounded(file, 'a log', { maxLine: 150, overlong: 'error' }, () => undefined),
      /lines:2 is longer than 150 bytes: a log has no line that long/,
    );
  });
});

describe('each input of the command line, over its bound or a device', () => {
  it('report: samples.jsonl as /dev/zero, and a line over 4 MB', async () => {
    const dir = runFolder();
    const samples = path.join(dir, 'samples.jsonl');
    const good = readFileSync(samples, 'utf8');
    writeFileSync(samples, `${good}${'x'.repeat(4 * 2 ** 20 + 1)}\n${good}`);
    refused(await mainInProcess(['report', dir]), /samples\.jsonl:4 is longer than 4 MB/);
    const zero = path.join(tempDir('coldstart-bounds-zero-'), 'run');
    mkdirSync(zero);
    symlinkSync('/dev/zero', path.join(zero, 'samples.jsonl'));
    // a run folder's input reached through a link out of the folder is refused before it is opened (issue 46)
    refused(await mainInProcess(['report', zero]), /samples\.jsonl is a symbolic link inside .*never followed/);
  });

  it('report and compare: a meta.json over 16 MB or from /dev/zero', async () => {
    const dir = runFolder();
    sparse(path.join(dir, 'meta.json'), 16 * 2 ** 20 + 1);
    refused(await mainInProcess(['report', dir]), /meta\.json is too large: a run's meta\.json is at most 16 MB/);
    const zero = runFolder();
    symlinkSync('/dev/zero', path.join(zero, 'meta.json'), 'file');
    refused(await mainInProcess(['compare', runFolder(), zero]), /meta\.json is a symbolic link inside .*never followed/);
  });

  it("report: a hyperfine.json from /dev/zero is named in the report's cross-check, not read without end", async () => {
    const dir = runFolder();
    symlinkSync('/dev/zero', path.join(dir, 'hyperfine.json'));
    const result = await mainInProcess(['report', dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      readFileSync(path.join(dir, 'summary.md'), 'utf8'),
      /hyperfine\.json is too large: a run's hyperfine\.json is at most 64 MB/,
    );
  });

  it('lambda:import: /dev/zero, and an export over 64 MB', async () => {
    const dir = tempDir('coldstart-bounds-import-');
    refused(
      await mainInProcess(['lambda-import', '/dev/zero', '--out', path.join(dir, 'a')]),
      /\/dev\/zero is a device: a file of REPORT lines must be a file/,
    );
    const big = sparse(path.join(dir, 'coldstart-hono-100-validated.json'), 64 * 2 ** 20 + 1);
    refused(
      await mainInProcess(['lambda-import', big, '--out', path.join(dir, 'b')]),
      /is too large: a Logs Insights export is at most 64 MB/,
    );
    assert.ok(!existsSync(path.join(dir, 'a')) && !existsSync(path.join(dir, 'b')), 'nothing written');
  });

  it('lambda:reference: a lambda-perf day file from /dev/zero', async () => {
    const dir = tempDir('coldstart-bounds-reference-');
    const day = path.join(dir, '2026-01-01.json');
    symlinkSync('/dev/zero', day);
    refused(
      await mainInProcess(['lambda-reference', '--lambda-perf', day, '--out', path.join(dir, 'table.json')]),
      /2026-01-01\.json is too large/,
    );
  });

  it('measure: --event from /dev/zero', async () => {
    const dir = tempDir('coldstart-bounds-measure-');
    const handler = path.join(dir, 'index.mjs');
    writeFileSync(handler, 'export const handler = async () => ({ statusCode: 200 });\n');
    refused(
      await mainInProcess([
        'measure',
        '--handler',
        `${handler.slice(0, -4)}.handler`,
        '--event',
        '/dev/zero',
        '--out',
        path.join(dir, 'run'),
      ]),
      /--event: \/dev\/zero is too large: a request body or event is at most 6 MB/,
    );
  });
});
