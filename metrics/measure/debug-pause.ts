/**
 * `--debug-mode pause-at=STEP`: a fake run stops at that step (core/run-steps.ts), says so on stderr
 * (`coldstart: debug: at STEP`), and waits until a byte (or the end) arrives on stdin, at most
 * PAUSE_LIMIT_MS. A test outside the process injects a real fault meanwhile: a signal (delivered when
 * the run goes on: the pause ends with a turn of the event loop), a closed pipe, a full disk, SIGKILL.
 * Only the first time the step is reached.
 */
import { readSync, writeSync } from 'node:fs';
import type { RunStep } from '../core/run-steps.ts';

export const PAUSE_LIMIT_MS = 60_000;

export function pauseAt(at: RunStep): (step: RunStep) => Promise<void> {
  let paused = false;
  return async (step) => {
    if (step !== at || paused) return;
    paused = true;
    waitForStdin(step);
    // a turn of the event loop: a signal sent meanwhile is handled here, at this step
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
}

function waitForStdin(step: RunStep): void {
  writeSync(2, `coldstart: debug: at ${step}\n`);
  const byte = Buffer.alloc(1);
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (const end = Date.now() + PAUSE_LIMIT_MS; Date.now() < end;) {
    try {
      readSync(0, byte, 0, 1, null);
      return;
    } catch (error) {
      // a non-blocking stdin with nothing yet: wait a little and try again; anything else: go on
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      Atomics.wait(sleeper, 0, 0, 20);
    }
  }
}
