/**
 * The command line end to end: the user mistakes only a real process finds are one line and exit 2
 * (the others, and that the help documents every option, are checked in-process by
 * test/unit/cli-usage.test.ts; docs/reference/cli.md by test/unit/cli-reference.test.ts), --help
 * exits 0, and a real run writes what its samples imply. Ctrl-C keeping what was measured is
 * test/smoke/interrupt.test.ts (npm test).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { median } from 'simple-statistics';
import { buildProgram } from '../../metrics/cli/main.ts';
import type { RunMeta } from '../../metrics/core/meta.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { ROOT, runCli as cli, runClis, tempDir as tmp, type CliResult } from '../support/helpers.ts';
import { assertUsageError as assertOneLineError } from '../support/usage-error.ts';

function assertUsageError(result: CliResult, message: RegExp): void {
  assertOneLineError(result.status, result.stderr, message);
}

describe('cli errors: one line, exit 2, no stack trace', () => {
  // the mistakes refused before a process would start are test/unit/cli-usage.test.ts's, in-process; here the ones
  // that need a real process: a runtime that does not run, and commander's own exit on an unknown option
  const cases: { what: string; args: () => string[]; message: RegExp }[] = [
    { what: 'unknown option', args: () => ['run', '--sample', '3'], message: /unknown option '--sample'/ },
    {
      what: 'node binary that does not run',
      args: () => ['run', '--frameworks', 'node-http', '--routes', '1', '--node', '/nonexistent/node', '--out', path.join(tmp(), 'run')],
      message: /--node: "\/nonexistent\/node" does not run/,
    },
  ];
  const argsOf: string[][] = [];
  let results: CliResult[] = [];
  before(async () => {
    argsOf.push(...cases.map((c) => c.args()));
    results = await runClis(argsOf);
  });

  cases.forEach(({ what, message }, i) => {
    it(what, () => assertUsageError(results[i]!, message));
  });

  it('a refused run leaves its folder as it was: no report, no sample', () => {
    for (const args of argsOf) {
      const out = args.includes('--out') ? args[args.indexOf('--out') + 1]! : undefined;
      if (!out || !existsSync(out)) continue;
      assert.ok(!existsSync(path.join(out, 'summary.md')), `${args.join(' ')}: wrote a report`);
      const samples = path.join(out, 'samples.jsonl');
      if (existsSync(samples)) assert.ok(!readFileSync(samples, 'utf8').includes('"phase"'), `${args.join(' ')}: wrote a sample`);
    }
  });
});

describe('--help', () => {
  // that every command's help lists each of its options is test/unit/cli-usage.test.ts's, in-process
  it('exits 0 and lists every command', () => {
    const result = cli(['--help']);
    assert.equal(result.status, 0, result.stderr);
    for (const command of buildProgram().commands)
      assert.match(result.stdout, new RegExp(`^\\s+${command.name()}\\b`, 'm'), command.name());
  });
});

describe('a real run through the cli', () => {
  let dir: string;
  let result: CliResult;
  before(() => {
    dir = path.join(tmp(), 'run');
    result = cli(['run', '--frameworks', 'fastify,node-http', '--routes', '1,3', '--samples', '2', '--warmup', '1', '--out', dir]);
  });

  it('exits 0 and writes the four files', () => {
    assert.equal(result.status, 0, result.stderr);
    for (const file of ['samples.jsonl', 'meta.json', 'summary.csv', 'summary.md']) assert.ok(existsSync(path.join(dir, file)), file);
    assert.match(result.stdout, /^results in .* \(summary\.md\)$/m);
  });

  it('without a terminal, progress is one line per finished cell', () => {
    const done = result.stderr.split('\n').filter((l) => l.startsWith('done '));
    assert.equal(done.length, 4, result.stderr);
    assert.ok(
      done.every((l) => /^done \d+-startup-[\w-]+-routes\.js: 2 ok, 0 failed, median firstResponse [\d.]+ ms \[\d+\/12\]$/.test(l)),
      done.join('\n'),
    );
    assert.match(done.at(-1)!, /\[12\/12\]$/);
  });

  it('every number in summary.csv is what samples.jsonl implies', () => {
    const samples = readSamples(path.join(dir, 'samples.jsonl'));
    assert.equal(samples.length, 4 * (2 + 1), 'four cells × (two samples + one warm-up)');
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    assert.equal(rows.length, 4);
    for (const row of rows) {
      const mine = samples.filter(
        (s) => s.phase === 'sample' && s.cell.framework === row.framework && s.cell.routes === Number(row.routes),
      );
      assert.equal(Number(row.samples), mine.filter((s) => s.ok).length);
      assert.equal(Number(row.failures), mine.filter((s) => !s.ok).length);
      for (const metric of ['startup', 'listen', 'firstResponse'] as const) {
        const values = mine.filter((s) => s.ok).map((s) => s.marks![metric]!);
        assert.ok(Math.abs(Number(row[`${metric}_median_ms`]) - median(values)) < 0.001, `${row.framework} ${row.routes} ${metric} median`);
        assert.ok(Math.abs(Number(row[`${metric}_min_ms`]) - Math.min(...values)) < 0.001);
        assert.ok(Math.abs(Number(row[`${metric}_max_ms`]) - Math.max(...values)) < 0.001);
      }
    }
  });

  it('meta.json records the machine, versions and the variables the children did not get', () => {
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as RunMeta;
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(meta.toolVersion, pkg.version);
    assert.equal(meta.runtimes.node, process.version);
    assert.match(meta.frameworks.fastify!.version, /^\d+\.\d+\.\d+/);
    assert.ok(meta.machine.cores >= 1);
    assert.deepEqual(meta.environment.passed, ['PATH', 'HOME', 'NODE_ENV=production']);
    if (process.env.NODE_EXTRA_CA_CERTS) assert.ok(meta.environment.dropped.includes('NODE_EXTRA_CA_CERTS'));
    assert.ok(meta.durationMs !== undefined && meta.samplesDurationMs !== undefined, 'a finished run records both durations');
    assert.ok(meta.durationMs >= meta.samplesDurationMs * 0.5);
  });

  it('report rebuilds the same summary.csv and summary.md from samples.jsonl', () => {
    const before = ['summary.csv', 'summary.md'].map((f) => readFileSync(path.join(dir, f), 'utf8'));
    const again = cli(['report', dir]);
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(
      ['summary.csv', 'summary.md'].map((f) => readFileSync(path.join(dir, f), 'utf8')),
      before,
    );
  });
});
