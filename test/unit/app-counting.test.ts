/**
 * Counting the user's own apps (`measure --measure instructions`), without valgrind: a server app is
 * cut at the preload's three marks and its start-up (start → listen) is one phase, `ready`; a handler
 * under the probe is cut like a generated Lambda cell; more cuts than marks name the app's own
 * getrusage(); an uncountable app cell gives every reason at once; `ready` reaches summary.csv, the
 * counts table and compare only in runs that counted an app server.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { compareSummaries, emptyGate, parseMetricName } from '../../metrics/analyse/compare.ts';
import { instructionFigures } from '../../metrics/analyse/instructions.ts';
import { APP_SOURCE, makeCell, type Cell } from '../../metrics/core/cell.ts';
import type { InstructionMarks, SampleRecord } from '../../metrics/core/samples.ts';
import { COUNT_MARKS, countsFromDumps, countShapeOf, type Dump } from '../../metrics/measure/counting.ts';
import { uncountable } from '../../metrics/plan/cells.ts';
import { summaryCsv } from '../../metrics/report/csv.ts';

const cut = (instructions: number): Dump => ({ trigger: '--dump-before=getrusage', instructions });
const appCell = (extra: Partial<Cell> = {}): Cell =>
  makeCell({ framework: 'shop', variant: 'plain', routes: 1, source: APP_SOURCE, measure: 'instructions', ...extra });

function countedSample(cell: Cell, instructions: InstructionMarks): SampleRecord {
  return {
    cell,
    phase: 'sample',
    index: 1,
    ok: true,
    marks: { start: 10, listen: 20, firstResponse: 30 },
    instructions,
    durationMs: 40,
    at: '2026-01-01T00:00:00.000Z',
  };
}

describe("an app's cuts", () => {
  it('a server app: three cuts (start, listen, firstResponse); boot, ready, first request and total', () => {
    assert.equal(countShapeOf(appCell()), 'app-server');
    const counts = countsFromDumps([cut(100), cut(300), cut(20)], 'app-server');
    assert.deepEqual(counts, { start: 100, listen: 400, firstResponse: 420 });
    assert.deepEqual(instructionFigures(counts as InstructionMarks), { boot: 100, ready: 300, firstRequest: 20, total: 420 });
  });

  it("a handler (under the probe) is cut as a generated Lambda cell; a generated server has no 'ready'", () => {
    assert.equal(countShapeOf(appCell({ target: 'lambda', bootstrap: 'probe' })), 'lambda');
    assert.equal(countShapeOf(makeCell({ framework: 'hono', variant: 'plain', routes: 1 })), 'server');
    assert.deepEqual(COUNT_MARKS.lambda, ['start', 'imported', 'startup', 'init', 'firstResponse']);
    const generated = instructionFigures({ start: 1, imported: 2, startup: 3, listen: 4, firstResponse: 5 });
    assert.equal(generated.ready, undefined);
  });

  it("more cuts than marks: the reason names the app's own process.cpuUsage(); fewer: no such hint", () => {
    const extra = countsFromDumps([cut(1), cut(2), cut(3), cut(4)], 'app-server');
    assert.equal(typeof extra, 'string');
    assert.match(extra as string, /expected 3 cuts .* wrote 4 .*process\.cpuUsage\(\)/);
    const fewer = countsFromDumps([cut(1), cut(2)], 'app-server') as string;
    assert.match(fewer, /expected 3 cuts .* wrote 2/);
    assert.doesNotMatch(fewer, /cpuUsage/);
  });
});

describe('which app cells can be counted', () => {
  it('a handler under the client from a cold file cache: both reasons in one line, each with its option', () => {
    const why = uncountable(appCell({ target: 'lambda', bootstrap: 'ric', fileCache: 'cold', runtime: 'nodejs24.x' }), 'node') ?? '';
    assert.match(why, /--lambda-bootstrap probe; .*--file-cache warm/);
    assert.equal(uncountable(appCell({ target: 'lambda', bootstrap: 'probe', fileCache: 'warm' }), 'node'), undefined);
    assert.equal(uncountable(appCell(), 'node'), undefined);
    assert.match(uncountable(appCell({ memory: 512 }), 'node') ?? '', /memory size/);
  });
});

describe("'ready' in the outputs", () => {
  const server = (framework: string, ready: number) =>
    countedSample(appCell({ framework }), { start: 100, listen: 100 + ready, firstResponse: 120 + ready });

  it('summary.csv has instructions_ready_median only in a run that counted an app server', () => {
    const [appHeader, row] = summaryCsv(aggregate([server('shop', 300)]), () => 'f')
      .trim()
      .split('\n');
    assert.match(appHeader!, /instructions_boot_median,instructions_ready_median,instructions_import_median/);
    // the instruction columns, then startup from the first statement (none: an app has no startup mark) and listen's
    // (the sample's wall marks: start 20, listen 30)
    assert.match(row!, /,100,300,,,,,20,420,420,420,0,{9}10,10,,10,10,,,0$/);
    const generated = countedSample(makeCell({ framework: 'hono', variant: 'plain', routes: 1, measure: 'instructions' }), {
      start: 1,
      imported: 2,
      startup: 3,
      listen: 4,
      firstResponse: 5,
    });
    assert.doesNotMatch(summaryCsv(aggregate([generated]), () => 'f').split('\n')[0]!, /ready/);
  });

  it('compare --metric instructions.ready: 1 % more start-up work is a regression, the same count is not', () => {
    assert.equal(parseMetricName('instructions.ready'), 'instructions.ready');
    const a = aggregate([server('shop', 1_000_000)]);
    const same = compareSummaries(a, aggregate([server('shop', 1_000_000)]), ['instructions.ready'], 1);
    assert.equal(same.rows[0]!.verdict, 'no significant change');
    assert.equal(same.rows[0]!.fails, false);
    const more = compareSummaries(a, aggregate([server('shop', 1_010_000)]), ['instructions.ready'], 1);
    assert.equal(more.rows[0]!.verdict, 'regression');
    assert.equal(more.rows[0]!.fails, true);
  });

  it('a gate that compared nothing does not pass: no shared cell, or none with the metric', () => {
    const a = aggregate([server('shop', 1_000_000)]);
    assert.equal(emptyGate(compareSummaries(a, a, ['instructions'], 1.005)), undefined);
    assert.equal(emptyGate(compareSummaries(a, aggregate([server('cart', 1)]), ['instructions'])), undefined, 'no gate asked');
    assert.match(emptyGate(compareSummaries(a, aggregate([server('cart', 1)]), ['instructions'], 1.005)) ?? '', /nothing to gate/);
    assert.match(emptyGate(compareSummaries(a, a, ['instructions.import'], 1)) ?? '', /no cell in both runs recorded instructions\.import/);
  });
});
