/**
 * The optional AWS SDK (metrics/core/aws-sdk.ts): the packages the one line names are package.json's optional
 * peer dependencies, with their ranges, and devDependencies of the checkout that satisfy them; a missing SDK
 * package becomes that line and exit 9, any other failure of the import passes through unchanged.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AWS_SDK_PACKAGES, awsSdkInstallCommand, missingAwsPackage, withAwsSdk } from '../../metrics/core/aws-sdk.ts';
import { ExitCodeError, EXIT_AWS_SDK_MISSING } from '../../metrics/core/errors.ts';
import { ROOT } from '../support/in-process.ts';

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;

function notFound(specifier: string, code = 'ERR_MODULE_NOT_FOUND'): Error {
  return Object.assign(new Error(`Cannot find package '${specifier}' imported from /app/node_modules/coldstart/x.ts`), { code });
}

describe('AWS SDK: an optional peer dependency', () => {
  it("package.json's optional peers are exactly AWS_SDK_PACKAGES, no dependency of the install, and dev-pinned inside their range", () => {
    const peers = Object.entries(manifest.peerDependencies ?? {}).filter(([name]) => name.startsWith('@aws-sdk/'));
    assert.deepEqual(Object.fromEntries(peers), AWS_SDK_PACKAGES);
    for (const name of Object.keys(AWS_SDK_PACKAGES)) {
      assert.equal(manifest.peerDependenciesMeta?.[name]?.optional, true, `${name} is an optional peer`);
      assert.equal(manifest.dependencies?.[name], undefined, `${name} is not a dependency`);
      assert.equal(manifest.optionalDependencies?.[name], undefined, `${name} is not an optional dependency`);
      const dev = manifest.devDependencies?.[name];
      assert.ok(dev && /^\d+\.\d+\.\d+$/.test(dev), `${name} is an exact devDependency`);
      const floor = AWS_SDK_PACKAGES[name]!.replace(/^\^/, '').split('.').map(Number);
      const pinned = dev.split('.').map(Number);
      assert.ok(
        pinned[0] === floor[0] && (pinned[1]! > floor[1]! || (pinned[1] === floor[1] && pinned[2]! >= floor[2]!)),
        `${dev} in ${name}'s range`,
      );
    }
    for (const name of Object.keys(manifest.dependencies ?? {})) assert.ok(!name.startsWith('@aws-sdk/'), `${name} is no dependency`);
  });

  it('a missing SDK package (or one of its internals) is named; other failures are not', () => {
    assert.equal(missingAwsPackage(notFound('@aws-sdk/client-lambda')), '@aws-sdk/client-lambda');
    assert.equal(missingAwsPackage(notFound('@smithy/smithy-client', 'MODULE_NOT_FOUND')), '@smithy/smithy-client');
    assert.equal(missingAwsPackage(notFound('yaml')), undefined);
    assert.equal(missingAwsPackage(Object.assign(new Error("Cannot find package '@aws-sdk/x'"), { code: 'EACCES' })), undefined);
    assert.equal(missingAwsPackage(new SyntaxError('Unexpected token')), undefined);
    assert.equal(missingAwsPackage(undefined), undefined);
  });

  it('withAwsSdk: the module when it loads, one line and exit 9 without the SDK, any other error unchanged', async () => {
    assert.deepEqual(await withAwsSdk('lambda:run', () => Promise.resolve({ loaded: true })), { loaded: true });
    const missing = await withAwsSdk('lambda:run', () => Promise.reject(notFound('@aws-sdk/client-iam'))).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(missing instanceof ExitCodeError);
    assert.equal(missing.exitCode, EXIT_AWS_SDK_MISSING);
    assert.doesNotMatch(missing.message, /\n/);
    assert.match(missing.message, /^lambda:run needs AWS's SDK .*\(@aws-sdk\/client-iam not found\)/);
    assert.ok(missing.message.includes(awsSdkInstallCommand()));
    for (const [name, range] of Object.entries(AWS_SDK_PACKAGES)) assert.ok(awsSdkInstallCommand().includes(`'${name}@${range}'`));
    const other = new TypeError('a bug in the module');
    await assert.rejects(
      withAwsSdk('lambda:clean', () => Promise.reject(other)),
      (error) => error === other,
    );
  });
});
