/**
 * AWS's SDK for JavaScript is an optional peer dependency of the tool (docs/dev/libraries.md says why):
 * only lambda:run and lambda:clean need it, so a user's `npm install` of the tool never resolves it, and
 * run, measure, report and the other commands never load it.
 *
 * The one rule that keeps it so: a module that imports `@aws-sdk/*` (metrics/cloud/lambda-api.ts, and any
 * other `metrics/cloud/*-api.ts`) is imported statically only by the use cases that need AWS
 * (pipeline/lambda-run.ts, pipeline/lambda-clean.ts), and the CLI loads those through withAwsSdk, with
 * `await import()`, inside the command's action. test/e2e/aws-sdk-optional.test.ts checks it with the SDK's
 * folders hidden from the resolver.
 */
import { ExitCodeError, EXIT_AWS_SDK_MISSING } from './errors.ts';

/**
 * The SDK's packages the tool asks for, with the ranges of package.json's peerDependencies (a unit test
 * keeps the two the same): what the one line tells a user to install.
 */
export const AWS_SDK_PACKAGES: Readonly<Record<string, string>> = {
  '@aws-sdk/client-cloudwatch-logs': '^3.1039.0',
  '@aws-sdk/client-iam': '^3.1040.0',
  '@aws-sdk/client-lambda': '^3.1039.0',
};

/** `npm install` of every SDK package the tool asks for, each at its range. */
export function awsSdkInstallCommand(): string {
  return `npm install ${Object.entries(AWS_SDK_PACKAGES)
    .map(([name, range]) => `'${name}@${range}'`)
    .join(' ')}`;
}

/** The SDK package (or one of its internals) a failed import did not find; undefined for any other failure. */
export function missingAwsPackage(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return /(?:package|module) '(@(?:aws-sdk|smithy|aws-crypto)\/[^/']+)/.exec(message)?.[1];
}

/**
 * `load()`, a dynamic import of a module that needs AWS's SDK, for `command`. Without the SDK (or with a
 * part of it missing): one line naming what is missing and how to install it, exit code 9.
 */
export async function withAwsSdk<T>(command: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingAwsPackage(error);
    if (missing === undefined) throw error;
    throw new ExitCodeError(
      `${command} needs AWS's SDK for JavaScript, an optional dependency that is not installed (${missing} not found): ` +
        `${awsSdkInstallCommand()} in the project that installed coldstart (docs/guide/lambda-run.md)`,
      EXIT_AWS_SDK_MISSING,
    );
  }
}
