/**
 * The one npm install helper (metrics/plan/npm-install.ts), without running npm: the flags each kind
 * of install gets, and npm's failures mapped to a kind and one line (the network, a version the
 * registry does not have, anything else), from npm's own stderr as npm 10 writes it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { npmErrorLine, npmFailure, npmInstallArgs } from '../../metrics/plan/npm-install.ts';

const ETARGET = [
  'npm error code ETARGET',
  'npm error notarget No matching version found for ms@9.9.9.',
  'npm error notarget In most cases you or one of your dependencies are requesting',
  'npm error A complete log of this run can be found in: ~/.npm/_logs/x-debug-0.log',
].join('\n');
const ENOTFOUND = [
  'npm error code ENOTFOUND',
  'npm error syscall getaddrinfo',
  'npm error errno ENOTFOUND',
  'npm error network request to https://registry.example/ms failed, reason: getaddrinfo ENOTFOUND registry.example',
  'npm error network This is a problem related to network connectivity.',
].join('\n');
const ECONNREFUSED =
  'npm error code ECONNREFUSED\nnpm error errno ECONNREFUSED\nnpm error FetchError: request to http://127.0.0.1:9/ms failed';
const E404 = 'npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/no-such-pkg-x - Not found';
const EACCES = 'npm error code EACCES\nnpm error Your cache folder contains root-owned files';

describe('npmInstall: the flags', () => {
  it('installs into a prefix with exact versions, no scripts, no audit, errors only', () => {
    assert.deepEqual(npmInstallArgs('/c/v', ['ms@2.0.0']), [
      'install',
      '--prefix',
      '/c/v',
      '--save-exact',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      'ms@2.0.0',
    ]);
  });

  it("a runtime's install saves nothing and runs its scripts; an app's copy installs in its folder; a lockfile is npm ci", () => {
    assert.deepEqual(npmInstallArgs('/r/node22', ['node@22'], { save: 'none', lockfile: false, scripts: true }), [
      'install',
      '--prefix',
      '/r/node22',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      'node@22',
    ]);
    assert.deepEqual(npmInstallArgs('/b/apps/x', [], { in: 'cwd', ci: true }), [
      'ci',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ]);
  });
});

describe("npmInstall: npm's failures, one line each", () => {
  it('a version the registry does not have (ETARGET, E404) is a version failure with its telling line', () => {
    assert.deepEqual(npmFailure(ETARGET, 1), { kind: 'version', reason: 'No matching version found for ms@9.9.9.' });
    assert.deepEqual(npmFailure(E404, 1), {
      kind: 'version',
      reason: '404 Not Found - GET https://registry.npmjs.org/no-such-pkg-x - Not found',
    });
  });

  it('an unreachable registry is a network failure, said as such', () => {
    const notFound = npmFailure(ENOTFOUND, 1);
    assert.equal(notFound.kind, 'network');
    assert.match(notFound.reason, /^the registry cannot be reached: network request to https:\/\/registry\.example\/ms failed/);
    assert.equal(npmFailure(ECONNREFUSED, 1).kind, 'network');
  });

  it('anything else is its telling line, or the exit status when npm said nothing', () => {
    assert.deepEqual(npmFailure(EACCES, 243), { kind: 'other', reason: 'Your cache folder contains root-owned files' });
    assert.deepEqual(npmFailure('', 7), { kind: 'other', reason: 'npm exited with 7' });
  });

  it('a flood of output is cut and said, never buffered whole; a spawn error is its message', () => {
    const flood = Object.assign(new Error('spawnSync npm ENOBUFS'), { code: 'ENOBUFS' });
    assert.match(npmFailure('x'.repeat(100), null, flood).reason, /^npm wrote more than \d+ bytes of errors \(cut\)$/);
    const missing = Object.assign(new Error('spawnSync npm ENOENT'), { code: 'ENOENT' });
    assert.deepEqual(npmFailure('', null, missing), { kind: 'other', reason: 'spawnSync npm ENOENT' });
  });

  it('every reason is one line', () => {
    for (const stderr of [ETARGET, ENOTFOUND, ECONNREFUSED, E404, EACCES]) assert.ok(!npmFailure(stderr, 1).reason.includes('\n'));
    assert.equal(npmErrorLine(ETARGET), 'No matching version found for ms@9.9.9.');
  });
});
