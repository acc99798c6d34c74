/** A mistake in what the user asked for: reported as one line, exit code 2, never a stack trace. */
export class UsageError extends Error {}

export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;
