import assert from 'node:assert/strict';
import { makeCell } from '../../metrics/core/cell.ts';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../metrics/core/errors.ts';
import { detectFormat, describeImport, importReports, readReportFile } from '../../metrics/cloud/import.ts';
import { parseInsightsCsv, parseInsightsJson } from '../../metrics/cloud/insights.ts';
import { parseReportText } from '../../metrics/cloud/log-line.ts';
import { formatIssue, parseReportMessage, parseTimestamp } from '../../metrics/cloud/report-lines.ts';
import { fixture, tempDir } from '../support/in-process.ts';

const cloud = (name: string) => fixture(path.join('cloud', name));
const TEXT = cloud('coldstart-fastify-100-validated.txt');
const CSV = cloud('insights-report-fields.csv');
const MESSAGES = cloud('insights-messages.json');
const QUERY = cloud('query-results.json');
const UNNAMED = cloud('unnamed.txt');

const ID = '0b9a8c7d-1e2f-4a3b-8c4d-5e6f7a8b9c0d';

describe('a REPORT message', () => {
  it('reads a cold start (with Init Duration) as Lambda writes it, tab-separated', () => {
    const parsed = parseReportMessage(
      `REPORT RequestId: ${ID}\tDuration: 12.34 ms\tBilled Duration: 136 ms\tMemory Size: 128 MB\tMax Memory Used: 18 MB\t` +
        'Init Duration: 123.45 ms\t',
    );
    assert.deepEqual(parsed, {
      ok: true,
      report: { requestId: ID, durationMs: 12.34, billedMs: 136, memorySizeMB: 128, maxMemoryUsedMB: 18, initMs: 123.45 },
    });
  });

  it('reads a warm invocation (no Init Duration), with spaces for tabs as a console copy has them', () => {
    const parsed = parseReportMessage(
      `REPORT RequestId: ${ID} Duration: 1.02 ms Billed Duration: 2 ms Memory Size: 512 MB Max Memory Used: 70 MB`,
    );
    assert.ok(parsed.ok);
    assert.equal(parsed.report.initMs, undefined);
    assert.equal(parsed.report.durationMs, 1.02);
    assert.equal(parsed.report.memorySizeMB, 512);
  });

  it('accepts the X-Ray suffix and keeps a failed status', () => {
    const xray = parseReportMessage(
      `REPORT RequestId: ${ID}\tDuration: 2.00 ms\tBilled Duration: 99 ms\tMemory Size: 128 MB\tMax Memory Used: 60 MB\t` +
        'Init Duration: 96.10 ms\t' +
        'XRAY TraceId: 1-5e1b4151-43a0913a12345678901234567\tSegmentId: 6f1a2b3c4d5e6f70\tSampled: true\t',
    );
    assert.ok(xray.ok);
    assert.equal(xray.report.initMs, 96.1);
    assert.equal(xray.report.status, undefined);
    const failed = parseReportMessage(
      `REPORT RequestId: ${ID}\tDuration: 3000.00 ms\tBilled Duration: 3000 ms\tMemory Size: 128 MB\tMax Memory Used: 60 MB\t` +
        'Status: error\tError Type: Runtime.ExitError',
    );
    assert.ok(failed.ok);
    assert.equal(failed.report.status, 'error');
    assert.equal(failed.report.errorType, 'Runtime.ExitError');
  });

  it('names what is wrong with a REPORT line that does not parse', () => {
    const cases: [string, RegExp][] = [
      [`REPORT RequestId: ${ID}\tDuration: 1 ms`, /missing Billed Duration, Memory Size, Max Memory Used/],
      [
        `REPORT RequestId: ${ID}\tDuration: 1 s\tBilled Duration: 1 ms\tMemory Size: 128 MB\tMax Memory Used: 1 MB`,
        /Duration is in s, expected ms/,
      ],
      [`REPORT RequestId: ${ID}\tDuration: -1 ms\tBilled Duration: 1 ms\tMemory Size: 128 MB\tMax Memory Used: 1 MB`, /not a number of ms/],
      [
        `REPORT RequestId: ${ID}\tDuration: 1 ms\tDuration: 2 ms\tBilled Duration: 1 ms\tMemory Size: 128 MB\tMax Memory Used: 1 MB`,
        /appears twice/,
      ],
      [
        `REPORT RequestId: ${ID}\tDuration: 1 ms\tBilled Duration: 1 ms\tMemory Size: 128 MB\tMax Memory Used: 1 MB\tShiny: 1`,
        /Max Memory Used/,
      ],
      ['START RequestId: x Version: $LATEST', /not a REPORT line/],
    ];
    for (const [line, reason] of cases) {
      const parsed = parseReportMessage(line);
      assert.equal(parsed.ok, false, line);
      assert.match((parsed as { reason: string }).reason, reason, line);
    }
  });

  it('reads timestamps in the forms CloudWatch prints, as UTC', () => {
    assert.equal(parseTimestamp('2025-08-01T10:00:00.320000+00:00 rest'), '2025-08-01T10:00:00.320Z');
    assert.equal(parseTimestamp('2025-08-01T12:00:00.320+02:00'), '2025-08-01T10:00:00.320Z');
    assert.equal(parseTimestamp('2025-08-01T10:05:00.000Z REPORT'), '2025-08-01T10:05:00.000Z');
    assert.equal(parseTimestamp('2025-08-01 11:00:03.000'), '2025-08-01T11:00:03.000Z');
    assert.equal(parseTimestamp('REPORT RequestId: x'), undefined);
  });
});

describe('a plain-text log file', () => {
  it('reads the REPORT lines, ignores the others, and names every malformed one', () => {
    const parsed = readReportFile(TEXT);
    assert.equal(parsed.format, 'text');
    // INIT_START, START, END, one line of function output, and the XRAY line Lambda writes after a REPORT
    assert.equal(parsed.ignored, 5);
    assert.deepEqual(
      parsed.reports.map((r) => [r.source.line, r.initMs ?? null]),
      [
        [4, 222.81],
        [5, null],
        [6, 208.4],
        [11, 190.75],
        [12, 249.5],
        [14, 222.81],
        [16, 301.2],
      ],
    );
    assert.deepEqual(
      parsed.issues.map((i) => formatIssue(i).replace(TEXT, 'F')),
      [
        'F:8: Duration "abc ms" is not a number of ms',
        'F:9: missing Memory Size, Max Memory Used',
        'F:10: Memory Size is in GB, expected MB',
        'F:15: missing Duration, Billed Duration, Memory Size, Max Memory Used',
      ],
    );
    const [first, , xray, copied, timedOut, , outOfMemory] = parsed.reports;
    assert.equal(first!.timestamp, '2025-08-01T10:00:00.320Z');
    assert.equal(xray!.timestamp, '2025-08-01T10:05:00.000Z');
    assert.equal(xray!.billedMs, 219);
    assert.equal(copied!.timestamp, undefined);
    assert.equal(timedOut!.status, 'timeout');
    assert.equal(outOfMemory!.status, 'error');
    assert.equal(outOfMemory!.errorType, 'Runtime.OutOfMemory');
  });

  it('reads CRLF line endings', () => {
    const parsed = parseReportText(
      `START RequestId: a Version: 1\r\n` +
        `REPORT RequestId: ${ID}\tDuration: 1 ms\tBilled Duration: 1 ms\tMemory Size: 128 MB\tMax Memory Used: 1 MB\r\n`,
      'f',
    );
    assert.equal(parsed.reports.length, 1);
    assert.equal(parsed.ignored, 1);
    assert.equal(parsed.issues.length, 0);
  });
});

describe('a Logs Insights export', () => {
  it('CSV with the discovered fields: memory in bytes, function from @log, bad rows named by line', () => {
    const parsed = readReportFile(CSV);
    assert.equal(parsed.format, 'csv');
    assert.deepEqual(
      parsed.reports.map((r) => [r.source.line, r.functionName, r.initMs ?? null, r.memorySizeMB, r.maxMemoryUsedMB, r.timestamp]),
      [
        [2, 'coldstart-hono-1000-plain', null, 512, 88, '2025-08-01T11:00:03.000Z'],
        [3, 'coldstart-hono-1000-plain', 315.25, 512, 87, '2025-08-01T11:00:02.000Z'],
        [4, 'coldstart-hono-1000-plain', 324.1, 512, 86, '2025-08-01T11:00:01.000Z'],
        [5, 'my-api', null, 128, 48, '2025-08-01T11:00:00.500Z'],
      ],
    );
    assert.deepEqual(
      parsed.issues.map((i) => [i.source.line, i.reason.split(':')[0]]),
      [
        [6, '@duration "fast" is not a number'],
        [8, '@memorySize 100000 is neither bytes nor MB of a Lambda memory size (128 to 10240 MB)'],
        [7, 'not a CSV row'],
      ],
    );
  });

  it('takes a memory size of 128 to 10240 as MB (a query that converted it)', () => {
    const parsed = parseInsightsCsv(
      `@requestId,@duration,@billedDuration,@initDuration,@maxMemoryUsed,@memorySize\n${ID},1,101,99.5,61,1024\n`,
      'f.csv',
    );
    assert.equal(parsed.reports[0]!.memorySizeMB, 1024);
    assert.equal(parsed.reports[0]!.maxMemoryUsedMB, 61);
  });

  it('JSON of @message rows: REPORT messages parsed, START ignored, malformed rows named by record', () => {
    const parsed = readReportFile(MESSAGES);
    assert.equal(parsed.format, 'json');
    assert.equal(parsed.ignored, 1);
    assert.equal(parsed.reports.length, 1);
    assert.equal(parsed.reports[0]!.functionName, 'coldstart-express-10-validated');
    assert.equal(parsed.reports[0]!.initMs, 400.1);
    assert.deepEqual(
      parsed.issues.map((i) => formatIssue(i).replace(MESSAGES, 'F')),
      ['F record 3: missing Max Memory Used', 'F record 4: neither @message nor the REPORT fields (@requestId, @duration, …)'],
    );
  });

  it('an @message whose XRAY part is on a line of its own, as Lambda writes it', () => {
    const message =
      `REPORT RequestId: ${ID}\tDuration: 2.00 ms\tBilled Duration: 99 ms\tMemory Size: 128 MB\tMax Memory Used: 60 MB\t` +
      'Init Duration: 96.10 ms\t\nXRAY TraceId: 1-5e1b4151-43a0913a12345678901234567\tSegmentId: 6f1a2b3c4d5e6f70\tSampled: true\t\n';
    const parsed = parseInsightsJson(JSON.stringify([{ '@message': message }]), 'f.json');
    assert.equal(parsed.issues.length, 0);
    assert.equal(parsed.reports[0]!.initMs, 96.1);
    assert.equal(parsed.reports[0]!.maxMemoryUsedMB, 60);
  });

  it('JSON from aws logs get-query-results', () => {
    const parsed = readReportFile(QUERY);
    assert.equal(parsed.reports.length, 1);
    const [report] = parsed.reports;
    assert.equal(report!.functionName, 'coldstart-node-http-1-validated');
    assert.equal(report!.memorySizeMB, 128);
    assert.equal(report!.maxMemoryUsedMB, 58);
    assert.equal(report!.initMs, 118.3);
    assert.equal(report!.billedMs, 120);
  });

  it('rows of other event types are ignored; a REPORT @type without a REPORT message is an issue', () => {
    const parsed = parseInsightsJson(
      JSON.stringify([
        { '@type': 'START', '@message': 'START' },
        { '@type': 'REPORT', '@message': 'hello' },
      ]),
      'f.json',
    );
    assert.equal(parsed.ignored, 1);
    assert.equal(parsed.issues.length, 1);
    assert.match(parsed.issues[0]!.reason, /@type is REPORT/);
  });
});

describe('importing files', () => {
  it('detects the format from the extension, else from the content', () => {
    assert.equal(detectFormat('a.csv', ''), 'csv');
    assert.equal(detectFormat('a.json', ''), 'json');
    assert.equal(detectFormat('a.txt', '[{"@message": "x"}]'), 'json');
    assert.equal(detectFormat('a.txt', '@timestamp,@message\n'), 'csv');
    assert.equal(detectFormat('a.log', `REPORT RequestId: ${ID}`), 'text');
  });

  it('turns cold starts into records per cell, counts warm ones, and names every report it could not use', () => {
    const result = importReports([TEXT, CSV, MESSAGES, QUERY, UNNAMED], { importedAt: '2026-01-01T00:00:00.000Z' });
    assert.equal(result.coldStarts, 9);
    assert.equal(result.warmStarts, 2);
    assert.equal(result.ignored, 6);
    assert.deepEqual(
      result.records.map((r) => [r.lambda.functionName, r.cell.memory, r.index, r.ok, r.lambda.source]),
      [
        ['coldstart-express-10-validated', 256, 1, true, 'insights-messages.json record 1'],
        ['coldstart-fastify-100-validated', 1024, 1, true, 'coldstart-fastify-100-validated.txt:4'],
        ['coldstart-fastify-100-validated', 1024, 2, true, 'coldstart-fastify-100-validated.txt:6'],
        ['coldstart-fastify-100-validated', 1024, 3, true, 'coldstart-fastify-100-validated.txt:11'],
        ['coldstart-fastify-100-validated', 1024, 4, false, 'coldstart-fastify-100-validated.txt:12'],
        ['coldstart-fastify-100-validated', 1024, 5, false, 'coldstart-fastify-100-validated.txt:16'],
        // Insights lists newest first; samples are numbered in the order they happened
        ['coldstart-hono-1000-plain', 512, 1, true, 'insights-report-fields.csv:4'],
        ['coldstart-hono-1000-plain', 512, 2, true, 'insights-report-fields.csv:3'],
        ['coldstart-node-http-1-validated', 128, 1, true, 'query-results.json record 1'],
      ],
    );
    const issues = result.issues.map((i) => `${path.basename(i.source.file)}:${i.source.line ?? `#${i.source.record}`} ${i.reason}`);
    assert.equal(issues.length, 12);
    assert.ok(
      issues.includes(
        'coldstart-fastify-100-validated.txt:14 request 11111111-1111-4111-8111-111111111111 was already read at ' + `${TEXT}:4`,
      ),
    );
    assert.ok(issues.includes('insights-report-fields.csv:5 function my-api is not named coldstart-<framework>-<routes>-<variant>'));
    assert.ok(issues.some((i) => i.startsWith('unnamed.txt:1 no function name')));
    const summary = describeImport(result, 3);
    assert.match(summary[0]!, /^11 REPORT lines read: 9 cold starts \(9 samples with target aws-lambda in 4 cells\), 2 warm invocations/);
    assert.match(summary[0]!, /12 not imported$/);
    assert.equal(summary.length, 5);
    assert.equal(summary[4], '  … and 9 more');
  });

  it('--function names the function of files without one, and rejects rows logged by another', () => {
    const named = importReports([UNNAMED], { functionName: 'coldstart-koa-10-plain', importedAt: '2026-01-01T00:00:00.000Z' });
    assert.equal(named.records.length, 1);
    // every other dimension at its default (makeCell's), whichever dimensions exist
    assert.deepEqual(
      named.records[0]!.cell,
      makeCell({ framework: 'koa', variant: 'plain', routes: 10, build: 'bundle', target: 'aws-lambda', memory: 128 }),
    );
    const conflicting = importReports([QUERY], { functionName: 'coldstart-koa-10-plain' });
    assert.equal(conflicting.records.length, 0);
    assert.match(conflicting.issues[0]!.reason, /logged by coldstart-node-http-1-validated, not by --function coldstart-koa-10-plain/);
    assert.throws(() => importReports([UNNAMED], { functionName: 'my-api' }), UsageError);
  });

  it('a file that is missing or not what its name says is a one-line UsageError', () => {
    const dir = tempDir('coldstart-cloud-test-');
    const notJson = path.join(dir, 'export.json');
    writeFileSync(notJson, 'REPORT RequestId: x');
    const notInsights = path.join(dir, 'export.csv');
    writeFileSync(notInsights, 'a,b\n1,2\n');
    for (const [files, message] of [
      [[path.join(dir, 'missing.txt')], /cannot read .*missing\.txt: ENOENT/],
      [[notJson], /export\.json is not JSON/],
      [[notInsights], /no @message or @requestId\/@duration column/],
      [[], /no files to import/],
    ] as const) {
      assert.throws(
        () => importReports([...files]),
        (error: unknown) => error instanceof UsageError && message.test(error.message) && !error.message.includes('\n'),
      );
    }
  });
});
