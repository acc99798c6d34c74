/**
 * A closed stdout or stderr (`coldstart run | head -1`, `2>&1 | true`, a terminal that went away) is an
 * interrupt, handled as Ctrl-C is: the run stops after the sample in flight, keeps every finished
 * sample, writes its report and exits 141 (128 + SIGPIPE). Only the streams' 'error' events are
 * listened to: a later write to the closed stream fails into the same listener (EPIPE again, or
 * ERR_STREAM_DESTROYED), which takes it silently: no stack trace, and no second interrupt that
 * would abort the report.
 */
import { raiseClosedOutput } from '../core/interrupts.ts';

const CLOSED = new Set(['EPIPE', 'EIO', 'ERR_STREAM_DESTROYED']);

export function guardClosedOutput(): void {
  let raised = false;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (!CLOSED.has(error.code ?? '')) throw error;
      if (raised) return;
      raised = true;
      raiseClosedOutput();
    });
  }
}
