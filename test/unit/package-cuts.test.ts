/**
 * `--count-packages`: the preload's log replayed over callgrind's dumps. Each dump's instructions go to the
 * package whose loading was innermost when they ran (nested packages count to themselves), the cuts between two
 * marks are summed back into the later mark's dump (the marks' counts stay those of the sample), the work after the
 * last mark counts to nobody, and a log that does not fit the dumps is a one-line reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { packageCounts, parseCutLog, type CutDump, type CutEvent } from '../../metrics/measure/package-cuts.ts';
import { countsFromDumps } from '../../metrics/measure/counting.ts';

const cut = (instructions: number, cycles?: number): CutDump => ({
  trigger: '--dump-before=getrusage',
  instructions,
  ...(cycles === undefined ? {} : { cycles }),
});
const kind = (dump: CutDump) => (dump.trigger.includes('coldstart-init') ? 'init' : dump.trigger.includes('getrusage') ? 'cut' : 'other');
const app = (file: string) => `/srv/app/${file}`;
const pkg = (name: string) => `/srv/app/node_modules/${name}/index.js`;

describe('package cuts: the log replayed over the dumps', () => {
  // start mark; enter alpha; (alpha) enter beta; (beta) leave; (alpha) leave; listen mark; first answer mark; a late load
  const events: CutEvent[] = [
    ['mark'],
    ['enter', pkg('alpha')],
    ['enter', pkg('beta')],
    ['leave'],
    ['leave'],
    ['mark'],
    ['mark'],
    ['enter', pkg('gamma')],
  ];
  const dumps = [cut(1000), cut(50), cut(300), cut(20), cut(100), cut(400), cut(200), cut(7)];

  it("gives each package its own instructions: a nested package's are not its loader's", () => {
    const split = packageCounts(dumps, events, kind);
    assert.ok(typeof split !== 'string');
    // (app): 1000 before start, 50 before alpha, 400 after alpha until listen, 200 to the first answer
    // alpha: 300 before it loads beta, 100 after beta returns; beta: 20
    assert.deepEqual(split.packages, { '(app)': 1650, alpha: 400, beta: 20 });
    const total = Object.values(split.packages).reduce((a, b) => a + b, 0);
    assert.equal(total, 1000 + 50 + 300 + 20 + 100 + 400 + 200);
  });

  it("sums the cuts between two marks into the later mark's dump, so the marks' counts are the sample's", () => {
    const split = packageCounts(dumps, events, kind);
    assert.ok(typeof split !== 'string');
    assert.deepEqual(
      split.markDumps.map((d) => d.instructions),
      [1000, 50 + 300 + 20 + 100 + 400, 200],
    );
    assert.deepEqual(countsFromDumps(split.markDumps, 'app-server'), { start: 1000, listen: 1870, firstResponse: 2070 });
  });

  it('carries the cycles of the cache simulation the same way', () => {
    const split = packageCounts([cut(10, 30), cut(5, 9), cut(4, 8), cut(1, 2)], [['mark'], ['enter', pkg('a')], ['leave'], ['mark']], kind);
    assert.ok(typeof split !== 'string');
    assert.deepEqual(split.markDumps, [cut(10, 30), cut(10, 19)]);
  });

  it("names a scoped package, a nested node_modules' package and the app's own files a package loads", () => {
    const split = packageCounts(
      [cut(1), cut(2), cut(3), cut(4), cut(5), cut(6), cut(7)],
      [
        ['enter', '/srv/app/node_modules/@scope/one/lib/x.js'],
        ['enter', '/srv/app/node_modules/@scope/one/node_modules/two/i.js'],
        ['leave'],
        ['enter', app('plugins/p.js')],
        ['leave'],
        ['leave'],
        ['mark'],
      ],
      kind,
    );
    assert.ok(typeof split !== 'string');
    assert.deepEqual(split.packages, { '(app)': 1 + 5 + 7, '@scope/one': 2 + 4 + 6, two: 3 });
  });

  it('takes the Lambda INIT cut (no log event) as a mark', () => {
    const init: CutDump = { trigger: 'Client Request: coldstart-init', instructions: 9 };
    const split = packageCounts([cut(1), cut(2), init, cut(3)], [['enter', pkg('a')], ['leave'], ['mark']], kind);
    assert.ok(typeof split !== 'string');
    assert.deepEqual(split.packages, { '(app)': 1 + 9 + 3, a: 2 });
    assert.deepEqual(
      split.markDumps.map((d) => d.instructions),
      [12, 3],
    );
  });

  it('refuses a log that does not fit the dumps, in one line', () => {
    assert.match(packageCounts([cut(1), cut(2)], [['mark']], kind) as string, /log has 1 events, callgrind wrote 2 cuts/);
    assert.match(packageCounts([cut(1), cut(2)], [['leave'], ['mark']], kind) as string, /leaves a package it never entered/);
    assert.match(parseCutLog('{') as string, /not JSON/);
    assert.match(parseCutLog('[["enter"]]') as string, /not a list of cut events/);
    assert.deepEqual(parseCutLog('[["mark"],["enter","/a"],["leave"]]'), [['mark'], ['enter', '/a'], ['leave']]);
  });
});
