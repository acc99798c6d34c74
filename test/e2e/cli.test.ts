/**
 * The command line end to end: every user mistake is one line and exit 2, the help documents every
 * option the program defines (docs/reference/cli.md is checked in-process by test/unit/cli-reference.test.ts),
 * a real run writes what its samples imply, and Ctrl-C keeps what was measured.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { median } from 'simple-statistics';
import { buildProgram } from '../../metrics/cli/main.ts';
import type { RunMeta } from '../../metrics/core/meta.ts';
import { readSamples } from '../../metrics/core/samples.ts';
import { CLI, processesWith, ROOT, runCli as cli, runClis, tempDir as tmp, waitFor, type CliResult } from '../support/helpers.ts';

function assertUsageError(result: CliResult, message: RegExp): void {
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, message);
  assert.equal(result.stderr.trim().split('\n').length, 1, `one line: ${result.stderr}`);
  assert.match(result.stderr, /^coldstart: /);
  assert.doesNotMatch(result.stderr, /\n\s+at /);
}

describe('cli errors: one line, exit 2, no stack trace', () => {
  /** what, the arguments (made in before(): some need a folder), the message, and why it is still to do */
  const cases: { what: string; args: () => string[]; message: RegExp; todo?: string }[] = [
    {
      what: 'unknown framework',
      args: () => ['run', '--frameworks', 'nope'],
      message: /unknown framework "nope": choose from .*fastify.*node-http/,
    },
    { what: 'route count zero', args: () => ['run', '--routes', '0'], message: /--routes: "0" is not a route count/ },
    {
      what: 'route count too large',
      args: () => ['run', '--routes', '1,100001'],
      message: /"100001" is not a route count \(an integer from 1 to 100000\)/,
    },
    { what: 'route count not a number', args: () => ['generate', '--routes', 'ten'], message: /"ten" is not a route count/ },
    { what: 'an empty item in a list', args: () => ['run', '--routes', '1,,2'], message: /--routes: "1,,2" has an empty item/ },
    { what: 'samples zero', args: () => ['run', '--samples', '0'], message: /--samples: "0" is not an integer from 1/ },
    { what: 'samples not a number', args: () => ['run', '--samples', 'x'], message: /--samples: "x"/ },
    { what: 'bad timeout', args: () => ['run', '--timeout', '-3'], message: /--timeout: "-3" is not a positive number/ },
    {
      what: 'bad order',
      args: () => ['run', '--order', 'shuffled'],
      message: /--order: "shuffled" is not one of interleaved, sequential, random/,
    },
    { what: 'bad variant', args: () => ['run', '--variant', 'typed'], message: /--variant: "typed" is not one of validated, plain, all/ },
    { what: 'unknown option', args: () => ['run', '--sample', '3'], message: /unknown option '--sample'/ },
    { what: 'unknown command', args: () => ['fly'], message: /unknown command 'fly'/ },
    {
      what: 'node binary that does not run',
      args: () => ['run', '--frameworks', 'node-http', '--routes', '1', '--node', '/nonexistent/node', '--out', path.join(tmp(), 'run')],
      message: /--node: "\/nonexistent\/node" does not run/,
    },
    { what: 'report of a folder without samples', args: () => ['report', '/nonexistent-run'], message: /samples\.jsonl does not exist/ },
    {
      // a recursive mkdir loops forever under /proc: the folder must be made one level at a time
      what: '--out under /proc',
      args: () => ['run', '--frameworks', 'node-http', '--routes', '1', '--out', '/proc/coldstart-x'],
      message: /--out: \/proc\/coldstart-x is on proc, a kernel filesystem that holds no files/,
    },
    {
      // issue 20: lambda:package looped forever there; every command's --out goes through one check
      what: 'lambda:package --out under /proc',
      args: () => ['lambda-package', '--frameworks', 'node-http', '--routes', '1', '--out', '/proc/pkg'],
      message: /--out: \/proc\/pkg is on proc/,
    },
    {
      what: 'an --out whose meta.json is a folder (issue 20: was an internal error)',
      args: () => {
        const dir = tmp();
        mkdirSync(path.join(dir, 'meta.json'));
        return ['run', '--frameworks', 'node-http', '--routes', '1', '--out', dir];
      },
      message: /meta\.json is in the way \(not a file\)/,
    },
    {
      what: 'a meta.json that is JSON but not an object is named (issue 20: was an internal error)',
      args: () => {
        const dir = runFolder(readFileSync(path.join(ROOT, 'test', 'fixtures', 'golden-run', 'samples.jsonl'), 'utf8'));
        seeded.add(dir);
        writeFileSync(path.join(dir, 'meta.json'), '[1, 2]');
        return ['report', dir];
      },
      message: /meta\.json is not a run's meta\.json \(a JSON object expected, found an array\)/,
    },
    {
      what: '--out under a file',
      args: () => ['run', '--frameworks', 'node-http', '--routes', '1', '--out', '/etc/passwd/x'],
      message: /--out: \/etc\/passwd\/x is not a folder \(\/etc\/passwd is a file\)/,
    },
    {
      what: 'a broken samples.jsonl is named with its line',
      args: () => ['report', runFolder('{"not":"a sample"}\n{}\n')],
      message: /samples\.jsonl:1 is not a sample record/,
    },
    {
      what: 'a samples.jsonl without a sample is said, not reported as empty',
      args: () => ['report', runFolder('')],
      message: /samples\.jsonl holds no sample: nothing to report/,
    },
    {
      what: 'refuses a folder that already holds a run, so no finished sample is ever lost',
      args: () => ['run', '--frameworks', 'node-http', '--routes', '1', '--out', runFolder('')],
      message: /already holds a run/,
    },
  ];
  /** folders given real samples: the check below looks for a report only */
  const seeded = new Set<string>();
  /** A folder with the given samples.jsonl. */
  function runFolder(samples: string): string {
    const dir = tmp();
    writeFileSync(path.join(dir, 'samples.jsonl'), samples);
    return dir;
  }
  const argsOf: string[][] = [];
  let results: CliResult[] = [];
  before(async () => {
    argsOf.push(...cases.map((c) => c.args()));
    results = await runClis(argsOf);
  });

  cases.forEach(({ what, message, todo }, i) => {
    it(what, todo ? { todo } : {}, () => assertUsageError(results[i]!, message));
  });

  it('a refused or wrong run leaves the folder as it was: no report, samples.jsonl untouched', () => {
    for (const args of argsOf) {
      const out = args.includes('--out') ? args[args.indexOf('--out') + 1]! : args[0] === 'report' ? args[1]! : undefined;
      if (!out || !existsSync(out)) continue;
      assert.ok(!existsSync(path.join(out, 'summary.md')), `${args.join(' ')}: wrote a report`);
      const samples = path.join(out, 'samples.jsonl');
      if (existsSync(samples) && !seeded.has(out))
        assert.ok(!readFileSync(samples, 'utf8').includes('"phase"'), `${args.join(' ')}: wrote a sample`);
    }
  });
});

describe('--help documents every option the program defines', () => {
  // the options as the commands define them, not a list kept by hand
  const commands = buildProgram().commands.map((command) => ({
    name: command.name(),
    // hidden ones (old spellings, --debug-mode) excepted: the option an old spelling stands for says it
    flags: command.options
      .filter((option) => !option.hidden)
      .map((option) => option.long)
      .filter((flag): flag is string => Boolean(flag)),
  }));
  const mentions = (text: string, flag: string) => new RegExp(`${flag}(?![\\w-])`).test(text);
  let overview: CliResult;
  const help = new Map<string, CliResult>();
  before(async () => {
    const results = await runClis([['--help'], ...commands.map(({ name }) => [name, '--help'])]);
    overview = results[0]!;
    commands.forEach(({ name }, i) => help.set(name, results[i + 1]!));
  });

  it('the program defines the commands and their options', () => {
    assert.deepEqual(commands.map((c) => c.name).sort(), [
      'clean',
      'compare',
      'generate',
      'hyperfine',
      'lambda-import',
      'lambda-package',
      'lambda-reference',
      'measure',
      'merge',
      'report',
      'run',
    ]);
    assert.ok(commands.find((c) => c.name === 'run')!.flags.length >= 18, 'run takes at least the 18 options it had');
  });

  it('--help lists every command', () => {
    assert.equal(overview.status, 0, overview.stderr);
    for (const { name } of commands) assert.match(overview.stdout, new RegExp(`^\\s+${name}\\b`, 'm'), name);
  });

  for (const { name, flags } of commands) {
    it(`${name} --help lists ${flags.length ? flags.join(', ') : 'no option'}`, () => {
      const result = help.get(name)!;
      assert.equal(result.status, 0, result.stderr);
      const missing = flags.filter((flag) => !mentions(result.stdout, flag));
      assert.deepEqual(missing, [], `${name} --help does not mention ${missing.join(', ')}`);
    });
  }
  // the written reference, docs/reference/cli.md, is generated from the same program: test/unit/cli-reference.test.ts
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

describe('Ctrl-C during a run', () => {
  it('keeps finished samples, writes the report, exits 130 and leaves no process behind', async () => {
    const dir = path.join(tmp(), 'interrupted');
    const args = ['run', '--frameworks', 'node-http', '--routes', '7', '--samples', '500', '--warmup', '0', '--out', dir];
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const samplesFile = path.join(dir, 'samples.jsonl');
    const started = await waitFor(() => existsSync(samplesFile) && readFileSync(samplesFile, 'utf8').split('\n').length > 3, 60_000);
    assert.ok(started, 'the run wrote samples');
    child.kill('SIGINT');
    assert.equal(await exited, 130);
    const samples = readSamples(samplesFile);
    assert.ok(samples.length >= 3 && samples.length < 500);
    assert.ok(
      samples.every((s) => s.ok),
      'an interrupted sample is not recorded as a failure',
    );
    assert.match(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /interrupted: partial results/);
    assert.deepEqual(processesWith('7-startup-node-http-routes.js'), []);
  });
});
