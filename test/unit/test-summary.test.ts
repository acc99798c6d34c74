/**
 * The line of totals `npm test` and `npm run test:all` end with (metrics/tools/test-summary.ts): the
 * counts read from the end of Node's TAP, added up over the layers, with each step's time and the whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summaryLine, tapTotals } from '../../metrics/tools/test-summary.ts';

/** TAP as Node 20's runner writes it for two files, one with a subtest that prints `# …` diagnostics of its own. */
const TAP = `TAP version 13
# Subtest: test/unit/a.test.ts
    # Subtest: parses
    ok 1 - parses
      ---
      duration_ms: 1.2
      ...
    # tests 40
    # pass 40
    1..1
ok 1 - test/unit/a.test.ts
  ---
  duration_ms: 300.1
  ...
# Subtest: test/unit/b.test.ts
not ok 2 - test/unit/b.test.ts
  ---
  duration_ms: 12.5
  failureType: 'testCodeFailure'
  ...
1..2
# tests 1203
# suites 4
# pass 1190
# fail 2
# cancelled 1
# skipped 9
# todo 1
# duration_ms 61234.5
`;

test('tapTotals reads the top-level totals at the end, not a test diagnostic indented above them', () => {
  assert.deepEqual(tapTotals(TAP), { tests: 1203, pass: 1190, fail: 2, cancelled: 1, skipped: 9, todo: 1 });
});

test('tapTotals: a stream that ended before its totals has none', () => {
  assert.equal(tapTotals(TAP.slice(0, TAP.indexOf('1..2'))), undefined);
  assert.equal(tapTotals(''), undefined);
});

test('summaryLine adds the layers up, gives each step its time and the whole', () => {
  const line = summaryLine(
    [
      { name: 'checks', seconds: 35.6, code: 0 },
      { name: 'unit', seconds: 86.6, code: 0, totals: { tests: 1701, pass: 1690, fail: 0, cancelled: 0, skipped: 11, todo: 0 } },
      { name: 'smoke', seconds: 7.2, code: 0, totals: { tests: 5, pass: 5, fail: 0, cancelled: 0, skipped: 0, todo: 0 } },
    ],
    130.4,
  );
  assert.equal(line, 'test-run: 1,706 tests, 1,695 pass, 0 fail, 11 skipped; checks 36 s, unit 87 s, smoke 7 s; whole 130 s');
});

test('summaryLine counts cancelled tests as failures, names todo tests and the step that failed with its exit code', () => {
  const line = summaryLine(
    [
      { name: 'checks', seconds: 30, code: 0 },
      { name: 'unit', seconds: 80, code: 1, totals: { tests: 1203, pass: 1190, fail: 2, cancelled: 1, skipped: 9, todo: 1 } },
    ],
    111,
  );
  assert.equal(line, 'test-run: 1,203 tests, 1,190 pass, 3 fail, 9 skipped, 1 todo; checks 30 s, unit 80 s (exit 1); whole 111 s');
});

test('summaryLine of checks that failed before any test ran', () => {
  assert.equal(
    summaryLine([{ name: 'checks', seconds: 40, code: 2 }], 40),
    'test-run: 0 tests, 0 pass, 0 fail, 0 skipped; checks 40 s (exit 2); whole 40 s',
  );
});
