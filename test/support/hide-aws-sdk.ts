/**
 * `node --import tsx --import test/support/hide-aws-sdk.ts …`: a process in which AWS's SDK is not
 * installed. A module-resolution hook answers every `@aws-sdk/*` and `@smithy/*` specifier as Node
 * answers a package that is missing (ERR_MODULE_NOT_FOUND, "Cannot find package"), and appends the
 * specifier to the file COLDSTART_TEST_SDK_LOG names, so a test can say that nothing asked for it.
 */
import { register } from 'node:module';

const hook = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  if (/^@(aws-sdk|smithy)\\//.test(specifier)) {
    if (process.env.COLDSTART_TEST_SDK_LOG) appendFileSync(process.env.COLDSTART_TEST_SDK_LOG, specifier + '\\n');
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
