/**
 * The cloud bridge through the command line, in-process (main(), its output captured): `lambda-import`
 * (REPORT lines → a run folder that report and compare read), and the usage errors of `lambda-import`
 * and `lambda-package` (one line, exit 2, nothing written). A real `lambda-package` is
 * test/e2e/lambda-cli.test.ts's.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { RunMeta } from '../../metrics/core/meta.ts';
import { SAMPLES_FILE } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { fixture, tempDir } from '../support/in-process.ts';
import { mainInProcess, type MainResult as CliResult } from '../support/main-in-process.ts';

const REPORTS = fixture(path.join('cloud', 'coldstart-fastify-100-validated.txt'));
const INSIGHTS_CSV = fixture(path.join('cloud', 'insights-report-fields.csv'));
const QUERY_RESULTS = fixture(path.join('cloud', 'query-results.json'));
const UNNAMED = fixture(path.join('cloud', 'unnamed.txt'));

/** A usage error: exit 2 and exactly one line on stderr, naming what is wrong. */
function assertUsageError(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit code (stderr: ${result.stderr})`);
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${result.stderr}`);
  assert.match(lines[0]!, /^coldstart: /);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
}

describe('lambda-import', () => {
  const dir = tempDir('coldstart-lambda-import-');
  const out = path.join(dir, 'run');
  let run: CliResult;
  before(async () => {
    run = await mainInProcess(['lambda-import', REPORTS, INSIGHTS_CSV, QUERY_RESULTS, '--out', out, '--arch', 'arm64']);
  });

  it('writes one aws-lambda record per cold start, failed invocations as failed samples', () => {
    assert.equal(run.code, 0, run.stderr);
    const samples = readSamples(path.join(out, SAMPLES_FILE));
    assert.ok(samples.every((s) => s.cell.target === 'aws-lambda' && s.phase === 'sample' && s.lambda !== undefined));
    const count = (framework: string, ok?: boolean) =>
      samples.filter((s) => s.cell.framework === framework && (ok === undefined || s.ok === ok)).length;
    // the text file: 5 cold starts (one a duplicate line, not counted twice), 2 of them with Status timeout or error
    assert.equal(count('fastify'), 5);
    assert.equal(count('fastify', false), 2);
    // the CSV: 2 cold starts of the hono function (its warm row is not a sample); the JSON: 1 of node-http
    assert.equal(count('hono'), 2);
    assert.equal(count('node-http'), 1);
    assert.deepEqual(
      samples.filter((s) => s.cell.framework === 'hono').map((s) => [s.cell.routes, s.cell.variant, s.cell.memory, s.lambda!.initMs]),
      [
        [1000, 'plain', 512, 324.1],
        [1000, 'plain', 512, 315.25],
      ],
    );
  });

  it('prints what it read and names every line it could not import', () => {
    assert.match(run.stdout, /^\d+ REPORT lines read: 8 cold starts \(8 samples with target aws-lambda in 3 cells\)/);
    assert.match(run.stdout, /coldstart-fastify-100-validated\.txt:8: Duration "abc ms" is not a number of ms/);
    assert.match(run.stdout, /insights-report-fields\.csv:5: function my-api is not named/);
    assert.match(run.stdout, /^results in .*run \(summary\.md/m);
  });

  it('writes a meta.json and summary.md that say the figures come from AWS Lambda, and when they were logged', () => {
    const meta = JSON.parse(readFileSync(path.join(out, 'meta.json'), 'utf8')) as RunMeta;
    assert.match(meta.machine.os, /^AWS Lambda/);
    assert.equal(meta.version, 2);
    assert.equal(meta.spec.cost.architecture, 'arm64');
    assert.equal(meta.spec.source.kind, 'imported');
    // the earliest and latest logged times: the line without a timestamp does not make it "now"
    assert.equal(meta.startedAt, '2025-08-01T10:00:00.320Z');
    assert.equal(meta.finishedAt, '2025-08-01T13:00:00.000Z');
    const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
    assert.match(summary, /\*\*Machine:\*\* AWS Lambda via imported REPORT lines, at 128, 512, 1024 MB/);
    assert.match(summary, /lambda\/100-startup-fastify-routes\.js \[target=aws-lambda, memory=1024MB, build=bundle\] \| 208 \|/);
    assert.match(summary, /lambda\/plain\/1000-startup-hono-routes\.js \[target=aws-lambda, memory=512MB/);
    // each series (framework, memory size, build) was logged at one route count: no log-log chart of one point
    assert.ok(!existsSync(path.join(out, 'chart-firstresponse.svg')));
    assert.ok(existsSync(path.join(out, 'report.html')));
  });

  it('leaves a folder that report and compare read again', async () => {
    const report = await mainInProcess(['report', out]);
    const compare = await mainInProcess(['compare', out, out]);
    assert.equal(report.code, 0, report.stderr);
    assert.equal(compare.code, 0, compare.stderr);
  });

  describe('usage errors: one line, exit 2, nothing written', () => {
    const errors: CliResult[] = [];
    const fresh = path.join(dir, 'never-written');
    before(async () => {
      for (const args of [
        ['lambda-import', '--out', fresh],
        ['lambda-import', path.join(dir, 'no-such-file.txt'), '--out', fresh],
        ['lambda-import', UNNAMED, '--out', out],
        ['lambda-import', UNNAMED, '--out', fresh],
        ['lambda-import', UNNAMED, '--out', fresh, '--function', 'my-api'],
        ['lambda-import', UNNAMED, '--out', fresh, '--architecture', 'mips'],
        ['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', path.join(dir, 'p'), '--memory', '64'],
        ['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', path.join(dir, 'p'), '--runtime', 'nodejs20.x'],
        ['lambda-package', '--frameworks', 'node-http', '--routes', '1'],
        ['lambda-package', '--frameworks', 'no-such-framework', '--routes', '1', '--out', path.join(dir, 'p')],
        ['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', path.join(dir, 'p'), '--arch', 'mips'],
        ['lambda-import', UNNAMED, '--out', fresh, '--lambda-runtime', 'nodejs24.x', '--runtime', 'nodejs22.x'],
        ['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', path.join(dir, 'p'), '--build', 'plain'],
      ])
        errors.push(await mainInProcess(args));
    });

    it('lambda-import without a file', () => assertUsageError(errors[0]!, /missing required argument 'files'/));
    it('lambda-import of a missing file', () => assertUsageError(errors[1]!, /cannot read .*no-such-file\.txt: ENOENT/));
    it('lambda-import into a folder that holds a run', () => {
      assertUsageError(errors[2]!, /already holds a run \(samples\.jsonl\)/);
      assert.equal(readSamples(path.join(out, SAMPLES_FILE)).length, 8, 'the run is untouched');
    });
    it('lambda-import where no cold start names its function: the report line is named, nothing is written', () => {
      assertUsageError(errors[3]!, /no cold start .* nothing written/);
      assert.match(errors[3]!.stdout, /unnamed\.txt:1: no function name/);
    });
    it('lambda-import with a --function that is not a packaged name', () =>
      assertUsageError(errors[4]!, /--function "my-api" is not a packaged/));
    it('lambda-import with an unknown --architecture (the old spelling of --arch, named as typed)', () =>
      assertUsageError(errors[5]!, /--architecture: "mips" is not one of x86_64, arm64/));
    it('lambda-package with a memory size Lambda does not allow', () =>
      assertUsageError(errors[6]!, /--memory: "64" is not a memory size/));
    it('lambda-package with a deprecated runtime: refused with its date', () =>
      assertUsageError(errors[7]!, /--runtime: nodejs20\.x is deprecated on Lambda since 2026-04-30; use nodejs22\.x or nodejs24\.x/));
    it('lambda-package without --out', () => assertUsageError(errors[8]!, /required option '-o, --out <dir>' not specified/));
    it('lambda-package of an unknown framework', () => assertUsageError(errors[9]!, /unknown framework "no-such-framework"/));
    it('lambda-package with an unknown --arch', () => assertUsageError(errors[10]!, /--arch: "mips" is not one of x86_64, arm64/));
    it('lambda-import with both spellings of the runtime', () =>
      assertUsageError(errors[11]!, /option '--runtime <runtime>' cannot be used with option '--lambda-runtime <runtime>'/));
    it('lambda-package of the plain build: a zip holds one bundled file', () =>
      assertUsageError(errors[12]!, /--build must be bundle or bundle-min, got "plain": a package's zip holds one bundled file/));
    it('writes nothing', () => {
      assert.equal(existsSync(fresh), false);
      assert.equal(existsSync(path.join(dir, 'p')), false);
    });
  });
});
