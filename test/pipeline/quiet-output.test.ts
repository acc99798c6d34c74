/**
 * Quieter, truer output (issue 38) on the default run with the fake sampler (every installed framework
 * at 8 route counts, 5 samples each): the outliers are one line on the console, however many cells have them (summary.md lists
 * them cell by cell), no levers.md is written when no lever varies, and the results tables show a
 * 95 % CI column only where it says more than the fastest–slowest range (never with 5 samples).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess, type MainResult } from '../support/main-in-process.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';

describe('the default run, quietly', () => {
  let dir: string;
  let result: MainResult;

  before(async () => {
    dir = path.join(tempDir('coldstart-quiet-'), 'run');
    result = await mainInProcess(['run', '--debug-mode', '--out', dir]);
  });

  it('exits 0', () => assert.equal(result.code, 0, result.stderr));

  it('gives the outliers of every cell in one console line, with the count summary.md lists', () => {
    const lines = result.stderr.split('\n').filter((l) => /outlier/i.test(l));
    assert.equal(lines.length, 1, lines.join('\n'));
    const [, count, cells] = /outliers \(MAD test\) in (\d+) of (\d+) cells; the medians resist them/.exec(lines[0]!) ?? [];
    const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    const listed = summary.split('\n').filter((l) => l.startsWith('- ⚠ outliers in ')).length;
    assert.ok(Number(count) > 1, 'the fake sampler plants outliers in several cells');
    assert.equal(Number(count), listed);
    // every cell of the run (its summary.csv rows), whatever frameworks are installed
    assert.equal(Number(cells), readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n').length - 1);
    assert.match(lines[0]!, /see Warnings in .*summary\.md$/);
    assert.match(summary, /^## Warnings$/m);
  });

  it('writes no levers.md: no lever varies', () => {
    assert.equal(existsSync(path.join(dir, 'levers.md')), false);
    assert.equal(existsSync(path.join(dir, 'summary.md')), true);
  });
});

/** The header row of summary.md's results table, and report.html's results table head. */
function headers(dir: string): { markdown: string; html: string } {
  const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
  const markdown = summary
    .split('## Results table')[1]!
    .split('\n')
    .find((l) => l.startsWith('|  |'))!;
  const html = /<table class="sortable" id="results">\n<thead>(.*?)<\/thead>/.exec(
    readFileSync(path.join(dir, 'report.html'), 'utf8'),
  )![1]!;
  return { markdown, html };
}

describe('the CI column only where it differs from the range', () => {
  it('5 samples: the column is the fastest–slowest range under its own name, and report.html has no CI column', async () => {
    const dir = path.join(tempDir('coldstart-quiet-ci-'), 'run');
    const result = await mainInProcess(['run', '--debug-mode', '-f', 'node-http,hono', '-r', '1,10', '--out', dir]);
    assert.equal(result.code, 0, result.stderr);
    const { markdown, html } = headers(dir);
    assert.match(markdown, /\| firstResponse fastest–slowest \|/);
    assert.doesNotMatch(markdown, /95% CI/);
    assert.doesNotMatch(html, /95% CI/);
    assert.match(html, /fastest–slowest/);
    // the column's figures are each cell's fastest and slowest sample
    const samples = readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample' && s.cell.framework === 'hono');
    const first = samples.filter((s) => s.cell.routes === 1).map((s) => s.marks!.firstResponse);
    const row = readFileSync(path.join(dir, 'summary.md'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('| 1-startup-hono-routes.js |'))!;
    const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
    assert.ok(row.includes(`| ${ms(Math.min(...first))}–${ms(Math.max(...first))} |`), `${row} vs ${first.join(', ')}`);
  });

  it('7 samples: the bootstrap CI is narrower than the range, and both tables show it', async () => {
    const dir = path.join(tempDir('coldstart-quiet-ci-'), 'run');
    const result = await mainInProcess(['run', '--debug-mode', '-f', 'node-http,hono', '-r', '1,10', '--samples', '7', '--out', dir]);
    assert.equal(result.code, 0, result.stderr);
    const { markdown, html } = headers(dir);
    assert.match(markdown, /\| firstResponse 95% CI \|/);
    assert.match(html, /firstResponse 95% CI/);
    assert.match(html, /fastest–slowest/);
  });
});
