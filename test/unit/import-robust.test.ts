/**
 * lambda:import on inputs a real log group gives and a hostile one could (issue 20, findings 6 and 7;
 * issue 16, item 7): Lambda's JSON log format, INIT_REPORT lines that failed, SnapStart restores,
 * figures Lambda cannot report, hundreds of thousands of unreadable lines, an import killed midway.
 * The parsers of REPORT lines are checked as properties: any text gives a report within Lambda's
 * limits or a reason, never a throw, and a REPORT line written from figures reads back as them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { importLambda } from '../../metrics/pipeline/lambda-import.ts';
import { describeImport, importReports, MAX_KEPT_ISSUES } from '../../metrics/cloud/import.ts';
import { ExportFormatError, parseInsightsCsv, parseInsightsJson } from '../../metrics/cloud/insights.ts';
import { parsePlatformEvent } from '../../metrics/cloud/json-log.ts';
import { parseLogLine } from '../../metrics/cloud/log-line.ts';
import { parseReportMessage } from '../../metrics/cloud/report-lines.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { fixture, tempDir } from '../support/in-process.ts';

const FORMATS = fixture('cloud/formats');
const JSON_LOG = path.join(FORMATS, 'coldstart-hono-100-validated.json');
const TEXT_LOG = path.join(FORMATS, 'coldstart-hono-100-validated.txt');
const AT = '2026-01-01T00:00:00.000Z';

describe('the JSON log format, INIT_REPORT and SnapStart restores', () => {
  it('reads platform.report and platform.initReport records: cold starts, failed INITs, warm, restores', () => {
    const result = importReports([JSON_LOG], { importedAt: AT });
    assert.equal(result.coldStarts, 2);
    assert.equal(result.warmStarts, 1);
    assert.equal(result.restores, 1, 'a restoreDurationMs report is a restore, not a warm invocation');
    assert.equal(result.failedInits, 2);
    assert.deepEqual(
      result.records.map((r) => [r.index, r.ok, r.lambda.source, r.ok ? r.marks?.init : r.error]),
      [
        [1, true, 'coldstart-hono-100-validated.json:5', 160.42],
        [2, false, 'coldstart-hono-100-validated.json:7', 'Lambda reported INIT_REPORT Status: timeout (phase init, after 10000 ms)'],
        [3, true, 'coldstart-hono-100-validated.json:8', 175.3],
        [
          4,
          false,
          'coldstart-hono-100-validated.json:12',
          'Lambda reported INIT_REPORT Status: error (Runtime.ExitError, phase invoke, after 210.5 ms)',
        ],
      ],
    );
    assert.ok(result.records.every((r) => r.cell.memory === 512 && r.cell.framework === 'hono' && r.cell.routes === 100));
    assert.deepEqual(
      result.issues.map((i) => [i.source.line, i.reason]),
      [[11, 'Duration 100000000000000000000 ms is beyond what Lambda reports (at most 900000 ms)']],
    );
  });

  it('reads INIT_REPORT and Restore Duration text lines the same way, and refuses what Lambda cannot report', () => {
    const result = importReports([TEXT_LOG], { importedAt: AT });
    assert.equal(result.coldStarts, 1);
    assert.equal(result.failedInits, 2);
    assert.equal(result.restores, 1);
    assert.equal(result.warmStarts, 1);
    assert.deepEqual(
      result.records.map((r) => [r.ok, r.error ?? '']),
      [
        [true, ''],
        [false, 'Lambda reported INIT_REPORT Status: timeout (phase init, after 10000 ms)'],
        [false, 'Lambda reported INIT_REPORT Status: error (Runtime.Unknown, phase invoke, after 9871.22 ms)'],
      ],
    );
    assert.deepEqual(
      result.issues.map((i) => `${i.source.line}: ${i.reason}`),
      [
        '7: Memory Size 0 MB is not a Lambda memory size (a whole number of MB from 128 to 10240)',
        '8: Max Memory Used 300 MB is above Memory Size 128 MB',
        '9: Duration 950000 ms is beyond what Lambda reports (at most 900000 ms)',
      ],
    );
    assert.match(describeImport(result)[0]!, /1 SnapStart restores \(not samples: no INIT\); 2 failed INITs/);
  });

  it('an INIT_REPORT of a function whose memory size no REPORT line gives is an issue, not a guess', () => {
    const dir = tempDir('coldstart-init-');
    const file = path.join(dir, 'coldstart-koa-1-plain.log');
    writeFileSync(file, 'INIT_REPORT Init Duration: 10000.00 ms\tPhase: init\tStatus: timeout\n');
    const result = importReports([file], { importedAt: AT });
    assert.equal(result.records.length, 0);
    assert.match(result.issues[0]!.reason, /INIT_REPORT Status: timeout of coldstart-koa-1-plain, whose memory size no REPORT line gives/);
  });

  it('Insights exports refuse impossible figures too (@duration 1e20, @memorySize 0)', () => {
    const csv = parseInsightsCsv(
      [
        '@timestamp,@log,@requestId,@duration,@billedDuration,@memorySize,@maxMemoryUsed,@initDuration',
        '2025-08-01 10:00:00.000,1:/aws/lambda/coldstart-hono-1-plain,r1,1e20,2,536870912,65011712,150',
        '2025-08-01 10:00:01.000,1:/aws/lambda/coldstart-hono-1-plain,r2,2,2,536870912,1073741824,150',
      ].join('\n'),
      'x.csv',
    );
    assert.deepEqual(
      csv.issues.map((i) => i.reason),
      [
        'Duration 100000000000000000000 ms is beyond what Lambda reports (at most 900000 ms)',
        'Max Memory Used 1024 MB is above Memory Size 512 MB',
      ],
    );
  });
});

describe('imports in bounded memory and time', () => {
  it('300,000 unreadable lines: counted, the first ones named, no stack overflow', () => {
    const dir = tempDir('coldstart-unreadable-');
    const file = path.join(dir, 'coldstart-hono-1-plain.log');
    const line = 'REPORT RequestId: x\tDuration: abc ms\n';
    writeFileSync(file, line.repeat(300_000));
    const result = importReports([file], { importedAt: AT });
    assert.equal(result.issueCount, 300_000);
    assert.equal(result.issues.length, MAX_KEPT_ISSUES);
    assert.equal(result.issues[0]!.source.line, 1);
    assert.match(describeImport(result, 2).at(-1)!, /… and 299998 more/);
  });

  it('an import killed midway leaves no run behind, and the next import of the same folder works and says what it removed', async () => {
    const dir = tempDir('coldstart-reimport-');
    const out = path.join(dir, 'run');
    // what a killed import leaves: its staging folder beside the run folder, named after a process that is gone
    const dead = 2 ** 22 + 12345;
    const staging = `${out}.importing-${dead}`;
    mkdirSync(staging);
    writeFileSync(path.join(staging, 'samples.jsonl'), '{"torn":');
    const notes: string[] = [];
    const outcome = await importLambda(
      { files: [TEXT_LOG], out, command: 'npm run lambda:import -- x' },
      () => undefined,
      (line) => notes.push(line),
    );
    assert.equal(outcome.result.samples, 3);
    assert.ok(!existsSync(staging), 'the stale staging folder is removed');
    assert.ok(
      notes.some((n) => n.includes(`run.importing-${dead}`) && n.includes('did not finish')),
      notes.join('\n'),
    );
    assert.deepEqual(readdirSync(dir), ['run'], 'nothing else is left beside the run folder');
    assert.equal(readSamples(path.join(out, 'samples.jsonl')).length, 3);
    assert.ok(readFileSync(path.join(out, 'summary.md'), 'utf8').includes('INIT_REPORT Status: timeout'));
  });
});

/** A REPORT line as Lambda writes it, from its figures. */
function reportLine(f: { id: string; duration: number; billed: number; memory: number; used: number; init?: number }): string {
  return (
    `REPORT RequestId: ${f.id}\tDuration: ${f.duration.toFixed(2)} ms\tBilled Duration: ${f.billed} ms\t` +
    `Memory Size: ${f.memory} MB\tMax Memory Used: ${f.used} MB\t${f.init === undefined ? '' : `Init Duration: ${f.init.toFixed(2)} ms\t`}`
  );
}

describe('REPORT parsers, for any text', () => {
  const figures = fc
    .record({
      id: fc.uuid(),
      duration: fc.integer({ min: 0, max: 90_000_000 }).map((n) => n / 100),
      billed: fc.integer({ min: 0, max: 1_800_000 }),
      memory: fc.integer({ min: 128, max: 10_240 }),
      init: fc.option(
        fc.integer({ min: 0, max: 90_000_000 }).map((n) => n / 100),
        { nil: undefined },
      ),
    })
    .chain((f) => fc.integer({ min: 0, max: f.memory }).map((used) => ({ ...f, used })));

  it('a REPORT line written from figures Lambda can report reads back as those figures', () => {
    fc.assert(
      fc.property(figures, fc.constantFrom('', '2025-08-01T10:00:00.000Z ', '2025-08-01 10:00:00.000 '), (f, prefix) => {
        const parsed = parseReportMessage(prefix + reportLine(f));
        assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
        assert.deepEqual(parsed.report, {
          requestId: f.id,
          durationMs: f.duration,
          billedMs: f.billed,
          memorySizeMB: f.memory,
          maxMemoryUsedMB: f.used,
          ...(f.init === undefined ? {} : { initMs: f.init }),
        });
      }),
    );
  });

  it('a platform.report record written from the same figures reads back as them', () => {
    fc.assert(
      fc.property(figures, (f) => {
        const event = {
          time: '2025-08-01T10:00:00.000Z',
          type: 'platform.report',
          record: {
            requestId: f.id,
            metrics: {
              durationMs: f.duration,
              billedDurationMs: f.billed,
              memorySizeMB: f.memory,
              maxMemoryUsedMB: f.used,
              ...(f.init === undefined ? {} : { initDurationMs: f.init }),
            },
            status: 'success',
          },
        };
        const item = parsePlatformEvent(JSON.parse(JSON.stringify(event)));
        assert.ok(item?.kind === 'report', JSON.stringify(item));
        assert.equal(item.report.durationMs, f.duration);
        assert.equal(item.report.initMs, f.init);
      }),
    );
  });

  it('any line: a report within what Lambda can report, a failed INIT, an issue with a reason, or ignored; never a throw', () => {
    const noisy = fc.oneof(
      fc.string(),
      figures.map(reportLine),
      fc
        .tuple(figures.map(reportLine), fc.integer({ min: 0, max: 120 }), fc.string())
        .map(([l, at, s]) => l.slice(0, at) + s + l.slice(at)),
      fc.string().map((s) => `INIT_REPORT Init Duration: ${s} ms\tStatus: ${s}`),
      fc.jsonValue().map((v) => JSON.stringify({ time: '2025-08-01T10:00:00Z', type: 'platform.report', record: v })),
    );
    fc.assert(
      fc.property(noisy, (line) => {
        const item = parseLogLine(line, { file: 'f', line: 1 });
        if (item?.kind === 'report') {
          const r = item.report;
          assert.ok(Number.isInteger(r.memorySizeMB) && r.memorySizeMB >= 128 && r.memorySizeMB <= 10_240);
          assert.ok(r.maxMemoryUsedMB >= 0 && r.maxMemoryUsedMB <= r.memorySizeMB);
          for (const v of [r.durationMs, r.initMs ?? 0, r.restoreMs ?? 0]) assert.ok(Number.isFinite(v) && v >= 0 && v <= 900_000);
        }
        if (item?.kind === 'issue') assert.ok(item.issue.reason.length > 0);
      }),
    );
  });

  it('any text as an Insights CSV or JSON export: parsed rows, or the one error that says the file is not one', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          for (const parse of [parseInsightsCsv, parseInsightsJson]) {
            try {
              const parsed = parse(text, 'f');
              assert.ok(Array.isArray(parsed.reports) && Array.isArray(parsed.issues));
            } catch (error) {
              assert.ok(error instanceof ExportFormatError, String(error));
            }
          }
        },
      ),
    );
  });
});
