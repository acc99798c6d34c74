/**
 * `lambda:run --dry-run` priced from the tool's own estimate (issue 51): with `--estimate RUN` each function's cell
 * is priced at the Billed Duration RUN estimated for it (here the published Lambda run's), the plan says from which
 * run and for how many cells, and a cell RUN has no estimate of keeps the assumed 1,000 ms, said so; without it,
 * the plan says the 1,000 ms is an assumption. Before, every dry run priced 1,000 ms a cold start without a word.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../metrics/core/paths.ts';
import { PRICE_PER_GB_SECOND, REQUEST_PRICE_PER_MILLION } from '../../metrics/core/lambda-platform.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const RUN = path.join(PROJECT_ROOT, 'results', 'published', '2026-11-26-lambda');
const DRY = ['lambda-run', '-f', 'fastify', '-r', '1,1000', '--region', 'eu-west-1', '--create-role', '--dry-run'];

/** The published run's estimate of fastify's Billed Duration at `routes` on x86_64, read from its summary.csv. */
function publishedBilledMs(routes: number): number {
  const [header, ...rows] = readFileSync(path.join(RUN, 'summary.csv'), 'utf8').trim().split('\n');
  const column = header!.split(',').indexOf('estimate_billed_duration_ms_x86_64');
  // the file column is quoted and holds commas: the cell's own columns come first, the estimate is counted from the end
  const fromEnd = header!.split(',').length - column;
  const row = rows.find((r) => r.startsWith(`fastify,validated,${routes},lambda,1024,`))!;
  const fields = row.split(',');
  return Number(fields[fields.length - fromEnd]);
}

/** The cost of 10 cold starts a cell at 1024 MB on x86_64, as the plan prints it. */
function dollarsOf(billedMs: readonly number[]): string {
  const value = billedMs.reduce((sum, ms) => sum + 10 * ((ms / 1000) * PRICE_PER_GB_SECOND.x86_64 + REQUEST_PRICE_PER_MILLION / 1e6), 0);
  return `$${value.toFixed(4)}`;
}

describe("lambda:run --dry-run priced from the tool's own estimate", () => {
  it('without --estimate: 1000 ms a cold start, said to be an assumption, and how to price it from an estimate', async () => {
    const result = await mainInProcess([...DRY, '--init', 'lazy']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^estimated cost: \\${dollarsOf([1000, 1000])} at 1000 ms billed a cold start \\(at most`, 'm'));
    assert.match(
      result.stdout,
      /^ {2}1000 ms billed a cold start is an assumption, not the tool's estimate: --estimate RUN \(a local run of these cells\) prices/m,
    );
  });

  it('with --estimate: each cell at the Billed Duration the run estimated, the run named, the build it estimated said', async () => {
    const billed = [publishedBilledMs(1), publishedBilledMs(1000)];
    assert.ok(
      billed.every((ms) => ms > 0 && ms !== 1000),
      String(billed),
    );
    const result = await mainInProcess([...DRY, '--init', 'lazy', '--estimate', RUN]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      new RegExp(`^estimated cost: \\${dollarsOf(billed)} from the estimates of \\S*2026-11-26-lambda \\(at most`, 'm'),
    );
    const [low, high] = [Math.min(...billed), Math.max(...billed)];
    assert.match(
      result.stdout,
      new RegExp(
        `^ {2}2 of 2 cells priced at the Billed Duration \\S*2026-11-26-lambda estimated for them \\(${low}–${high} ms; ` +
          'estimated as built there: plain, the functions ship a bundle\\)$',
        'm',
      ),
    );
  });

  it('a cell the run has no estimate of (an eager one) keeps the assumption, and the plan says how many', async () => {
    const result = await mainInProcess([...DRY, '--init', 'eager,lazy', '--estimate', RUN]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /^ {2}2 of 4 cells priced at [^\n]*; the other 2 at 1000 ms a cold start, an assumption \(\S*-lambda has no estimate of them\)$/m,
    );
  });

  it('an --estimate that is not a run with Lambda estimates: one line, exit 2', async () => {
    const server = await mainInProcess([...DRY, '--estimate', path.join(PROJECT_ROOT, 'results', 'published', '2026-11-26-server')]);
    assert.equal(server.code, 2);
    assert.match(server.stderr, /^coldstart: --estimate \S*-server: the run holds no Lambda estimate \(a local run of Lambda cells/);
    assert.equal(server.stderr.trim().split('\n').length, 1);
    const none = await mainInProcess([...DRY, '--estimate', path.join(PROJECT_ROOT, 'docs')]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^coldstart: --estimate: \S+samples\.jsonl does not exist: give a run folder/);
  });
});
