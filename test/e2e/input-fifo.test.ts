/**
 * A FIFO where a file is expected (issue 26): every input is opened non-blocking and its kind checked
 * on the descriptor, so a FIFO with no writer is refused at once with one line and exit 2 instead of
 * waiting forever for one. mkfifo is a child process, hence e2e; the commands run in this process.
 * Each test has its own timeout: a hang fails it by name.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cell, samplesOf, writeRun } from '../support/synthetic.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { appendLine } from '../../metrics/store/files.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess, type MainResult } from '../support/main-in-process.ts';

const TIMEOUT = { timeout: 30_000 };

function fifo(file: string): string {
  execFileSync('mkfifo', [file]);
  return file;
}

function refusedAsPipe(result: MainResult): void {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, /is a pipe or socket: .+ must be a file/);
}

describe('a FIFO given where a file is read', () => {
  it('report: samples.jsonl and meta.json as FIFOs', TIMEOUT, async () => {
    const empty = path.join(tempDir('coldstart-fifo-'), 'run');
    mkdirSync(empty);
    fifo(path.join(empty, 'samples.jsonl'));
    refusedAsPipe(await mainInProcess(['report', empty]));
    const run = writeRun(tempDir('coldstart-fifo-run-'), samplesOf(cell('fastify', 10), [100, 110, 120]));
    rmSync(path.join(run, 'meta.json'), { force: true });
    fifo(path.join(run, 'meta.json'));
    refusedAsPipe(await mainInProcess(['report', run]));
  });

  it('lambda:import: a FIFO of REPORT lines', TIMEOUT, async () => {
    const dir = tempDir('coldstart-fifo-import-');
    const file = fifo(path.join(dir, 'coldstart-hono-100-validated.log'));
    refusedAsPipe(await mainInProcess(['lambda-import', file, '--out', path.join(dir, 'run')]));
  });

  it('measure: --body and --event as FIFOs', TIMEOUT, async () => {
    const dir = tempDir('coldstart-fifo-measure-');
    const app = path.join(dir, 'server.js');
    writeFileSync(app, 'require("node:http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);\n');
    const body = fifo(path.join(dir, 'body'));
    const result = await mainInProcess(['measure', '--entry', app, '--request', 'POST /', '--body', body, '--out', path.join(dir, 'a')]);
    refusedAsPipe(result);
    assert.match(result.stderr, /^coldstart: --body: /);
    const handler = path.join(dir, 'index.mjs');
    writeFileSync(handler, 'export const handler = async () => ({ statusCode: 200 });\n');
    const event = fifo(path.join(dir, 'event.json'));
    refusedAsPipe(
      await mainInProcess(['measure', '--handler', `${handler.slice(0, -4)}.handler`, '--event', event, '--out', path.join(dir, 'b')]),
    );
  });

  it('lambda:reference: a lambda-perf day file as a FIFO', TIMEOUT, async () => {
    const dir = tempDir('coldstart-fifo-reference-');
    const day = fifo(path.join(dir, '2026-01-01.json'));
    refusedAsPipe(await mainInProcess(['lambda-reference', '--lambda-perf', day, '--out', path.join(dir, 'table.json')]));
  });
});

describe('a FIFO where the tool appends', () => {
  it('appendLine refuses a samples.jsonl that is a FIFO with no reader at once (O_NONBLOCK), instead of waiting for one', () => {
    const dir = tempDir('coldstart-fifo-append-');
    const fifo = path.join(dir, 'samples.jsonl');
    execFileSync('mkfifo', [fifo]);
    assert.throws(
      () => appendLine(fifo, '{}'),
      (error) => error instanceof UsageError && /samples\.jsonl is a pipe or socket inside .*a folder coldstart writes/.test(error.message),
    );
  });
});
