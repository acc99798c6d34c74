/**
 * A closed stdout or stderr (`coldstart run | head -1`, `2>&1 | true`, a terminal that went away) is an
 * interrupt, handled as Ctrl-C is: the run stops after the sample in flight, keeps every finished
 * sample, writes its report and exits 141 (128 + SIGPIPE). The closed stream is written to no more:
 * no stack trace from a write that has nowhere to go, and no second interrupt that would abort the report.
 */
import { raiseClosedOutput } from '../core/interrupts.ts';

const CLOSED = new Set(['EPIPE', 'EIO', 'ERR_STREAM_DESTROYED']);

export function guardClosedOutput(): void {
  let raised = false;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (!CLOSED.has(error.code ?? '')) throw error;
      stream.write = () => true;
      if (raised) return;
      raised = true;
      raiseClosedOutput();
    });
  }
}
