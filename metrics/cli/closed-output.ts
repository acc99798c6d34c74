/**
 * A closed stdout or stderr (`coldstart run | head -1`, `2>&1 | true`, a terminal that went away), or
 * one that can no longer be written (`>/dev/full`, a full disk, an I/O error), is an interrupt,
 * handled as Ctrl-C is: the run stops after the sample in flight, keeps every finished
 * sample, writes its report and exits 141 (128 + SIGPIPE). Only the streams' 'error' events are
 * listened to: a later write to the closed stream fails into the same listener (EPIPE again, or
 * ERR_STREAM_DESTROYED), which takes it silently: no stack trace, and no second interrupt that
 * would abort the report.
 */
import { raiseClosedOutput } from '../core/interrupts.ts';
import { EXIT_CLOSED_OUTPUT } from '../core/exit-codes.ts';

/** Every way a write to an output stream fails for good: closed (EPIPE, destroyed), the device (EIO), the disk (ENOSPC, EDQUOT, EFBIG). */
const CLOSED = new Set(['EPIPE', 'EIO', 'ENOSPC', 'EDQUOT', 'EFBIG', 'ERR_STREAM_DESTROYED']);

let raised = false;

export function guardClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (!CLOSED.has(error.code ?? '')) throw error;
      if (raised) return;
      raised = true;
      raiseClosedOutput();
      // after a command has ended (its last line could not be written) nothing else says so: the exit code does
      if (!process.exitCode) process.exitCode = EXIT_CLOSED_OUTPUT;
    });
  }
}

/** A command's exit code, made 141 when it succeeded but an output stream failed (its output is incomplete). */
export function withClosedOutput(code: number): number {
  return raised && code === 0 ? EXIT_CLOSED_OUTPUT : code;
}
