/**
 * lambda:import at scale (issue 26): 200,000 generated REPORT lines (test/support/report-lines.ts) in
 * the plain-text format and 50,000 in Lambda's JSON log format go through the whole import, in this
 * process, and the report's counts and medians are the ones computed directly from the generator's
 * figures. Memory and time are not asserted (docs/guide/robustness.md, "Bounds", has the figures);
 * what is checked is that the columns the import keeps instead of records give back the same records:
 * request ids of every shape, sources, order, and a line too long to be a log line skipped and counted.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { importReports, MAX_LOG_LINE } from '../../metrics/cloud/import.ts';
import { importLambda } from '../../metrics/pipeline/lambda-import.ts';
import { expectedCells, lineFigures, writeReportLines, type ReportLineOptions } from '../support/report-lines.ts';
import { tempDir } from '../support/in-process.ts';

const FUNCTION = 'coldstart-fastify-100-validated';
const AT = '2026-01-01T00:00:00.000Z';

async function importGenerated(count: number, options: ReportLineOptions) {
  const dir = tempDir('coldstart-import-scale-');
  const file = path.join(dir, `${FUNCTION}.${options.format === 'json' ? 'json' : 'txt'}`);
  writeReportLines(file, count, options);
  const out = path.join(dir, 'run');
  const outcome = await importLambda({ files: [file], out, command: 'npm run lambda:import -- x' }, () => undefined);
  const rows = parse<Record<string, string>>(readFileSync(path.join(out, 'summary.csv'), 'utf8'), { columns: true });
  return { out, outcome, rows };
}

function checkCells(rows: Record<string, string>[], count: number, options: ReportLineOptions): void {
  const expected = expectedCells(count, options);
  assert.deepEqual(
    rows.map((r) => Number(r.memory)),
    [...expected.keys()].sort((a, b) => a - b),
  );
  for (const row of rows) {
    const cell = expected.get(Number(row.memory))!;
    assert.equal(Number(row.samples), cell.coldStarts);
    assert.equal(Number(row.failures), 0);
    // summary.csv rounds to the microsecond
    assert.equal(Number(row.firstResponse_median_ms), Math.round(cell.median * 1000) / 1000);
  }
}

describe('lambda:import of many REPORT lines', () => {
  it('200,000 plain-text lines, every tenth warm: the counts and each cell’s median firstResponse', async () => {
    const options: ReportLineOptions = { format: 'text', memories: [512, 1024], warmEvery: 10 };
    const { out, outcome, rows } = await importGenerated(200_000, options);
    assert.equal(outcome.result.coldStarts, 180_000);
    assert.equal(outcome.result.warmStarts, 20_000);
    assert.equal(outcome.result.samples, 180_000);
    assert.deepEqual(
      outcome.result.cells.map((c) => [c.memory, c.samples]),
      [
        [512, 100_000],
        [1024, 80_000],
      ],
    );
    checkCells(rows, 200_000, options);
    // hand-computed: the 512 MB cell holds the even lines (the warm ones, every tenth, are all odd); line
    // 0's cold start is 100 ms of INIT and 10 ms of invocation, line 2's 100.2 and 12
    const samples = readFileSync(path.join(out, 'samples.jsonl'), 'utf8').split('\n', 2);
    const [first, second] = samples.map(
      (line) => JSON.parse(line) as { index: number; marks: { firstResponse: number }; lambda: { requestId: string; source: string } },
    );
    assert.deepEqual(
      [first!.index, first!.marks.firstResponse, first!.lambda.requestId, first!.lambda.source],
      [1, 110, lineFigures(0).requestId, `${FUNCTION}.txt:1`],
    );
    assert.deepEqual([second!.index, second!.marks.firstResponse, second!.lambda.source], [2, 112.2, `${FUNCTION}.txt:3`]);
  });

  it('50,000 lines of the JSON log format: the same counts and medians', async () => {
    const options: ReportLineOptions = { format: 'json', memories: [256, 512, 2048] };
    const { outcome, rows } = await importGenerated(50_000, options);
    assert.equal(outcome.result.coldStarts, 50_000);
    assert.equal(outcome.result.cells.length, 3);
    checkCells(rows, 50_000, options);
  });

  it('gives back every request id as it was written, finds one read twice, and skips a line over the cap', () => {
    const dir = tempDir('coldstart-import-ids-');
    const file = path.join(dir, `${FUNCTION}.log`);
    const report = (id: string, init: number) =>
      `2026-01-01T00:00:0${init % 10}.000Z REPORT RequestId: ${id}\tDuration: 1.00 ms\tBilled Duration: 2 ms\t` +
      `Memory Size: 512 MB\tMax Memory Used: 60 MB\tInit Duration: ${init}.00 ms\t`;
    const ids = ['0aa5e2d9-5a4e-4c6b-9f0e-1b2c3d4e5f60', 'AE0F1E2D-3C4B-4A59-8877-665544332211', 'my-own-id-42', '1-2'];
    writeFileSync(
      file,
      [
        report(ids[0]!, 101),
        'x'.repeat(MAX_LOG_LINE + 10),
        report(ids[1]!, 102),
        report(ids[2]!, 103),
        report(ids[3]!, 104),
        report(ids[0]!, 105),
        report(ids[2]!, 106),
      ].join('\n'),
    );
    const result = importReports([file], { importedAt: AT });
    assert.deepEqual(
      result.records.map((r) => [r.lambda.requestId, r.lambda.source]),
      ids.map((id, i) => [id, `${FUNCTION}.log:${i === 0 ? 1 : i + 2}`]),
    );
    assert.equal(result.overlong, 1);
    assert.equal(result.ignored, 1);
    assert.deepEqual(
      result.issues.map((i) => [i.source.line, i.reason]),
      [
        [6, `request ${ids[0]} was already read at ${file}:1`],
        [7, `request ${ids[2]} was already read at ${file}:4`],
      ],
    );
  });
});
