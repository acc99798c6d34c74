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

/**
 * lambda:run and lambda:clean's refusals by AWS, each one line and its own documented exit code:
 * the credentials or the role may not do what the command needs (5), an account quota or limit, or
 * throttling that outlasted the retries (6), a function that never became Active or whose update never
 * went through (7), resources that could not be deleted (8: listed, with the command that removes them).
 */
export const EXIT_AWS_ACCESS = 5;
export const EXIT_AWS_QUOTA = 6;
export const EXIT_AWS_NEVER_ACTIVE = 7;
export const EXIT_AWS_LEFT_BEHIND = 8;
/** lambda:run and lambda:clean without AWS's SDK installed (an optional peer dependency): one line saying how to install it. */
export const EXIT_AWS_SDK_MISSING = 9;

/** An error that ends the command with its own exit code (one of the above): its message is the one line printed. */
export class ExitCodeError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
