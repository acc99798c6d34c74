/**
 * The finding on fastify's counted 1,000-route start per release (docs/findings/2026-11-27-bisect-fastify-1000.md)
 * against the folders it cites: every row of its table recomputed from the --versions run's samples.jsonl
 * (the total exactly, the change to the row before and to 4.0.0 to 0.01 %, the phases in millions), and the
 * two counts it quotes from the bisect's bisect.json.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { instructionFigures } from '../../metrics/analyse/instructions.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { ROOT } from '../support/in-process.ts';

const FINDING = path.join(ROOT, 'docs', 'findings', '2026-11-27-bisect-fastify-1000.md');
const RUN = path.join(ROOT, 'results', 'bisect', '2026-11-27-fastify-1000-versions');
const BISECT = path.join(ROOT, 'results', 'bisect', '2026-11-27-fastify-1000');

const text = () => readFileSync(FINDING, 'utf8');
const counted = () =>
  new Map(
    readSamples(path.join(RUN, 'samples.jsonl'))
      .filter((s) => s.phase === 'sample' && s.ok)
      .map((s) => [s.cell.version.replace(/^fastify@/, ''), instructionFigures(s.instructions ?? {}) as Record<string, number>]),
  );
const grouped = (n: number) => Math.round(n).toLocaleString('en-US');
const change = (a: number, b: number) => {
  const p = ((a - b) / b) * 100;
  return `${p >= 0 ? '+' : '−'}${Math.abs(p).toFixed(2)} %`;
};

describe('finding: fastify releases at 1,000 routes, counted', () => {
  it('links the run folder and the bisect folder its figures come from', () => {
    assert.ok(text().includes('](../../results/bisect/2026-11-27-fastify-1000-versions/)'));
    assert.ok(text().includes('](../../results/bisect/2026-11-27-fastify-1000/)'));
  });
  it("every row of the table is the run's count of that release", () => {
    const section = text().slice(text().indexOf('## The count per release'));
    const rows = section
      .split('\n')
      .filter((line) => /^\| \d+\.\d+\.\d+ \|/.test(line))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    const figures = counted();
    assert.equal(rows.length, figures.size, 'one row per counted release');
    const first = figures.get(rows[0]![0]!)!.total!;
    let previous: number | undefined;
    for (const [version, total, vsPrevious, vsFirst, imp, registration, listen, firstRequest] of rows) {
      const f = figures.get(version!);
      assert.ok(f, `${version} counted`);
      assert.equal(total, grouped(f.total!), `${version}: total`);
      assert.equal(vsPrevious, previous === undefined ? '–' : change(f.total!, previous), `${version}: vs previous`);
      assert.equal(vsFirst, previous === undefined ? '–' : change(f.total!, first), `${version}: vs 4.0.0`);
      assert.deepEqual(
        [imp, registration, listen, firstRequest],
        [grouped(f.import! / 1e6), grouped(f.registration! / 1e6), grouped(f.listen! / 1e6), (f.firstRequest! / 1e6).toFixed(1)],
        `${version}: phases`,
      );
      previous = f.total!;
    }
  });
  it("quotes the bisect's own counts of its two ends", () => {
    const state = JSON.parse(readFileSync(path.join(BISECT, 'bisect.json'), 'utf8')) as { results: Record<string, { value: number }> };
    for (const v of ['4.0.0', '5.12.8']) assert.ok(text().includes(grouped(state.results[v]!.value)), `${v}: ${state.results[v]!.value}`);
  });
});
