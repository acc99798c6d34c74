/**
 * A calibration that stays current: lambda:reference refreshes the table from a lambda-perf data
 * folder (a real, trimmed sample in test/fixtures/lambda-perf/data), its figures recomputed here from
 * the raw files; bad input is refused in one line; a report warns when the table's data ended more
 * than a quarter before the run (meta.json's startedAt), and only then.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UsageError } from '../../metrics/core/errors.ts';
import {
  LAMBDA_PERF_NEWEST,
  parseReferenceTable,
  readReferenceTable,
  referenceAgeDays,
  STALE_AFTER_DAYS,
  staleReferenceWarning,
} from '../../metrics/calibration/lambda-reference.ts';
import { parseInteger } from '../../metrics/core/parse.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { runLambdaReference } from '../../metrics/pipeline/lambda-reference.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { cell, sampleOf, writeRun } from '../support/synthetic.ts';

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'lambda-perf', 'data');
const dir = mkdtempSync(path.join(tmpdir(), 'coldstart-refresh-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Entry {
  r: string;
  p: string;
  i: number[];
  ad: number;
  mu: number;
}

/** The fixture's day files as lambda-perf publishes them, read here without the tool's code. */
function days(): { day: string; entries: Entry[] }[] {
  return readdirSync(FIXTURE)
    .filter((name) => /^\d{4}-\d{2}-\d{2}\.json$/.test(name))
    .sort()
    .map((name) => ({
      day: name.slice(0, 10),
      entries: (JSON.parse(readFileSync(path.join(FIXTURE, name), 'utf8')) as { runtimeData: Entry[] }).runtimeData,
    }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const value = Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
  return Math.round(value * 100) / 100;
}

function refresh(extra: Partial<Parameters<typeof runLambdaReference>[0]> = {}) {
  const lines: string[] = [];
  const out = path.join(mkdtempSync(path.join(dir, 'out-')), 'table.json');
  const table = runLambdaReference({ lambdaPerf: [FIXTURE], reports: [], out, today: '2026-11-26', ...extra }, (line) => lines.push(line));
  return { table, lines, written: readReferenceTable(out) };
}

function refused(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof UsageError, `a usage error (exit 2), not ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/);
    return error.message;
  }
  assert.fail('accepted');
}

describe('lambda:reference from a lambda-perf data folder', () => {
  it("reproduces lambda-perf's figures: every Init Duration of the Node.js zip functions, the daily mean Durations", () => {
    const { table, lines, written } = refresh();
    assert.deepEqual(written, table);
    const data = days();
    assert.equal(table.from, data[0]!.day);
    assert.equal(table.to, data.at(-1)!.day);
    assert.match(table.source, new RegExp(`dates ${table.from}–${table.to}$`));
    assert.match(lines[0]!, /^left out .*last\.json: lambda-perf's copy of its newest day$/);
    const names = new Set(data.flatMap((d) => d.entries.filter((e) => /^lambda-perf-nodejs\d+x-zip-/.test(e.r)).map((e) => e.r)));
    assert.equal(table.rows.length, names.size, 'the Python and the image functions are left out');
    for (const name of names) {
      const [, major, memory, arch] = /^lambda-perf-nodejs(\d+)x-zip-(\d+)-(\w+)$/.exec(name)!;
      const row = table.rows.find((r) => r.runtime === `nodejs${major}.x` && r.memoryMB === Number(memory) && r.architecture === arch);
      assert.ok(row, name);
      const entries = data.flatMap((d) => d.entries.filter((e) => e.r === name));
      const inits = entries.flatMap((e) => e.i);
      assert.equal(row.initMs.n, inits.length, `${name}: every cold start of every day, last.json not counted twice`);
      assert.equal(row.initMs.median, median(inits), name);
      assert.ok(row.initMs.p25 <= row.initMs.median && row.initMs.median <= row.initMs.p75);
      assert.equal(row.durationMs.n, entries.length);
      assert.equal(row.durationMs.median, median(entries.map((e) => e.ad)), name);
      assert.equal(row.maxMemoryUsedMB, median(entries.map((e) => e.mu)), name);
    }
  });

  it('--days keeps the newest days only', () => {
    const { table } = refresh({ days: 2 });
    const data = days().slice(-2);
    assert.equal(table.from, data[0]!.day);
    assert.equal(
      table.rows[0]!.initMs.n,
      data.flatMap((d) => d.entries.filter((e) => e.r === 'lambda-perf-nodejs24x-zip-128-arm64')).length * 10,
    );
    assert.throws(() => parseInteger('--days', 1, 1000)('0'), /--days: "0" is not an integer from 1 to 1000/);
  });
});

describe('bad lambda-perf input is refused in one line, before anything is written', () => {
  const folder = (name: string, files: Record<string, string>) => {
    const at = path.join(dir, name);
    mkdirSync(at, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(at, file), text);
    return at;
  };
  const day = readFileSync(path.join(FIXTURE, '2026-08-22.json'), 'utf8');
  const cases: [string, () => string[], RegExp][] = [
    [
      'a day that is not one',
      () => [folder('feb30', { '2026-02-30.json': day })],
      /2026-02-30\.json: .*named YYYY-MM-DD\.json, a calendar day/,
    ],
    ['a day after today', () => [folder('future', { '2999-01-01.json': day })], /the day 2999-01-01 is after today \(2026-11-26\)/],
    ['the same day twice', () => [FIXTURE, path.join(FIXTURE, '2026-08-22.json')], /the day 2026-08-22 is given twice/],
    ['a folder without day files', () => [folder('empty', { 'notes.json': '{}' })], /no YYYY-MM-DD\.json day file in/],
    ['a path that is not there', () => [path.join(dir, 'missing')], /--lambda-perf .*missing: ENOENT/],
    [
      'a value outside Lambda bounds',
      () => [folder('negative', { '2026-08-22.json': day.replace(/("r":"lambda-perf-nodejs24x-zip-128-arm64"[^}]*?"i":\[)/, '$1-3,') })],
      /Init Duration \(ms\) -3 is outside/,
    ],
  ];
  for (const [name, inputs, message] of cases) {
    it(name, () => {
      const out = path.join(dir, `${name.replaceAll(' ', '-')}.json`);
      assert.match(
        refused(() => refresh({ lambdaPerf: inputs(), out })),
        message,
      );
      assert.throws(() => readFileSync(out), /ENOENT/, 'nothing written');
    });
  }
  it('a table whose dates are not days is not a calibration table', () => {
    const table = refresh().table;
    assert.throws(
      () => parseReferenceTable({ ...table, to: '2026-13-01' }, 't.json'),
      /t\.json is not a calibration table: to is not a day/,
    );
    assert.throws(() => parseReferenceTable({ ...table, from: '2026-09-01' }, 't.json'), /from is after to/);
  });
});

describe('the date warning', () => {
  const table = { from: '2026-07-23', to: '2026-08-22' };
  it(`warns when the data ended more than ${STALE_AFTER_DAYS} days before the run, counted from the run's date`, () => {
    assert.equal(referenceAgeDays(table, '2026-11-20T10:00:00.000Z'), STALE_AFTER_DAYS);
    assert.equal(staleReferenceWarning(table, '2026-11-20T10:00:00.000Z'), undefined, 'exactly a quarter: not yet');
    assert.match(staleReferenceWarning(table, '2026-11-21T00:00:00.000Z')!, /\(2026-07-23–2026-08-22\) ended 91 days before this run/);
    assert.equal(staleReferenceWarning(table, '2026-09-01T00:00:00.000Z'), undefined);
    assert.equal(staleReferenceWarning(table, undefined), undefined, 'no meta.json: no date to compare, no guess from the clock');
    assert.equal(staleReferenceWarning(table, 'yesterday'), undefined);
  });

  it('says what the user can do: lambda-perf has nothing newer than the shipped table, so how to refresh it either way', () => {
    const line = staleReferenceWarning(table, '2026-11-27T00:00:00.000Z')!;
    assert.equal(line.includes('\n'), false, 'one line');
    assert.match(
      line,
      new RegExp(`lambda-perf's newest published data ends ${LAMBDA_PERF_NEWEST} .*nothing newer to refresh from there yet`),
    );
    assert.match(line, /When it publishes newer days, npm run lambda:reference -- --lambda-perf <its data folder> rebuilds the table/);
    assert.match(line, /npm run lambda:reference -- --reports <file> --lambda-runtime nodejs24\.x --arch x86_64/);
    assert.match(line, /Then npm run report -- <run folder>/);
    // a table a user refreshed from older days than lambda-perf's newest is told that newer data exists
    const older = staleReferenceWarning({ from: '2026-05-01', to: '2026-05-30' }, '2026-11-27T00:00:00.000Z')!;
    assert.match(older, new RegExp(`lambda-perf's data went on to at least ${LAMBDA_PERF_NEWEST}: npm run lambda:reference`));
    assert.equal(
      readReferenceTable().to,
      LAMBDA_PERF_NEWEST,
      "the shipped table ends on lambda-perf's newest day: refreshing it moves both",
    );
  });

  function lambdaSample(framework: string, initMs: number): SampleRecord {
    const base = sampleOf(cell(framework, 1, { target: 'lambda' }), initMs + 3);
    const { listen: _listen, ...marks } = base.marks!;
    return {
      ...base,
      marks: { ...marks, init: initMs, firstResponse: initMs + 3 },
      lambda: { initMs, durationMs: 3, billedMs: Math.ceil(initMs) + 3, memorySizeMB: 1024, maxMemoryUsedMB: 40, invokeCpuMs: 2 },
    };
  }

  async function report(startedAt: string) {
    const run = writeRun(mkdtempSync(path.join(dir, 'run-')), [lambdaSample('node-http', 40), lambdaSample('reference', 35)], {});
    const metaFile = path.join(run, 'meta.json');
    writeFileSync(metaFile, JSON.stringify({ ...JSON.parse(readFileSync(metaFile, 'utf8')), startedAt }));
    const warnings: string[] = [];
    await writeReport(run, { warn: (line) => warnings.push(line) });
    return { summary: readFileSync(path.join(run, 'summary.md'), 'utf8'), warnings };
  }

  it("a report long after the shipped table's data says so in summary.md and on the console; one close to it does not", async () => {
    const shipped = readReferenceTable();
    const late = new Date(Date.parse(shipped.to) + (STALE_AFTER_DAYS + 5) * 86_400_000).toISOString();
    const old = await report(late);
    assert.match(
      old.summary,
      new RegExp(`⚠ the Lambda calibration's data \\(${shipped.from}–${shipped.to}\\) ended ${STALE_AFTER_DAYS + 5} days`),
    );
    assert.equal(old.warnings.filter((w) => w.includes("the Lambda calibration's data")).length, 1);
    const soon = new Date(Date.parse(shipped.to) + 10 * 86_400_000).toISOString();
    const fresh = await report(soon);
    assert.match(fresh.summary, new RegExp(`dates ${shipped.from}–${shipped.to}`), 'the dates beside the estimate');
    assert.doesNotMatch(fresh.summary, /calibration's data/);
    assert.deepEqual(fresh.warnings, []);
  });
});
