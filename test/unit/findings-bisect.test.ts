/**
 * The finding on fastify's counted 1,000-route start per release (docs/findings/2026-11-27-bisect-fastify-1000.md)
 * against the folders it cites: every row of its tables recomputed from the --versions runs' samples.jsonl
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
const RUNS = ['2026-11-27-fastify-1000-versions', '2026-11-27-fastify-1000-versions-4.1-4.4'].map((run) =>
  path.join(ROOT, 'results', 'bisect', run),
);
const BISECT = path.join(ROOT, 'results', 'bisect', '2026-11-27-fastify-1000');

const text = () => readFileSync(FINDING, 'utf8');
const counted = () =>
  new Map(
    RUNS.flatMap((run) => readSamples(path.join(run, 'samples.jsonl')))
      .filter((s) => s.phase === 'sample' && s.ok)
      .map((s) => [s.cell.version.replace(/^fastify@/, ''), instructionFigures(s.instructions ?? {}) as Record<string, number>]),
  );
/** The finding's count tables: each one's rows, as cells. */
const tables = () =>
  text()
    .split('| version | instructions |')
    .slice(1)
    .map((table) =>
      table
        .split('\n\n')[0]!
        .split('\n')
        .filter((line) => /^\| \d+\.\d+\.\d+ \|/.test(line))
        .map((line) =>
          line
            .split('|')
            .slice(1, -1)
            .map((c) => c.trim()),
        ),
    );
const grouped = (n: number) => Math.round(n).toLocaleString('en-US');
const change = (a: number, b: number) => {
  const p = ((a - b) / b) * 100;
  return `${p >= 0 ? '+' : '−'}${Math.abs(p).toFixed(2)} %`;
};

describe('finding: fastify releases at 1,000 routes, counted', () => {
  it('links the run folder and the bisect folder its figures come from', () => {
    for (const run of RUNS) assert.ok(text().includes(`](../../results/bisect/${path.basename(run)}/)`), run);
    assert.ok(text().includes('](../../results/bisect/2026-11-27-fastify-1000/)'));
  });
  it("every row of its tables is a run's count of that release", () => {
    const figures = counted();
    const found = tables();
    assert.ok(found.length >= 1);
    assert.equal(found[0]!.length, 14, 'the first table: one row per release of the first run');
    const first = figures.get('4.0.0')!.total!;
    for (const rows of found) {
      let previous: number | undefined;
      for (const [version, total, vsPrevious, vsFirst, imp, registration, listen, firstRequest] of rows) {
        const f = figures.get(version!);
        assert.ok(f, `${version} counted`);
        assert.equal(total, grouped(f.total!), `${version}: total`);
        assert.equal(vsPrevious, previous === undefined ? '–' : change(f.total!, previous), `${version}: vs previous`);
        assert.equal(vsFirst, version === '4.0.0' ? '–' : change(f.total!, first), `${version}: vs 4.0.0`);
        assert.deepEqual(
          [imp, registration, listen, firstRequest],
          [grouped(f.import! / 1e6), grouped(f.registration! / 1e6), grouped(f.listen! / 1e6), (f.firstRequest! / 1e6).toFixed(1)],
          `${version}: phases`,
        );
        previous = f.total!;
      }
    }
  });
  it("quotes the bisect's own counts of its two ends", () => {
    const state = JSON.parse(readFileSync(path.join(BISECT, 'bisect.json'), 'utf8')) as { results: Record<string, { value: number }> };
    for (const v of ['4.0.0', '5.12.8']) assert.ok(text().includes(grouped(state.results[v]!.value)), `${v}: ${state.results[v]!.value}`);
  });
});
