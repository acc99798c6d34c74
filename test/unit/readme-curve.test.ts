/**
 * README's "How to read the per-route cost": the rows it quotes are rows of results/RESULTS.md's
 * "Cost of one more route" table of the run it names, and every figure its text reads out is one of
 * those rows' figures. Re-reporting a run that changes them fails here until the README follows.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const RESULTS = readFileSync(new URL('../../results/RESULTS.md', import.meta.url), 'utf8');

const cells = (row: string) =>
  row
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());

/** The README's example: from its marker to the next heading. */
function example(): { run: string; rows: string[][]; text: string } {
  const start = README.indexOf('<!-- per-route example:');
  assert.ok(start >= 0, 'README has the per-route example');
  const end = README.indexOf('\n#', start);
  const block = README.slice(start, end < 0 ? undefined : end);
  const run = /run (\S+) -->/.exec(block)?.[1];
  assert.ok(run, 'the marker names its run');
  const lines = block.split('\n');
  const rows = lines.filter((l) => l.startsWith('| ') && !l.startsWith('| series') && !l.startsWith('| ---')).map(cells);
  const text = lines.filter((l) => !l.startsWith('|') && !l.startsWith('<!--')).join(' ');
  return { run, rows, text };
}

/** RESULTS.md's section of one run. */
function section(run: string): string {
  const start = RESULTS.indexOf(`\n## ${run}\n`);
  assert.ok(start >= 0, `RESULTS.md has run ${run}`);
  const next = RESULTS.indexOf('\n## ', start + 1);
  return RESULTS.slice(start, next < 0 ? undefined : next);
}

describe("README's per-route cost example", () => {
  const { run, rows, text } = example();
  const published = section(run)
    .split('\n')
    .filter((l) => l.startsWith('| '))
    .map((l) => cells(l).join(' | '));

  it('quotes rows of the run in RESULTS.md, as they are', () => {
    assert.ok(rows.length >= 3, 'at least three rows');
    for (const row of rows) assert.ok(published.includes(row.join(' | ')), `not in RESULTS.md's ${run}: ${row.join(' | ')}`);
  });

  it("the method's fitted fastify figures are those of RESULTS.md", () => {
    const method = readFileSync(new URL('../../docs/guide/method.md', import.meta.url), 'utf8');
    const row = (name: string) =>
      section(name)
        .split('\n')
        .find((l) => l.startsWith('| fastify | first response |')) ?? '';
    const claims: [string, string[]][] = [
      ['2026-11-27-seed-table', ['0.636', '0.367']],
      ['2026-11-26-server-matrix', ['1.189', '0.338']],
    ];
    for (const [name, figures] of claims) {
      for (const figure of figures) {
        assert.ok(method.includes(figure), `method.md reads ${figure}`);
        assert.ok(row(name).includes(figure), `${figure} is in ${name}'s fastify first-response row`);
      }
    }
    assert.match(row('2026-11-27-seed-table'), /quadratic \| sub-linear/);
  });

  it('reads out only figures of those rows', () => {
    const figures = new Set(rows.flat().flatMap((c) => c.match(/-?\d+\.\d+/g) ?? []));
    const read = text.match(/\d+\.\d{3}/g) ?? [];
    assert.ok(read.length >= 5, 'the text reads figures out');
    for (const figure of read) assert.ok(figures.has(figure), `${figure} is not in the quoted rows`);
  });
});
