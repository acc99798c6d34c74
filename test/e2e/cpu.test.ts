/**
 * The child's CPU time beside wall time: present and ordered in a real run, aggregated and written
 * like wall time, and absent without harm from run folders recorded before the child reported it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { median } from 'simple-statistics';
import { CPU_CSV_COLUMNS, FROM_START_CSV_COLUMNS, SUMMARY_CSV_COLUMNS } from '../../metrics/report/csv.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { CPU_METRICS } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { CLI, ROOT, tempDir } from '../support/helpers.ts';
import { cell, samplesOf, spread, writeRun } from '../support/synthetic.ts';

describe('CPU time in a real run of node-http and fastify', () => {
  const dir = path.join(tempDir(), 'run');
  const result = spawnSync(
    process.execPath,
    [...CLI, 'run', '--frameworks', 'node-http,fastify', '--routes', '1,5', '--samples', '2', '--warmup', '0', '--out', dir],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );

  it('every sample has the CPU time at every mark, in order', () => {
    assert.equal(result.status, 0, result.stderr);
    const samples = readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample');
    assert.equal(samples.length, 8);
    for (const s of samples) {
      assert.equal(s.ok, true, s.error);
      const cpu = s.cpu!;
      for (const name of CPU_METRICS) assert.equal(typeof cpu[name], 'number', `${name} in ${JSON.stringify(cpu)}`);
      CPU_METRICS.forEach((name, i) => i > 0 && assert.ok(cpu[CPU_METRICS[i - 1]!]! <= cpu[name]!, JSON.stringify(cpu)));
      assert.ok(cpu.start! > 0, 'the runtime used CPU before the first line of the file');
    }
  });

  it('summary.csv: the CPU statistics after every older column, equal to what the samples imply', () => {
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    const columns = Object.keys(rows[0]!);
    assert.deepEqual(columns.slice(0, SUMMARY_CSV_COLUMNS.length), SUMMARY_CSV_COLUMNS);
    // then the CPU statistics, then startup and listen from the child's first statement
    const last = [...CPU_CSV_COLUMNS, ...FROM_START_CSV_COLUMNS];
    assert.deepEqual(columns.slice(-last.length), last);
    assert.ok(CPU_CSV_COLUMNS.includes('cpu_firstResponse_median_ms') && CPU_CSV_COLUMNS.includes('cpu_listen_ci95_high_ms'));
    const samples = readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample');
    for (const row of rows) {
      const own = samples.filter((s) => s.cell.framework === row.framework && s.cell.routes === Number(row.routes));
      assert.ok(Math.abs(Number(row.cpu_firstResponse_median_ms) - median(own.map((s) => s.cpu!.firstResponse!))) < 0.001);
      assert.ok(Math.abs(Number(row.cpu_startup_max_ms) - Math.max(...own.map((s) => s.cpu!.startup!))) < 0.001);
    }
  });

  it('summary.md: CPU beside wall, the CPU/wall ratio and what it means', () => {
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(
      md,
      /\| firstResponse fastest–slowest \| CPU startup\(ms\) \| CPU listen\(ms\) \| CPU firstResponse\(ms\) \| CPU\/wall \|/,
    );
    assert.match(md, /\*\*CPU\/wall:\*\* .*Above 1: .*other threads .*less than one vCPU/);
    const header = md
      .split('\n')
      .find((l) => l.includes('| CPU/wall |'))!
      .split('|');
    const row = md.split('\n').find((l) => l.startsWith('| 1-startup-fastify-routes.js'))!;
    assert.match(row.split('|')[header.findIndex((h) => h.trim() === 'CPU/wall')]!, /^\s*\d+\.\d\d\s*$/, row);
  });
});

describe('a run folder recorded before the child reported CPU time', () => {
  it('still reports: no CPU columns in summary.md or summary.csv', async () => {
    const samples = [...samplesOf(cell('fastify', 10), spread(100, 5)), ...samplesOf(cell('fastify', 100), spread(150, 5))];
    const dir = writeRun(path.join(tempDir(), 'old'), samples, { samples: 5 });
    assert.ok(!readFileSync(path.join(dir, 'samples.jsonl'), 'utf8').includes('"cpu"'));
    await writeReport(dir);
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.doesNotMatch(md, /CPU firstResponse|CPU\/wall/);
    assert.match(md, /\| 10-startup-fastify-routes\.js/);
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    assert.equal(Number(rows[0]!.firstResponse_median_ms), 100);
    for (const column of CPU_CSV_COLUMNS) assert.ok(!(column in rows[0]!), column);
  });

  it('a stored cpu with a broken value keeps the good ones; the line stays a sample', () => {
    const dir = writeRun(path.join(tempDir(), 'mixed'), samplesOf(cell('fastify', 10), spread(100, 3)));
    const cpu = { start: 20, listen: 'fast', firstResponse: null, bogus: 3 };
    const broken = { ...samplesOf(cell('fastify', 10), [120])[0]!, index: 4, cpu };
    appendFileSync(path.join(dir, 'samples.jsonl'), JSON.stringify(broken) + '\n');
    const samples = readSamples(path.join(dir, 'samples.jsonl'));
    assert.equal(samples.length, 4);
    assert.deepEqual(samples[3]!.cpu, { start: 20 });
    assert.equal(samples[0]!.cpu, undefined);
  });
});
