/**
 * The one backoff of lambda:run's bounded waits on AWS: the REPORT line that has not reached CloudWatch Logs yet
 * (logs-api.ts reportFromLogs, `--logs-wait`) and the role IAM has not yet propagated to Lambda
 * (pipeline/lambda-run.ts, `--role-wait`). An attempt either ends the wait (done) or misses; after a miss the
 * next attempt comes after 1 s, then 2, 4, 8 and every 10 s, and the wait stops, with the last miss, when the next
 * delay would take it past `waitMs` (so `waitMs` 0 is one attempt). An attempt that throws ends the wait with
 * that error; so does the signal, which aborts a sleep under way.
 */
import { setTimeout as timersSleep } from 'node:timers/promises';

/** The first delay after a miss, ms. */
export const FIRST_DELAY_MS = 1000;
/** The longest delay between two attempts, ms. */
export const MAX_DELAY_MS = 10_000;

/** What one attempt gives: the wait's result, or a miss (asked again while the wait allows). */
export type Attempt<T, M> = { done: true; value: T } | { done: false; miss: M };

/** The wait's end: the result and the attempts it took, or the last miss with the attempts and the time spent. */
export type Retried<T, M> = { ok: true; value: T; attempts: number } | { ok: false; miss: M; attempts: number; elapsedMs: number };

export interface RetryOptions {
  /** how long to keep asking, ms (0: once) */
  waitMs: number;
  /** aborts a sleep under way (its rejection, an AbortError, is thrown) */
  signal?: AbortSignal;
  /** the first delay, ms (default FIRST_DELAY_MS), doubled after each miss up to MAX_DELAY_MS */
  firstDelayMs?: number;
  /** told after a miss, before the sleep: the attempt that missed and the delay that follows */
  onRetry?: (attempt: number, delayMs: number) => void;
  /** the clock (default Date.now) and the sleep (default timers/promises' setTimeout): a test gives fakes */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
}

const defaultSleep = (ms: number, signal?: AbortSignal) => timersSleep(ms, undefined, signal ? { signal } : {});

/** `attempt` (numbered from 1) until it is done or the next delay would pass `waitMs`. */
export async function retryWithin<T, M>(attempt: (n: number) => Promise<Attempt<T, M>>, options: RetryOptions): Promise<Retried<T, M>> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const started = now();
  let delay = options.firstDelayMs ?? FIRST_DELAY_MS;
  for (let n = 1; ; n++) {
    const result = await attempt(n);
    if (result.done) return { ok: true, value: result.value, attempts: n };
    const elapsedMs = now() - started;
    if (elapsedMs + delay > options.waitMs) return { ok: false, miss: result.miss, attempts: n, elapsedMs };
    options.onRetry?.(n, delay);
    await sleep(delay, options.signal);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}
