import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { median } from 'simple-statistics';
import { readSamples } from '../metrics/core/samples.ts';
import { processesWith, ROOT, waitFor } from './helpers.ts';

const CLI = ['--import', 'tsx', path.join(ROOT, 'metrics', 'cli', 'main.ts')];
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'coldstart-test-'));

function cli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [...CLI, ...args], { cwd: ROOT, encoding: 'utf8', env, timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('cli errors: one line, exit 2, no stack trace', () => {
  const cases: [string, string[], RegExp][] = [
    ['unknown framework', ['run', '--frameworks', 'nope'], /unknown framework "nope": choose from .*fastify.*node-http/],
    ['route count zero', ['run', '--routes', '0'], /--routes: "0" is not a route count/],
    ['route count too large', ['run', '--routes', '1,100001'], /"100001" is not a route count \(an integer from 1 to 100000\)/],
    ['route count not a number', ['generate', '--routes', 'ten'], /"ten" is not a route count/],
    ['samples zero', ['run', '--samples', '0'], /--samples: "0" is not an integer from 1/],
    ['samples not a number', ['run', '--samples', 'x'], /--samples: "x"/],
    ['bad timeout', ['run', '--timeout', '-3'], /--timeout: "-3" is not a positive number/],
    ['bad order', ['run', '--order', 'shuffled'], /--order: "shuffled" is not one of interleaved, sequential, random/],
    ['bad variant', ['run', '--variant', 'typed'], /--variant: "typed" is not one of validated, plain, all/],
    ['unknown option', ['run', '--sample', '3'], /unknown option '--sample'/],
    ['unknown command', ['fly'], /unknown command 'fly'/],
    ['node binary that does not run', ['run', '--frameworks', 'node-http', '--routes', '1', '--node', '/nonexistent/node'], /--node: "\/nonexistent\/node" does not run/],
    ['report of a folder without samples', ['report', '/nonexistent-run'], /samples\.jsonl does not exist/],
  ];
  for (const [what, args, message] of cases) {
    it(what, () => {
      const { status, stderr } = cli(args);
      assert.equal(status, 2, stderr);
      assert.match(stderr, message);
      assert.equal(stderr.trim().split('\n').length, 1, `one line: ${stderr}`);
      assert.doesNotMatch(stderr, /\n\s+at /);
    });
  }

  it('a broken samples.jsonl is named with its line', () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'samples.jsonl'), '{"not":"a sample"}\n{}\n');
    const { status, stderr } = cli(['report', dir]);
    assert.equal(status, 2);
    assert.match(stderr, /samples\.jsonl:1 is not a sample record/);
  });

  it('refuses a folder that already holds a run, so no finished sample is ever lost', () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'samples.jsonl'), '');
    const { status, stderr } = cli(['run', '--frameworks', 'node-http', '--routes', '1', '--out', dir]);
    assert.equal(status, 2);
    assert.match(stderr, /already holds a run/);
  });

  it('--help documents every option', () => {
    const { status, stdout } = cli(['run', '--help']);
    assert.equal(status, 0);
    for (const option of ['--frameworks', '--routes', '--samples', '--warmup', '--variant', '--timeout', '--order', '--node', '--out']) {
      assert.ok(stdout.includes(option), option);
    }
  });
});

describe('a real run through the cli', () => {
  const dir = path.join(tmp(), 'run');
  const result = cli(['run', '--frameworks', 'fastify,node-http', '--routes', '1,3', '--samples', '2', '--warmup', '1', '--out', dir]);

  it('exits 0 and writes the four files', () => {
    assert.equal(result.status, 0, result.stderr);
    for (const file of ['samples.jsonl', 'meta.json', 'summary.csv', 'summary.md']) assert.ok(existsSync(path.join(dir, file)), file);
  });

  it('every number in summary.csv is what samples.jsonl implies', () => {
    const samples = readSamples(path.join(dir, 'samples.jsonl'));
    assert.equal(samples.length, 4 * (2 + 1), 'four cells × (two samples + one warm-up)');
    const rows = parse(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    assert.equal(rows.length, 4);
    for (const row of rows) {
      const mine = samples.filter((s) => s.phase === 'sample' && s.cell.framework === row.framework && s.cell.routes === Number(row.routes));
      assert.equal(Number(row.samples), mine.filter((s) => s.ok).length);
      assert.equal(Number(row.failures), mine.filter((s) => !s.ok).length);
      for (const metric of ['startup', 'listen', 'firstResponse'] as const) {
        const values = mine.filter((s) => s.ok).map((s) => s.marks![metric]);
        assert.ok(Math.abs(Number(row[`${metric}_median_ms`]) - median(values)) < 0.001, `${row.framework} ${row.routes} ${metric} median`);
        assert.ok(Math.abs(Number(row[`${metric}_min_ms`]) - Math.min(...values)) < 0.001);
        assert.ok(Math.abs(Number(row[`${metric}_max_ms`]) - Math.max(...values)) < 0.001);
      }
    }
  });

  it('meta.json records the machine, versions and the variables the children did not get', () => {
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    assert.equal(meta.runtimes.node, process.version);
    assert.match(meta.frameworks.fastify.version, /^\d+\.\d+\.\d+/);
    assert.ok(meta.machine.cores >= 1);
    assert.deepEqual(meta.environment.passed, ['PATH', 'HOME', 'NODE_ENV=production']);
    if (process.env.NODE_EXTRA_CA_CERTS) assert.ok(meta.environment.dropped.includes('NODE_EXTRA_CA_CERTS'));
    assert.ok(meta.durationMs >= meta.samplesDurationMs * 0.5);
  });

  it('report rebuilds the same summary.csv from samples.jsonl', () => {
    const before = readFileSync(path.join(dir, 'summary.csv'), 'utf8');
    const again = cli(['report', dir]);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), before);
  });
});

describe('Ctrl-C during a run', () => {
  it('keeps finished samples, writes the report, exits 130 and leaves no process behind', async () => {
    const dir = path.join(tmp(), 'interrupted');
    mkdirSync(path.dirname(dir), { recursive: true });
    const child = spawn(process.execPath, [...CLI, 'run', '--frameworks', 'node-http', '--routes', '7', '--samples', '500', '--warmup', '0', '--out', dir], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const samplesFile = path.join(dir, 'samples.jsonl');
    const started = await waitFor(() => existsSync(samplesFile) && readFileSync(samplesFile, 'utf8').split('\n').length > 3, 60_000);
    assert.ok(started, 'the run wrote samples');
    child.kill('SIGINT');
    assert.equal(await exited, 130);
    const samples = readSamples(samplesFile);
    assert.ok(samples.length >= 3 && samples.length < 500);
    assert.ok(samples.every((s) => s.ok), 'an interrupted sample is not recorded as a failure');
    assert.match(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /interrupted: partial results/);
    assert.deepEqual(processesWith('7-startup-node-http-routes.js'), []);
  });
});
