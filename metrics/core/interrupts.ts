/**
 * A closed output pipe interrupts a run as SIGPIPE would: the CLI emits this event on `process` when
 * stdout or stderr says EPIPE, and the run's interrupt guard (measure/children.ts) listens for it. An
 * event of its own, not a listener on SIGPIPE itself: removing that listener would give SIGPIPE its
 * default action back, and a later write would kill the process.
 */
export const CLOSED_OUTPUT_EVENT = 'coldstart:closed-output';

export function raiseClosedOutput(): void {
  process.emit(CLOSED_OUTPUT_EVENT as 'SIGPIPE', 'SIGPIPE');
}
