/** A mistake in what the user asked for: reported as one line, exit code 2, never a stack trace. */
export class UsageError extends Error {}

/**
 * The machine refused something the user asked for rightly: a file that cannot be written or read
 * (disk full, no permission, a folder where a file belongs). One line naming the file, exit code 4.
 */
export class EnvironmentError extends Error {}

/** An internal error (a bug), or a verdict of a command (compare --fail-above). */
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
/** A run that finished, but with failed samples (`--allow-failures` makes it 0). */
export const EXIT_FAILED_SAMPLES = 3;
export const EXIT_ENVIRONMENT = 4;
export const EXIT_INTERRUPTED = 130;
