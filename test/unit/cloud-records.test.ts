import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { cellKey, makeCell } from '../../metrics/core/cell.ts';
import { lambdaSampleRecord } from '../../metrics/cloud/records.ts';
import type { SourcedReport } from '../../metrics/cloud/report-lines.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const cell = { framework: 'fastify', variant: 'validated' as const, routes: 100 };
const context = { functionName: 'coldstart-fastify-100-validated', index: 3, importedAt: '2026-01-01T00:00:00.000Z' };

function report(fields: Partial<SourcedReport> = {}): SourcedReport {
  return {
    requestId: '11111111-1111-4111-8111-111111111111',
    durationMs: 12.34,
    billedMs: 236,
    memorySizeMB: 1024,
    maxMemoryUsedMB: 68,
    initMs: 222.81,
    timestamp: '2025-08-01T10:00:00.320Z',
    source: { file: path.join('exports', 'coldstart-fastify-100-validated.txt'), line: 4 },
    ...fields,
  };
}

describe('a cold start as a sample record', () => {
  it('has the cell (target aws-lambda, memory), the marks and every Lambda figure', () => {
    assert.deepEqual(lambdaSampleRecord(report(), cell, { ...context, architecture: 'arm64' }), {
      // every other dimension at its default (makeCell's), whichever dimensions exist
      cell: makeCell({ framework: 'fastify', variant: 'validated', routes: 100, build: 'bundle', target: 'aws-lambda', memory: 1024 }),
      phase: 'sample',
      index: 3,
      ok: true,
      marks: { init: 222.81, firstResponse: 235.15 },
      lambda: {
        functionName: 'coldstart-fastify-100-validated',
        requestId: '11111111-1111-4111-8111-111111111111',
        initMs: 222.81,
        durationMs: 12.34,
        billedMs: 236,
        memorySizeMB: 1024,
        maxMemoryUsedMB: 68,
        architecture: 'arm64',
        source: 'coldstart-fastify-100-validated.txt:4',
      },
      durationMs: 235.15,
      at: '2025-08-01T10:00:00.320Z',
    });
  });

  it("a failed invocation is a failed sample with Lambda's status as the reason and no marks", () => {
    const record = lambdaSampleRecord(report({ status: 'error', errorType: 'Runtime.ExitError' }), cell, context);
    assert.equal(record.ok, false);
    assert.equal(record.error, 'Lambda reported Status: error (Runtime.ExitError)');
    assert.equal(record.marks, undefined);
    assert.equal(record.lambda.status, 'error');
  });

  it('a report without a timestamp is dated when it was imported; a warm one is refused', () => {
    const { timestamp: _t, ...undated } = report();
    assert.equal(lambdaSampleRecord(undated, cell, context).at, context.importedAt);
    const { initMs: _i, ...warm } = report();
    assert.throws(() => lambdaSampleRecord(warm, cell, context), /warm invocation/);
  });

  it("samples.jsonl readers of today read the records (the cell's known dimensions intact)", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-cloud-test-'));
    dirs.push(dir);
    const file = path.join(dir, 'samples.jsonl');
    const records = [
      lambdaSampleRecord(report(), cell, context),
      lambdaSampleRecord(report({ status: 'timeout' }), cell, { ...context, index: 4 }),
    ];
    for (const record of records) appendFileSync(file, JSON.stringify(record) + '\n');
    const read = readSamples(file);
    assert.equal(read.length, 2);
    // the target and memory size keep AWS's figures apart from the local cells of the same app
    assert.equal(cellKey(read[0]!.cell), 'fastify|validated|100|node|bundle|off|target=aws-lambda|memory=1024');
    assert.deepEqual(
      read.map((r) => [r.ok, r.index]),
      [
        [true, 3],
        [false, 4],
      ],
    );
  });
});
