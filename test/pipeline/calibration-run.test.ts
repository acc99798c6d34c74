/**
 * `--calibration FILE` on run (issue 39): the run's Lambda estimates use the file, meta.json names it
 * (path and sha256 of its bytes, the fit's source and dates), summary.md says so, and a later report
 * uses it again or says it does not; report.html names the file, or gives the warning, as summary.md
 * does. The option is refused without a Lambda cell, and a missing or
 * malformed file is refused before the run folder is made. The calibration is the shipped table with
 * every hello-world Init Duration raised by 400 ms, so what Lambda adds to Init must rise by 400 ms.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { specOfArgv } from '../../metrics/cli/main.ts';
import { SHIPPED_REFERENCE_FILE, type ReferenceTable } from '../../metrics/calibration/lambda-reference.ts';
import { chooseCalibration } from '../../metrics/calibration/calibration-file.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { normalizeMeta } from '../../metrics/core/meta.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { reportPipeline } from '../../metrics/pipeline/report.ts';
import { runPipeline } from '../../metrics/pipeline/run.ts';
import { tempDir } from '../support/in-process.ts';

const RAISE_MS = 400;
const ARGS = ['run', '--target', 'lambda', '-f', 'hono', '-r', '1,10', '--samples', '2', '--warmup', '0'];

function raisedCalibration(): string {
  const table = JSON.parse(readFileSync(SHIPPED_REFERENCE_FILE, 'utf8')) as ReferenceTable;
  const raise = (n: number | undefined) => (n === undefined ? undefined : n + RAISE_MS);
  const fitted: ReferenceTable = {
    ...table,
    source: 'lambda:calibrate of a test account, dates 2026-11-01–2026-11-20',
    from: '2026-11-01',
    to: '2026-11-20',
    rows: table.rows.map((row) => ({
      ...row,
      initMs: {
        ...row.initMs,
        median: row.initMs.median + RAISE_MS,
        p25: row.initMs.p25 + RAISE_MS,
        p75: row.initMs.p75 + RAISE_MS,
        ...(row.initMs.p95 !== undefined ? { p95: raise(row.initMs.p95) } : {}),
        ...(row.initMs.p99 !== undefined ? { p99: raise(row.initMs.p99) } : {}),
      },
    })),
  };
  const file = path.join(tempDir('coldstart-calibration-'), 'fitted.json');
  writeFileSync(file, JSON.stringify(fitted, null, 2));
  return file;
}

async function run(extra: string[]): Promise<string> {
  const out = path.join(tempDir('coldstart-calibration-run-'), 'run');
  const spec = await specOfArgv([...ARGS, '--out', out, ...extra]);
  assert.ok(spec);
  await runPipeline(spec, fakeDeps());
  return out;
}

/** summary.csv's column, cell by cell (the columns up to `file` name the cell) */
function column(dir: string, header: string): Map<string, number> {
  const split = (line: string) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1]!).slice(0, -1);
  const [head, ...rows] = readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n');
  const names = split(head!);
  const at = names.indexOf(header);
  const file = names.indexOf('file');
  assert.ok(at >= 0 && file >= 0, `${header} in summary.csv`);
  const values = new Map<string, number>();
  for (const row of rows) {
    const cells = split(row);
    if (cells[at] !== '') values.set(cells.slice(0, file + 1).join(','), Number(cells[at]));
  }
  return values;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const meta = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>;

describe('run --calibration FILE', () => {
  it('makes the estimates with the file, names it in meta.json and summary.md, and a later report uses it again', async () => {
    const file = raisedCalibration();
    const shipped = await run([]);
    const calibrated = await run(['--calibration', file]);
    const before = column(shipped, 'estimate_init_lambda_adds_ms');
    const after = column(calibrated, 'estimate_init_lambda_adds_ms');
    assert.ok(before.size > 0);
    assert.deepEqual([...after.keys()], [...before.keys()]);
    for (const [cell, adds] of before)
      assert.ok(Math.abs(after.get(cell)! - adds - RAISE_MS) <= 1, `${cell}: ${adds} → ${after.get(cell)}`);

    assert.equal(meta(shipped).calibration, undefined);
    assert.deepEqual(meta(calibrated).calibration, {
      file,
      sha256: sha256(file),
      source: 'lambda:calibrate of a test account, dates 2026-11-01–2026-11-20',
      from: '2026-11-01',
      to: '2026-11-20',
    });
    const summary = readFileSync(path.join(calibrated, 'summary.md'), 'utf8');
    assert.match(summary, /Calibration: lambda:calibrate of a test account/);
    assert.ok(summary.includes(`Calibration file: \`${file}\` (sha256 \`${sha256(file)}\`)`));
    assert.doesNotMatch(readFileSync(path.join(shipped, 'summary.md'), 'utf8'), /Calibration file:/);
    // report.html names it as summary.md does
    const html = readFileSync(path.join(calibrated, 'report.html'), 'utf8');
    assert.ok(html.includes(`<p>Calibration file: <code>${file}</code> (sha256 <code>${sha256(file)}</code>)`), 'report.html');
    assert.doesNotMatch(readFileSync(path.join(shipped, 'report.html'), 'utf8'), /Calibration file:/);

    // `report FOLDER` alone: the run's calibration, the same summary byte for byte
    await reportPipeline({ dir: calibrated }, () => undefined);
    assert.equal(readFileSync(path.join(calibrated, 'summary.md'), 'utf8'), summary);

    // the file changed since: the report says it uses the shipped table, and its estimates are the shipped ones
    writeFileSync(file, readFileSync(SHIPPED_REFERENCE_FILE));
    const warnings: string[] = [];
    await reportPipeline({ dir: calibrated }, (line) => warnings.push(line));
    assert.ok(
      warnings.some((w) => /made with the calibration .*fitted\.json .*has changed since.*these use the shipped calibration/.test(w)),
    );
    assert.match(readFileSync(path.join(calibrated, 'summary.md'), 'utf8'), /⚠ the run's estimates were made with the calibration/);
    assert.match(
      readFileSync(path.join(calibrated, 'report.html'), 'utf8'),
      /<p class="warning">⚠ the run&#39;s estimates were made with the calibration .*has changed since/,
    );
    assert.doesNotMatch(readFileSync(path.join(calibrated, 'report.html'), 'utf8'), /Calibration file:/);
    assert.deepEqual(column(calibrated, 'estimate_init_lambda_adds_ms'), before);
  });

  it("another calibration given to report is named as not the run's", async () => {
    const file = raisedCalibration();
    const dir = await run(['--calibration', file]);
    const warnings: string[] = [];
    await reportPipeline({ dir, calibrationFile: SHIPPED_REFERENCE_FILE }, (line) => warnings.push(line));
    assert.ok(warnings.some((w) => w.includes("not the run's") && w.includes('fitted.json')));
  });

  it("meta.json's calibration is read defensively, and a recorded file not found from here is named, the shipped table used", () => {
    const base = { version: 3, spec: {} };
    assert.equal(normalizeMeta({ ...base, calibration: 3 }).calibration, undefined);
    assert.equal(normalizeMeta({ ...base, calibration: { file: 'a.json' } }).calibration, undefined);
    assert.deepEqual(normalizeMeta({ ...base, calibration: { file: 'a.json', sha256: 'ab', source: 7 } }).calibration, {
      file: 'a.json',
      sha256: 'ab',
    });
    const chosen = chooseCalibration(undefined, { file: 'gone.json', sha256: 'abcdef0123456789' }, tempDir('coldstart-calibration-base-'));
    assert.equal(chosen.file, undefined);
    assert.equal(
      chosen.note,
      "the run's estimates were made with the calibration gone.json (sha256 abcdef012345), not found from here: " +
        'these use the shipped calibration: give --calibration FILE to use another',
    );
  });

  it('is refused without a Lambda cell, and a missing or malformed file before the run folder is made', async () => {
    const file = raisedCalibration();
    await assert.rejects(
      specOfArgv(['run', '-f', 'hono', '-r', '1', '--calibration', file]),
      (e: Error) => e instanceof UsageError && /^--calibration does nothing without a Lambda cell/.test(e.message),
    );
    const bad = path.join(path.dirname(file), 'bad.json');
    writeFileSync(bad, '{"rows": 3}');
    for (const [given, why] of [
      [bad, /^--calibration: .*bad\.json is not a calibration table/],
      [path.join(path.dirname(file), 'missing.json'), /^--calibration: cannot read the calibration table .*missing\.json/],
    ] as const) {
      const out = path.join(tempDir('coldstart-calibration-refused-'), 'run');
      const spec = await specOfArgv([...ARGS, '--out', out, '--calibration', given]);
      assert.ok(spec);
      await assert.rejects(runPipeline(spec, fakeDeps()), (e: Error) => e instanceof UsageError && why.test(e.message));
      assert.equal(existsSync(out), false);
    }
  });
});
