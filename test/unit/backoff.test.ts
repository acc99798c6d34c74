/**
 * retryWithin (cloud/backoff.ts), the backoff of lambda:run's two bounded waits (CloudWatch Logs, IAM
 * propagation), on a fake clock: the delays (1 s, doubled, at most 10 s), the stop before the next delay would
 * pass the wait (with the last miss, the attempts and the time spent), a wait of 0 as one attempt, an attempt's
 * error thrown at once, and the signal aborting a sleep under way (the real sleep).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIRST_DELAY_MS, MAX_DELAY_MS, retryWithin, type Attempt } from '../../metrics/cloud/backoff.ts';

/** A clock that moves only when slept on, or by `cost` ms each attempt. */
function fakeClock(cost = 0) {
  let time = 1_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => time,
    sleep: (ms: number) => {
      slept.push(ms);
      time += ms;
      return Promise.resolve();
    },
    spend: () => (time += cost),
  };
}

const miss = (n: number): Promise<Attempt<string, string>> => Promise.resolve({ done: false, miss: `miss ${n}` });

describe('retryWithin', () => {
  it('sleeps 1, 2, 4, 8 then 10 s between misses, and gives the value with the attempts it took', async () => {
    const clock = fakeClock();
    const retries: [number, number][] = [];
    const result = await retryWithin((n) => (n < 8 ? miss(n) : Promise.resolve({ done: true as const, value: 'found' })), {
      waitMs: 600_000,
      now: clock.now,
      sleep: clock.sleep,
      onRetry: (n, delay) => retries.push([n, delay]),
    });
    assert.deepEqual(result, { ok: true, value: 'found', attempts: 8 });
    assert.deepEqual(clock.slept, [1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
    assert.deepEqual(
      retries.map(([n]) => n),
      [1, 2, 3, 4, 5, 6, 7],
    );
    assert.equal(FIRST_DELAY_MS, 1000);
    assert.equal(MAX_DELAY_MS, 10_000);
  });

  it('stops with the last miss when the next delay would pass the wait', async () => {
    const clock = fakeClock();
    // 1 + 2 + 4 + 8 = 15 s slept after 4 misses; the 5th miss at 15 s would sleep 10 s more: 25 > 20
    const result = await retryWithin((n) => miss(n), { waitMs: 20_000, now: clock.now, sleep: clock.sleep });
    assert.deepEqual(result, { ok: false, miss: 'miss 5', attempts: 5, elapsedMs: 15_000 });
    assert.deepEqual(clock.slept, [1000, 2000, 4000, 8000]);
    // exactly reaching the wait is allowed: 15 + 10 = 25
    const exact = fakeClock();
    const reached = await retryWithin((n) => miss(n), { waitMs: 25_000, now: exact.now, sleep: exact.sleep });
    assert.equal(reached.attempts, 6);
    assert.deepEqual(exact.slept, [1000, 2000, 4000, 8000, 10_000]);
  });

  it('counts the time the attempts take, not only the sleeps', async () => {
    const clock = fakeClock(3000);
    const result = await retryWithin(
      (n) => {
        clock.spend();
        return miss(n);
      },
      { waitMs: 10_000, now: clock.now, sleep: clock.sleep },
    );
    // attempt 1 ends at 3 s (+1 s: 4 ≤ 10), attempt 2 at 7 s (+2 s: 9 ≤ 10), attempt 3 at 12 s: stop
    assert.deepEqual(result, { ok: false, miss: 'miss 3', attempts: 3, elapsedMs: 12_000 });
    assert.deepEqual(clock.slept, [1000, 2000]);
  });

  it('a wait of 0 is one attempt; a first delay of its own doubles from there', async () => {
    const clock = fakeClock();
    const once = await retryWithin((n) => miss(n), { waitMs: 0, now: clock.now, sleep: clock.sleep });
    assert.deepEqual(once, { ok: false, miss: 'miss 1', attempts: 1, elapsedMs: 0 });
    assert.deepEqual(clock.slept, []);
    const quick = fakeClock();
    await retryWithin((n) => miss(n), { waitMs: 80, firstDelayMs: 5, now: quick.now, sleep: quick.sleep });
    assert.deepEqual(quick.slept, [5, 10, 20, 40]);
  });

  it("throws an attempt's error at once, without another attempt", async () => {
    const clock = fakeClock();
    let attempts = 0;
    const denied = Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' });
    await assert.rejects(
      retryWithin(
        (n) => {
          attempts++;
          if (n === 2) return Promise.reject(denied);
          return miss(n);
        },
        { waitMs: 60_000, now: clock.now, sleep: clock.sleep },
      ),
      denied,
    );
    assert.equal(attempts, 2);
    assert.deepEqual(clock.slept, [1000]);
  });

  it('the signal aborts a sleep under way (the real sleep): AbortError, no further attempt', async () => {
    const controller = new AbortController();
    let attempts = 0;
    const started = performance.now();
    const waiting = retryWithin(
      (n) => {
        attempts++;
        return miss(n);
      },
      // a first delay of 60 s: only the abort ends the sleep
      { waitMs: 600_000, firstDelayMs: 60_000, signal: controller.signal, onRetry: () => setImmediate(() => controller.abort('SIGINT')) },
    );
    await assert.rejects(waiting, { name: 'AbortError' });
    assert.equal(attempts, 1);
    assert.ok(performance.now() - started < 30_000, 'the sleep did not run its course');
  });
});
