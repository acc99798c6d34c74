/**
 * The progress of a run (metrics/measure/progress.ts): without a terminal one line per finished
 * cell, one per failed sample, and a heartbeat line when nothing else was printed for a while; on
 * a terminal a bar with done/total. Streams are fakes that keep what was written.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { contractOf } from '../../generators/contract.ts';
import { cellLabel, makeCell, type Cell } from '../../metrics/core/cell.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { Progress } from '../../metrics/measure/progress.ts';
import { blockedRecord } from '../../metrics/measure/sample.ts';
import type { PlannedCell } from '../../metrics/plan/cells.ts';
import { buildPlan, type PlannedRun } from '../../metrics/plan/order.ts';
import { waitFor } from '../support/in-process.ts';

/** A stream that keeps what is written; `isTTY` makes it look like a terminal. */
function fakeStream(isTTY: boolean): NodeJS.WriteStream & { text(): string } {
  const chunks: string[] = [];
  const stream = {
    isTTY,
    columns: 160,
    write(chunk: string | Uint8Array, callback?: unknown) {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      if (typeof callback === 'function') (callback as () => void)();
      return true;
    },
    text: () => stripVTControlCharacters(chunks.join('')),
  };
  return stream as unknown as NodeJS.WriteStream & { text(): string };
}

const fast = makeCell({ framework: 'node-http', variant: 'validated', routes: 1 });
const flaky = makeCell({ framework: 'node-http', variant: 'validated', routes: 10 });
const uncached = makeCell({ framework: 'node-http', variant: 'validated', routes: 1, compileCache: 'cold' });

function planned(cell: Cell): PlannedCell {
  const unsupported = cell.compileCache !== 'off';
  return {
    cell,
    launch: unsupported ? undefined : { command: process.execPath, file: 'x.js', compileCache: 'off' },
    blocked: unsupported ? { kind: 'unsupported', reason: 'no compile cache here' } : undefined,
    contract: contractOf({}),
    validates: true,
  };
}

/** Two samples and a warm-up per cell, interleaved, and one run of the unsupported cell: 7 runs. */
const plan = buildPlan([fast, flaky, uncached].map(planned), { samples: 2, warmup: 1, order: 'interleaved', seed: 's', countSamples: 1 });

/** What each run gives: fast answers in 10 and 20 ms; flaky's warm-up and second sample fail; uncached is unsupported. */
function outcome(run: PlannedRun): SampleRecord {
  if (run.planned.blocked) return blockedRecord(run, run.planned.blocked);
  const base = { cell: run.cell, phase: run.phase, index: run.index, durationMs: 40, at: '2026-01-01T00:00:00Z' };
  if (run.cell === flaky && (run.phase === 'warmup' || run.index === 2))
    return { ...base, ok: false, error: 'exited with code 1 before it was ready' };
  const firstResponse = run.cell === fast ? 10 * run.index : 30;
  const marks = { processStart: 1, start: 2, imported: 3, startup: 4, listen: 5, firstResponse };
  return {
    ...base,
    ok: true,
    marks,
    ...(run.checkInvalidBody && run.cell === fast ? { invalidBody: { ok: false, reason: 'an invalid body got 200, expected 4xx' } } : {}),
  };
}

describe('progress without a terminal', () => {
  /** what was written after each run, and all its lines at the end */
  const after: string[] = [];
  let lines: string[] = [];
  before(() => {
    const stream = fakeStream(false);
    const progress = new Progress(plan, stream, false, 60_000);
    for (const run of plan) {
      progress.starting(run);
      progress.finished(outcome(run));
      after.push(stream.text());
    }
    progress.stop();
    lines = stream.text().trim().split('\n');
  });

  it('one line per finished cell: ok and failed samples, the median firstResponse, done/total', () => {
    assert.deepEqual(
      lines.filter((l) => l.startsWith('done ')),
      [
        `done ${cellLabel(uncached)}: unsupported [5/7]`,
        `done ${cellLabel(fast)}: 2 ok, 0 failed, median firstResponse 15.0 ms [6/7]`,
        `done ${cellLabel(flaky)}: 1 ok, 1 failed, median firstResponse 30.0 ms [7/7]`,
      ],
    );
  });

  it('a line per failed run as it happens (warm-ups too, though they are not counted), and per failed invalid-body check', () => {
    assert.deepEqual(
      lines.filter((l) => l.startsWith('FAILED ')),
      [
        `FAILED ${cellLabel(fast)}: an invalid body got 200, expected 4xx`,
        `FAILED ${cellLabel(flaky)} warmup 1: exited with code 1 before it was ready`,
        `FAILED ${cellLabel(flaky)} sample 2: exited with code 1 before it was ready`,
      ],
    );
  });

  it('nothing else: a line only when a run fails or a cell is done; an unsupported cell is no failure', () => {
    // runs: warm-ups of fast (its invalid-body check fails) and flaky (fails); then sample 1 of fast, flaky and
    // uncached (unsupported: its one run, done at once), sample 2 of fast and flaky
    const linesAfterEachRun = after.map((text) => text.split('\n').filter(Boolean).length);
    assert.deepEqual(linesAfterEachRun, [1, 2, 2, 2, 3, 4, 6]);
    assert.ok(!lines.some((l) => l.includes(cellLabel(uncached)) && l.startsWith('FAILED')));
  });
});

describe('the heartbeat without a terminal', () => {
  it('says done/total, the ETA and the run in flight when nothing was printed for a while, and stops with stop()', async () => {
    const stream = fakeStream(false);
    const progress = new Progress(plan, stream, false, 50);
    try {
      progress.starting(plan[0]!);
      assert.ok(await waitFor(() => stream.text().includes('progress: '), 2000), 'a heartbeat line');
      assert.match(
        stream.text(),
        new RegExp(`^progress: 0/7 runs, ETA estimating, running ${cellLabel(fast).replace(/\./g, '\\.')} warmup 1$`, 'm'),
      );
      progress.finished(outcome(plan[0]!));
      progress.starting(plan[1]!);
      assert.ok(
        await waitFor(() => /^progress: 1\/7 runs, ETA \d/m.test(stream.text()), 2000),
        `an ETA once a run finished:\n${stream.text()}`,
      );
    } finally {
      progress.stop();
    }
    const stopped = stream.text();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(stream.text(), stopped, 'no line after stop()');
  });
});

describe('progress on a terminal', () => {
  it('draws a bar with done/total and the ETA, prints failures above it, and stops cleanly', () => {
    const stream = fakeStream(true);
    const progress = new Progress(plan, stream);
    assert.match(stream.text(), / 0\/7 runs \| ETA estimating/);
    for (const run of plan) {
      progress.starting(run);
      progress.finished(outcome(run));
    }
    progress.stop();
    const text = stream.text();
    assert.match(text, / 7\/7 runs \| ETA /);
    assert.match(text, new RegExp(`FAILED ${cellLabel(flaky).replace(/\./g, '\\.')} sample 2: exited with code 1`));
    assert.doesNotMatch(text, /^done /m, 'the bar replaces the per-cell lines');
  });
});

describe('what a child printed reaches the terminal as text, never as a sequence (issue 37, class 6)', () => {
  it('an OSC title, a screen clear, a bidi override and a line break in a FAILED reason are printed as spaces', () => {
    const chunks: string[] = [];
    const stream = {
      isTTY: false,
      write(chunk: string) {
        chunks.push(chunk);
        return true;
      },
    } as unknown as NodeJS.WriteStream;
    const progress = new Progress(plan, stream, false, 60_000);
    const run = plan.find((r) => !r.planned.blocked)!;
    const hostile = 'boom \u001b]0;pwned\u0007 \u001b[2J\u001b[H \u202eevil\u202c\r\nFAKE line';
    progress.starting(run);
    progress.finished({ cell: run.cell, phase: run.phase, index: run.index, durationMs: 1, at: 'x', ok: false, error: hostile });
    progress.stop();
    const text = chunks.join('');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    const failed = text.split('\n').filter((l) => l.startsWith('FAILED '));
    assert.equal(failed.length, 1, text);
    assert.match(failed[0]!, /boom {2}\]0;pwned/);
    assert.match(failed[0]!, /FAKE line$/);
  });
});
