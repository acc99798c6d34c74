/** A mistake in what the user asked for: reported as one line, exit code 2, never a stack trace. */
export class UsageError extends Error {}

/**
 * The machine refused something the user asked for rightly: a file that cannot be written or read
 * (disk full, no permission, a folder where a file belongs). One line naming the file, exit code 4.
 */
export class EnvironmentError extends Error {}

// the exit codes, one per meaning, live in one table (exit-codes.ts); these are the ones the errors below end with
export {
  EXIT_AWS_ACCESS,
  EXIT_AWS_LEFT_BEHIND,
  EXIT_AWS_NEVER_ACTIVE,
  EXIT_AWS_QUOTA,
  EXIT_AWS_SDK_MISSING,
  EXIT_BUG,
  EXIT_ENVIRONMENT,
  EXIT_FAILED_SAMPLES,
  EXIT_INTERRUPTED,
  EXIT_USAGE,
} from './exit-codes.ts';

/** An error that ends the command with its own exit code (one of the above): its message is the one line printed. */
export class ExitCodeError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
