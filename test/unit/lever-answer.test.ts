/**
 * The levers' answer (analyse/answer.ts, report/answer.ts): the Pareto front on points whose front is
 * known by hand, and the answer table of known summaries written out in full (golden-style): each
 * variant's spread, ratio, cost, package bytes, marks and what to change; the variants that are
 * unsupported or answer differently listed with their reason and not ranked.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { hasAnswer, hasVariants, leverAnswer, paretoFront } from '../../metrics/analyse/answer.ts';
import { resolveCost } from '../../metrics/analyse/cost.ts';
import { APP_SOURCE, cellKey, makeCell, type Cell } from '../../metrics/core/cell.ts';
import type { ShippedMeta } from '../../metrics/core/meta.ts';
import { fixture } from '../support/in-process.ts';
import { normalizeMeta } from '../../metrics/core/meta.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { blockedRecord } from '../../metrics/measure/sample.ts';
import { answerMarkdown, answerSpec, answerTable, bytesText, packagingLine } from '../../metrics/report/answer.ts';

describe('paretoFront', () => {
  it('keeps exactly the points no other point dominates', () => {
    // (ms, bytes): c is dominated by a (faster and smaller); d by b; e ties a and stays
    const points = [
      [100, 500],
      [80, 900],
      [120, 600],
      [90, 950],
      [100, 500],
      [200, 100],
    ];
    assert.deepEqual(paretoFront(points), [true, true, false, false, true, true]);
  });

  it('one objective: only the lowest; one point: on the front', () => {
    assert.deepEqual(paretoFront([[3], [1], [2], [1]]), [false, true, false, true]);
    assert.deepEqual(paretoFront([[5, 5]]), [true]);
  });
});

const AT = '2026-11-26T00:00:00Z';

function app(fields: Partial<Cell>): Cell {
  return makeCell({ framework: 'shop', variant: 'plain', routes: 1, source: APP_SOURCE, ...fields });
}

/** Samples of `cell` answering at each of `values` ms, or runs failed with `error`, or an unsupported cell. */
function runs(cell: Cell, values: number[] | { error: string } | { unsupported: string }): SampleRecord[] {
  if ('unsupported' in values)
    return [1, 2].map((index) => blockedRecord({ cell, phase: 'sample', index }, { kind: 'unsupported', reason: values.unsupported }));
  if ('error' in values)
    return [1, 2].map((index) => ({ cell, phase: 'sample', index, ok: false, error: values.error, durationMs: 1, at: AT }));
  return values.map((firstResponse, i) => ({
    cell,
    phase: 'sample',
    index: i + 1,
    ok: true,
    marks: { processStart: 1, start: 5, imported: firstResponse / 2, startup: firstResponse - 3, listen: firstResponse - 2, firstResponse },
    durationMs: firstResponse,
    at: AT,
  }));
}

const plain = app({});
const bundle = app({ build: 'bundle' });
const min = app({ build: 'bundle-min' });
const warm = app({ compileCache: 'warm' });
const bundleWarm = app({ build: 'bundle', compileCache: 'warm' });
const minWarm = app({ build: 'bundle-min', compileCache: 'warm' });
const DIFFERS = 'answers differently from the plain build: body {"by":"a"}, the plain build\'s {"by":"greeting"}';

const samples = [
  ...runs(plain, [200, 210, 220, 230]),
  ...runs(bundle, [120, 125, 130, 135]),
  ...runs(min, { error: DIFFERS }),
  ...runs(warm, [150, 160, 170, 180]),
  // bundle + warm cache: the fastest, but the cache adds bytes, so the plain bundle stays on the front (smaller)
  ...runs(bundleWarm, [100, 105, 110, 115]),
  ...runs(minWarm, { unsupported: 'compile cache needs Node >= 22.1' }),
];
const shipped: ShippedMeta = {
  code: {
    [cellKey(plain)]: { bytes: 4_200_000, what: "the app's 1 file and the 40 package folders it loads" },
    [cellKey(warm)]: { bytes: 4_200_000, what: "the app's 1 file and the 40 package folders it loads" },
    [cellKey(bundle)]: { bytes: 1_500_000, what: 'the bundle' },
    [cellKey(bundleWarm)]: { bytes: 1_500_000, what: 'the bundle' },
  },
  compileCache: { [cellKey(warm)]: 2_000_000, [cellKey(bundleWarm)]: 900_000 },
};
const meta = normalizeMeta({
  version: 2,
  spec: {
    source: { kind: 'apps', apps: [{ name: 'shop', kind: 'server', file: '/somewhere/of/the/user/server.js' }] },
    cells: { runtimes: ['node'], builds: ['plain', 'bundle', 'bundle-min'], compileCaches: ['off', 'warm'] },
  },
  runtimes: { node: 'v22.12.0' },
  shipped,
});
const summaries = aggregate(samples);
const cost = resolveCost();
const inputs = { cost, calibration: new Map(), shipped };

describe('the answer of known summaries', () => {
  const group = leverAnswer(summaries, inputs)[0]!;

  it('one group for the app, ranked fastest first, the unranked last with their reasons', () => {
    assert.ok(group);
    assert.equal(leverAnswer(summaries, inputs).length, 1);
    assert.deepEqual(
      group.variants.map((v) => `${v.summary.cell.build}/${v.summary.cell.compileCache}`),
      ['bundle/warm', 'bundle/off', 'plain/warm', 'plain/off', 'bundle-min/off', 'bundle-min/warm'],
    );
    assert.equal(group.variants[4]!.unranked, DIFFERS);
    assert.equal(group.variants[5]!.unranked, 'unsupported: compile cache needs Node >= 22.1');
  });

  it('the front on cold start, cost and bytes: the fastest, the smallest; the slower and larger ones dominated', () => {
    assert.deepEqual(group.objectives, ['coldStart', 'cost', 'bytes']);
    const by = (build: string, cache: string) =>
      group.variants.find((v) => v.summary.cell.build === build && v.summary.cell.compileCache === cache)!;
    assert.equal(by('bundle', 'warm').front, true);
    assert.equal(by('bundle', 'warm').fastest, true);
    assert.equal(by('bundle', 'warm').cheapest, true);
    assert.equal(by('bundle', 'off').front, true, 'the bundle without its cache ships fewer bytes');
    assert.equal(by('bundle', 'off').smallest, true);
    assert.equal(by('plain', 'warm').front, false);
    assert.equal(by('plain', 'off').front, false);
    assert.equal(by('bundle', 'warm').shipped?.bytes, 2_400_000, 'the bundle and its compile cache');
  });

  it('the table, byte for byte', () => {
    const bases = { build: 'plain', compileCache: 'off', runtime: 'node' };
    // the expected table, as a reviewer reads it: test/fixtures/lever-answer-table.md
    assert.equal(answerTable(group, bases, meta) + '\n', readFileSync(fixture('lever-answer-table.md'), 'utf8'));
  });

  it('the section names the fastest and the cheapest, and says no path of the machine', () => {
    const text = answerMarkdown({ summaries, cost, calibration: new Map(), meta }, '###')!;
    assert.match(text, /### shop \(your server\)/);
    assert.match(text, /- Fastest: \*\*bundle · cache warm\*\*, 108 ms at the median\./);
    assert.match(text, /- Cheapest: the same variant \(\$1\.79 per million cold starts\)\./);
    assert.doesNotMatch(text, /somewhere/);
  });

  it('the chart plots the ranked variants by their bytes, the front marked', () => {
    const spec = answerSpec([group]) as { data: { values: { x: number; front: string; variant: string }[] } };
    assert.equal(spec.data.values.length, 4);
    assert.deepEqual(
      spec.data.values.map((v) => [v.variant, v.x, v.front]),
      [
        ['bundle · cache warm', 2_400_000, 'on the front'],
        ['bundle · cache off', 1_500_000, 'on the front'],
        ['plain · cache warm', 6_200_000, 'dominated'],
        ['plain · cache off', 4_200_000, 'dominated'],
      ],
    );
  });

  it('without sizes (an older run) the front is decided on cold start and cost, and no package column is shown', () => {
    const [old] = leverAnswer(summaries, { cost, calibration: new Map() });
    assert.deepEqual(old!.objectives, ['coldStart', 'cost']);
    assert.equal(old!.variants.filter((v) => v.front).length, 1);
    assert.doesNotMatch(answerTable(old!, { build: 'plain', compileCache: 'off', runtime: 'node' }, undefined), /package/);
  });

  it('a server beside its Lambda handler differs in runtime, but as two apps: no variants', () => {
    const server = makeCell({ framework: 'hono', variant: 'validated', routes: 1 });
    const lambda = makeCell({ framework: 'hono', variant: 'validated', routes: 1, target: 'lambda', runtime: 'nodejs24.x' });
    const reference = makeCell({
      framework: 'reference',
      variant: 'validated',
      routes: 1,
      target: 'lambda',
      runtime: 'nodejs24.x',
      build: 'bundle',
    });
    assert.equal(hasVariants([server, lambda, reference]), false);
    assert.equal(hasVariants([server, lambda, { ...lambda, build: 'bundle' }]), true);
  });

  it('no answer when no build, compile cache or runtime varies', () => {
    const one = aggregate(runs(plain, [100, 110]));
    assert.equal(hasAnswer(one), false);
    assert.deepEqual(leverAnswer(one, inputs), []);
    assert.equal(answerMarkdown({ summaries: one, cost, calibration: new Map(), meta: undefined }, '###'), undefined);
  });
});

describe('packaging the fastest handler', () => {
  it('a generated handler: the lambda:package command with its build; a compile cache said not to ship, with why', () => {
    const cells = [
      makeCell({ framework: 'hono', variant: 'validated', routes: 1000, target: 'lambda', runtime: 'nodejs24.x', build: 'plain' }),
      makeCell({
        framework: 'hono',
        variant: 'validated',
        routes: 1000,
        target: 'lambda',
        runtime: 'nodejs24.x',
        build: 'bundle-min',
        compileCache: 'warm',
      }),
    ];
    const [group] = leverAnswer(aggregate([...runs(cells[0]!, [300, 310]), ...runs(cells[1]!, [150, 160])]), {
      cost,
      calibration: new Map(),
    });
    const line = packagingLine(group!)!;
    assert.match(
      line,
      /npm run lambda:package -- --frameworks hono --routes 1000 --variant validated --lambda-runtime nodejs24\.x --build bundle-min/,
    );
    assert.match(line, /no compile cache: a cache holds code for the one Node build that wrote it/);
  });

  it("the user's handler: not lambda:package, and what to zip instead", () => {
    const cells = [app({ target: 'lambda', runtime: 'nodejs24.x' }), app({ target: 'lambda', runtime: 'nodejs24.x', build: 'bundle' })];
    const [group] = leverAnswer(aggregate([...runs(cells[0]!, [300, 310]), ...runs(cells[1]!, [150, 160])]), {
      cost,
      calibration: new Map(),
    });
    assert.match(packagingLine(group!)!, /packages generated cells only, not your handler: zip the bundle/);
  });

  it("a handler's eager cell (--init-export): its own group, index.mjs bundled as an ES module and zipped as such", () => {
    const cells = [
      app({ target: 'lambda', runtime: 'nodejs24.x', init: 'eager' }),
      app({ target: 'lambda', runtime: 'nodejs24.x', build: 'bundle', init: 'eager' }),
    ];
    const eager = aggregate([...runs(cells[0]!, [300, 310]), ...runs(cells[1]!, [150, 160])]);
    const [group] = leverAnswer(eager, { cost, calibration: new Map() });
    assert.match(packagingLine(group!)!, /zip the bundle the esbuild command above writes as `index\.mjs`/);
    const text = answerMarkdown({ summaries: eager, cost, calibration: new Map(), meta: undefined }, '###')!;
    assert.match(text, /### shop \(your handler; start probe, file cache warm, init eager: index\.mjs awaits its init export in INIT\)/);
    assert.match(text, /`esbuild index\.mjs --bundle --platform=node --format=esm --target=node24 --outfile=dist\/index\.mjs`/);
  });

  it('a server has no packaging line', () => {
    const [group] = leverAnswer(summaries, inputs);
    assert.equal(packagingLine(group!), undefined);
  });
});

describe('bytesText', () => {
  it('decimal units', () => {
    assert.deepEqual(
      [bytesText(999), bytesText(1500), bytesText(2_400_000), bytesText(250_000_000), bytesText(undefined)],
      ['999 B', '1.5 kB', '2.40 MB', '250 MB', '–'],
    );
  });
});
