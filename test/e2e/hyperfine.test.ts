import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { cellKey, cellLabel, makeCell, shownDimensions, type Cell } from '../../metrics/core/cell.ts';
import { benchmark, hyperfineArgs, hyperfineEnvironment, hyperfineVersion, shellWord } from '../../metrics/measure/hyperfine.ts';
import { cellOfResult, crossCheck, matchResults, verdictOf } from '../../metrics/analyse/crosscheck.ts';
import { readHyperfine } from '../../metrics/store/hyperfine-file.ts';
import { HYPERFINE_FILE, HyperfineFileError, parseHyperfineJson } from '../../metrics/core/hyperfine.ts';
import { hyperfineExport } from '../../metrics/report/hyperfine-json.ts';
import { writeReport } from '../../metrics/report/write.ts';
import type { Marks, SampleRecord } from '../../metrics/core/samples.ts';
import { appendSample } from '../../metrics/store/samples-file.ts';
import { runCli, fixture, processesWith, tempDir as tmp } from '../support/helpers.ts';

const FIXTURE = fixture('hyperfine.json');
const fixtureText = () => readFileSync(FIXTURE, 'utf8');
const cli = (args: string[], env?: NodeJS.ProcessEnv) => runCli(args, env ? { env } : {});

const fastify1 = makeCell({ framework: 'fastify', variant: 'validated', routes: 1 });
const http1 = makeCell({ framework: 'node-http', variant: 'validated', routes: 1 });
const http100 = makeCell({ framework: 'node-http', variant: 'validated', routes: 100 });

function sample(cell: Cell, listen: number, index = 1): SampleRecord {
  const marks: Marks = { processStart: 5, start: 20, imported: listen - 20, startup: listen - 10, listen, firstResponse: listen + 8 };
  return { cell, phase: 'sample', index, ok: true, marks, rss: 50e6, heapUsed: 10e6, durationMs: listen + 20, at: '2026-01-01T00:00:00Z' };
}

/** The fixture's process median for a cell, in ms. */
function fixtureProcessMs(cell: Cell): number {
  const result = parseHyperfineJson(fixtureText()).results.find((r) => r.command === cellLabel(cell));
  assert.ok(result, `the fixture has ${cellLabel(cell)}`);
  return result.median * 1000;
}

/** fastify at 90% of hyperfine's figure (consistent), node-http 1 at 150% (flagged), node-http 100 not in the fixture. */
function samplesAgainstFixture(): SampleRecord[] {
  const fastify = fixtureProcessMs(fastify1) * 0.9;
  const http = fixtureProcessMs(http1) * 1.5;
  return [1, 2, 3].flatMap((i) => [sample(fastify1, fastify, i), sample(http1, http, i), sample(http100, 30, i)]);
}

describe('hyperfine JSON: the recorded fixture', () => {
  const file = parseHyperfineJson(fixtureText());

  it('reads every result with its times in seconds and its cell from the parameters', () => {
    assert.equal(file.results.length, 2);
    for (const result of file.results) {
      assert.ok(result.times.length > 0 && result.times.every((t) => t > 0 && t < 60), 'seconds');
      assert.ok(result.min <= result.median && result.median <= result.max);
      const cell = cellOfResult(result);
      assert.ok(cell, `${result.command} carries its cell`);
      assert.equal(cellLabel(cell), result.command, 'the command name is the cell label');
    }
    assert.deepEqual(file.results.map((r) => cellKey(cellOfResult(r)!)).sort(), [cellKey(fastify1), cellKey(http1)].sort());
  });

  it('keeps what the hyperfine command recorded beside the results', () => {
    assert.equal(file.coldstart?.tool, 'coldstart');
    assert.match(file.coldstart.hyperfine ?? '', /^hyperfine \d/);
    assert.equal(file.coldstart.shell, 'none');
    assert.ok(file.coldstart.environment?.passed.includes('COLDSTART_EXIT=1'));
  });

  it('rejects what is not hyperfine JSON, naming the problem', () => {
    const cases: [string, RegExp][] = [
      ['{', /is not JSON/],
      ['{"runs": []}', /has no "results" list/],
      ['{"results": [{"command": "x", "mean": 1, "min": 1, "max": 1}]}', /results\[0\] \("x"\) has no "times"/],
      ['{"results": [{"command": "x", "times": [0.1], "min": 0.1, "max": 0.1}]}', /has no "mean"/],
      ['{"results": [{"times": [0.1]}]}', /has no "command"/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parseHyperfineJson(text, 'h.json'),
        (error: Error) => error instanceof HyperfineFileError && message.test(error.message),
      );
    }
  });

  it("a run folder's hyperfine.json: absent is undefined, broken is a HyperfineFileError naming the file", () => {
    const dir = tmp();
    assert.equal(readHyperfine(dir), undefined);
    writeFileSync(path.join(dir, HYPERFINE_FILE), '{"results": [');
    assert.throws(
      () => readHyperfine(dir),
      (error: Error) => error instanceof HyperfineFileError && error.message.endsWith(`${HYPERFINE_FILE} is not JSON`),
    );
    copyFileSync(FIXTURE, path.join(dir, HYPERFINE_FILE));
    assert.deepEqual(readHyperfine(dir), file);
  });

  it('computes a median when an older hyperfine wrote none, and reads a missing stddev as null', () => {
    const parsed = parseHyperfineJson('{"results": [{"command": "c", "mean": 2, "min": 1, "max": 3, "times": [3, 1, 2]}]}');
    assert.equal(parsed.results[0]!.median, 2);
    assert.equal(parsed.results[0]!.stddev, null);
  });
});

describe('merging hyperfine.json into a run', () => {
  it('matches results to cells by parameters, and by the command name when there are none', () => {
    const summaries = aggregate(samplesAgainstFixture());
    const results = parseHyperfineJson(fixtureText()).results;
    const byParameters = matchResults(summaries, results);
    assert.equal(byParameters.byCell.size, 2);
    assert.equal(byParameters.unmatched.length, 0);
    const withoutParameters = results.map(({ parameters: _p, ...rest }) => rest);
    const byName = matchResults(summaries, withoutParameters);
    assert.deepEqual([...byName.byCell.keys()].sort(), [...byParameters.byCell.keys()].sort());
    // a result for a cell the run does not have is kept aside, not forced onto a cell
    const other = matchResults(aggregate([sample(http100, 30)]), results);
    assert.equal(other.byCell.size, 0);
    assert.equal(other.unmatched.length, 2);
  });

  it('sets listen beside process per cell and flags the one where the runner is above hyperfine', () => {
    const check = crossCheck(aggregate(samplesAgainstFixture()), parseHyperfineJson(fixtureText()));
    const row = (cell: Cell) => check.rows.find((r) => r.label === cellLabel(cell))!;
    assert.equal(row(fastify1).verdict, 'ok');
    assert.equal(row(fastify1).process?.median, fixtureProcessMs(fastify1));
    assert.equal(row(http1).verdict, 'runner above hyperfine');
    assert.equal(row(http100).verdict, 'no hyperfine figure');
    assert.equal(row(http100).process, undefined);
  });

  it('verdicts need the whole spread: overlapping ranges are noise, disjoint ones a flag', () => {
    const spread = (median: number, min: number, max: number) => ({ median, min, max });
    const process = spread(100, 95, 110);
    assert.equal(verdictOf(spread(80, 70, 90), process), 'ok');
    // the median above hyperfine's, but the ranges overlap: two runs of a noisy machine
    assert.equal(verdictOf(spread(105, 90, 120), process), 'ok');
    assert.equal(verdictOf(spread(115, 111, 130), process), 'runner above hyperfine');
    assert.equal(verdictOf(spread(45, 40, 48), process), 'ok');
    assert.equal(verdictOf(spread(45, 40, 47), process), 'runner far below hyperfine');
    assert.equal(verdictOf(undefined, process), 'no runner figure');
    assert.equal(verdictOf(spread(50, 50, 50), undefined), 'no hyperfine figure');
  });

  it('the report adds the process column, process_median_ms and the cross-check section', async () => {
    const dir = tmp();
    for (const s of samplesAgainstFixture()) appendSample(path.join(dir, 'samples.jsonl'), s);
    await writeReport(dir);
    assert.doesNotMatch(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /process\(ms\)|Cross-check with hyperfine/);
    const before = parse<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    assert.ok(!Object.hasOwn(before[0]!, 'process_median_ms'));

    copyFileSync(FIXTURE, path.join(dir, HYPERFINE_FILE));
    await writeReport(dir);
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    const header = md.split('\n').find((l) => l.includes('listen(ms)') && l.includes('ok/samples'))!;
    assert.match(header, /\| process\(ms\) \|/);
    assert.match(md, /## Cross-check with hyperfine/);
    assert.match(md, /\| 1-startup-node-http-routes\.js \|.*\*\*FLAG: runner above hyperfine\*\*/);
    assert.match(md, /\| 1-startup-fastify-routes\.js \|.*\| ok \|/);
    assert.match(md, /1 cell flagged:\*\* `1-startup-node-http-routes\.js`/);
    assert.match(md, /Typical gap over the 2 cells both measured/);
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    const byFile = new Map(rows.map((r) => [r.file, r]));
    for (const cell of [fastify1, http1]) {
      assert.ok(Math.abs(Number(byFile.get(cellLabel(cell))!.process_median_ms) - fixtureProcessMs(cell)) < 0.001);
    }
    assert.equal(byFile.get(cellLabel(http100))!.process_median_ms, '');
  });

  it('a broken hyperfine.json does not stop the report: the section says why', async () => {
    const dir = tmp();
    appendSample(path.join(dir, 'samples.jsonl'), sample(http1, 30));
    writeFileSync(path.join(dir, HYPERFINE_FILE), '{"results": 3}');
    await writeReport(dir);
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(md, /hyperfine\.json could not be read, so nothing was cross-checked: .*no "results" list/);
    assert.doesNotMatch(md, /process\(ms\)/);
  });
});

describe("our results in hyperfine's JSON shape", () => {
  const samples = [sample(fastify1, 100, 1), sample(fastify1, 120, 2), sample(fastify1, 110, 3), sample(http1, 30, 1)];
  const summaries = aggregate(samples);

  function assertShape(value: unknown): asserts value is { results: Record<string, unknown>[] } {
    assert.ok(value && typeof value === 'object' && Array.isArray((value as { results: unknown }).results));
    for (const r of (value as { results: Record<string, unknown>[] }).results) {
      assert.equal(typeof r.command, 'string');
      for (const field of ['mean', 'median', 'min', 'max']) assert.equal(typeof r[field], 'number', field);
      assert.ok(r.stddev === null || typeof r.stddev === 'number', 'stddev');
      assert.ok(Array.isArray(r.times) && r.times.length > 0 && r.times.every((t) => typeof t === 'number'), 'times');
      const parameters = r.parameters as Record<string, unknown>;
      // every dimension a cell shows (target and memory only when not at their default)
      for (const d of shownDimensions([])) assert.equal(typeof parameters[d], 'string', `parameters.${d}`);
    }
  }

  it('has every field, in seconds, with firstResponse as times and the cell as parameters', () => {
    const exported = JSON.parse(JSON.stringify(hyperfineExport(summaries))) as unknown;
    assertShape(exported);
    assert.equal(exported.results.length, 2);
    const fastify = exported.results.find((r) => r.command === cellLabel(fastify1))!;
    assert.deepEqual(fastify.times, [0.108, 0.128, 0.118]);
    assert.equal(fastify.median, 0.118);
    assert.equal(fastify.min, 0.108);
    assert.equal(fastify.max, 0.128);
    assert.ok(Math.abs((fastify.mean as number) - 0.118) < 1e-12);
    assert.ok(Math.abs((fastify.stddev as number) - 0.01) < 1e-12);
    assert.deepEqual(fastify.parameters, {
      framework: 'fastify',
      variant: 'validated',
      routes: '1',
      runtime: 'node',
      build: 'plain',
      compileCache: 'off',
    });
    // one sample: no standard deviation, as hyperfine writes it
    assert.equal(exported.results.find((r) => r.command === cellLabel(http1))!.stddev, null);
  });

  it('reads back with the hyperfine parser onto the same cells; another metric can be chosen', () => {
    const back = parseHyperfineJson(JSON.stringify(hyperfineExport(summaries, 'listen')));
    assert.deepEqual(
      back.results.map((r) => cellKey(cellOfResult(r)!)),
      summaries.map((s) => cellKey(s.cell)),
    );
    assert.deepEqual(back.results[0]!.times, [0.1, 0.12, 0.11]);
  });

  it('report --export-json FILE writes it; a bad --export-metric is a usage error', () => {
    const dir = tmp();
    for (const s of samples) appendSample(path.join(dir, 'samples.jsonl'), s);
    const file = path.join(dir, 'export.json');
    const ok = cli(['report', dir, '--export-json', file]);
    assert.equal(ok.status, 0, ok.stderr);
    const exported = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    assertShape(exported);
    assert.equal(exported.results.length, 2);
    const bad = cli(['report', dir, '--export-json', file, '--export-metric', 'boot']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--export-metric: "boot" is not one of .*firstResponse/);
    // a run is told before it starts, not after it
    const nowhere = cli([
      'run',
      '--frameworks',
      'node-http',
      '--routes',
      '1',
      '--out',
      tmp(),
      '--export-json',
      '/nonexistent-folder/x.json',
    ]);
    assert.equal(nowhere.status, 2);
    assert.match(nowhere.stderr, /--export-json: the folder of \/nonexistent-folder\/x\.json does not exist/);
  });
});

describe('the hyperfine command', () => {
  it('without hyperfine on PATH: one line saying how to install it, exit 2', () => {
    const emptyPath = tmp();
    const { status, stderr } = cli(['hyperfine', '--frameworks', 'node-http', '--routes', '1', '--out', tmp()], {
      HOME: os.homedir(),
      PATH: emptyPath,
    });
    assert.equal(status, 2, stderr);
    assert.match(stderr, /hyperfine is not installed .*apt-get install hyperfine/);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
  });

  it('builds a no-shell command named after the cell, with the cell as parameters', () => {
    const args = hyperfineArgs({
      name: 'plain/1-startup-x-routes.js',
      parameters: { framework: 'x', routes: '1' },
      argv: ['/usr/bin/node', "/a b/it's.js"],
      runs: 3,
      warmup: 1,
      exportFile: 'e.json',
    });
    assert.ok(args.includes('--shell=none'));
    assert.deepEqual(args.slice(args.indexOf('--runs'), args.indexOf('--runs') + 2), ['--runs', '3']);
    assert.deepEqual(args.slice(args.indexOf('--warmup'), args.indexOf('--warmup') + 2), ['--warmup', '1']);
    assert.deepEqual(args.slice(args.indexOf('--command-name'), args.indexOf('--command-name') + 2), [
      '--command-name',
      'plain/1-startup-x-routes.js',
    ]);
    assert.ok(args.join(' ').includes('--parameter-list framework x --parameter-list routes 1'));
    assert.equal(args.at(-1), `/usr/bin/node '/a b/it'\\''s.js'`);
    assert.equal(shellWord('/usr/bin/node'), '/usr/bin/node');
    assert.ok(!args.includes('--prepare'), 'nothing to prepare by default');
    // a cold compile-cache cell empties its cache before every run
    const cold = hyperfineArgs({
      name: 'c',
      parameters: {},
      argv: ['node', 'a.js'],
      prepare: ['rm', '-rf', '/c/cold dir'],
      runs: 1,
      warmup: 0,
      exportFile: 'e.json',
    });
    assert.deepEqual(cold.slice(cold.indexOf('--prepare'), cold.indexOf('--prepare') + 2), ['--prepare', "rm -rf '/c/cold dir'"]);
  });

  it('runs node-http at N=1 for real (2 runs, no warm-up) and records the cell', (t) => {
    if (!hyperfineVersion()) {
      t.skip('hyperfine not installed');
      return;
    }
    const dir = tmp();
    const { status, stdout, stderr } = cli([
      'hyperfine',
      '--frameworks',
      'node-http',
      '--routes',
      '1',
      '--samples',
      '2',
      '--warmup',
      '0',
      '--out',
      dir,
    ]);
    assert.equal(status, 0, stderr);
    assert.match(stdout, /hyperfine results in .*hyperfine\.json/);
    const file = parseHyperfineJson(readFileSync(path.join(dir, HYPERFINE_FILE), 'utf8'));
    assert.equal(file.results.length, 1);
    const [result] = file.results;
    assert.equal(result!.command, cellLabel(http1));
    assert.equal(result!.times.length, 2);
    assert.equal(cellKey(cellOfResult(result!)!), cellKey(http1));
    assert.equal(file.coldstart?.runs, 2);
    assert.equal(file.coldstart.warmup, 0);
    assert.deepEqual(file.coldstart.failed, []);
  });

  it('children get the clean environment plus COLDSTART_EXIT=1 and run in the given cwd', async (t) => {
    if (!hyperfineVersion()) {
      t.skip('hyperfine not installed');
      return;
    }
    const dir = tmp();
    const scratch = tmp();
    const dump = path.join(dir, 'env.jsonl');
    const script = path.join(dir, 'dump.js');
    writeFileSync(
      script,
      `require('fs').appendFileSync(${JSON.stringify(dump)}, JSON.stringify({ env: process.env, cwd: process.cwd() }) + '\\n');\n`,
    );
    const parent = {
      ...process.env,
      NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
      NODE_OPTIONS: '--max-old-space-size=100',
      SECRET_THING: 'x',
    };
    const outcome = await benchmark(
      {
        name: 'dump',
        parameters: { framework: 'dump' },
        argv: [process.execPath, script],
        runs: 2,
        warmup: 1,
        exportFile: path.join(dir, 'e.json'),
      },
      { cwd: scratch, env: hyperfineEnvironment(parent).env, timeoutMs: 60_000 },
    );
    assert.ok(outcome.result, outcome.error);
    const runs = readFileSync(dump, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { env: Record<string, string>; cwd: string });
    assert.equal(runs.length, 3, 'one warm-up and two runs');
    for (const run of runs) {
      assert.equal(run.cwd, scratch);
      assert.equal(run.env.COLDSTART_EXIT, '1');
      assert.equal(run.env.NODE_ENV, 'production');
      for (const name of ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'SECRET_THING']) assert.equal(run.env[name], undefined, name);
      const unexpected = Object.keys(run.env).filter(
        (k) => !['PATH', 'HOME', 'NODE_ENV', 'COLDSTART_EXIT', 'HYPERFINE_RANDOMIZED_ENVIRONMENT_OFFSET'].includes(k),
      );
      assert.deepEqual(unexpected, []);
    }
  });

  it("a cell whose server fails is reported with hyperfine's reason, not a crash", async (t) => {
    if (!hyperfineVersion()) {
      t.skip('hyperfine not installed');
      return;
    }
    const dir = tmp();
    const outcome = await benchmark(
      {
        name: 'crash',
        parameters: {},
        argv: [process.execPath, fixture('crash.js')],
        runs: 2,
        warmup: 0,
        exportFile: path.join(dir, 'e.json'),
      },
      { cwd: dir, env: hyperfineEnvironment().env, timeoutMs: 60_000 },
    );
    assert.equal(outcome.result, undefined);
    assert.match(outcome.error ?? '', /hyperfine exited with code 1: .*non-zero exit code/);
  });

  it('a hanging server is stopped at the time limit, hyperfine and its child with it', async (t) => {
    if (!hyperfineVersion()) {
      t.skip('hyperfine not installed');
      return;
    }
    const dir = tmp();
    const outcome = await benchmark(
      {
        name: 'hang',
        parameters: {},
        argv: [process.execPath, fixture('hang.js')],
        runs: 1,
        warmup: 0,
        exportFile: path.join(dir, 'e.json'),
      },
      { cwd: dir, env: hyperfineEnvironment().env, timeoutMs: 1500 },
    );
    assert.match(outcome.error ?? '', /no result within 2 s/);
    assert.deepEqual(processesWith(fixture('hang.js')), []);
  });
});
