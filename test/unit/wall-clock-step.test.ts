/**
 * A child's marks come on the wall clock (its performance.timeOrigin), the runner's on its own timeline: a
 * wall clock stepped since the runner started (a VM paused and resumed) must not fail every later sample as
 * "the child's clock disagrees" (measure/targets/target.ts, wallEpochOf and timelineMarks).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timelineMarks, wallEpochOf } from '../../metrics/measure/targets/target.ts';

/** The runner's wall clock now, stepped by `step` ms from where its timeline says it is. */
const stepped = (step: number) => {
  const timeline = performance.now();
  return { wall: Math.floor(performance.timeOrigin + timeline + step), timeline };
};

describe('a wall clock that stepped while the runner ran', () => {
  it('under 2 ms (Date.now rounds to the ms) is no step: the epoch is the timeline’s, as before', () => {
    for (const step of [0, 0.5, -0.9, 1.5]) assert.equal(wallEpochOf(100, stepped(step)), performance.timeOrigin + 100);
  });

  it('a step of +40 ms or −40 ms is added to the epoch, within the 1 ms of Date.now', () => {
    for (const step of [40, -40]) {
      const epoch = wallEpochOf(100, stepped(step));
      assert.ok(Math.abs(epoch - (performance.timeOrigin + 100 + step)) <= 1, `${step}: ${epoch - performance.timeOrigin - 100}`);
    }
  });

  it('a child started after a 40 ms step: its marks land where they happened, not 40 ms late (which failed the sample)', (t) => {
    const spawnAt = performance.now();
    // the child started 30 ms after the spawn, on a wall clock 40 ms ahead of the runner's origin
    const child = { timeOrigin: performance.timeOrigin + spawnAt + 30 + 40, marks: { start: 5, imported: 10, startup: 20 } };
    const ready = { name: 'listen' as const, at: 60 };
    t.mock.method(Date, 'now', () => Math.floor(performance.timeOrigin + performance.now() + 40));
    const marks = timelineMarks(child, spawnAt, ready, 62);
    assert.ok(Math.abs((marks.processStart ?? NaN) - 30) <= 1, `process start ${marks.processStart}`);
    t.mock.restoreAll();
    // unchanged without the step: the same child is 40 ms late, and ready (60) then lies before its marks
    assert.ok(Math.abs((timelineMarks({ ...child, timeOrigin: child.timeOrigin - 40 }, spawnAt, ready, 62).processStart ?? NaN) - 30) <= 1);
  });
});
