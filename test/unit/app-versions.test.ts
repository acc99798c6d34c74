/**
 * `measure --versions`, planned in-process (no npm, no process): which app gets which version (its
 * package.json's dependencies), the refusal of a package no app depends on (one line, exit 2, no run
 * folder), and the copies: each version's app copied under the scratch folder with node_modules linked
 * to that version's install, its paths moved there, the app's own folder unchanged byte for byte, and
 * a version that does not install skipped and said. The real installs and runs: test/e2e/app-versions.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AppSpec } from '../../metrics/core/app.ts';
import {
  appPackageRoot,
  appsAtVersions,
  declaredDependencies,
  planAppVersions,
  type AppVersionInstaller,
} from '../../metrics/plan/app-versions.ts';
import { appInstallKey, appVersionDir } from '../../metrics/plan/versions.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const SERVER = "require('node:http').createServer((q, s) => s.end(require('ms/package.json').version)).listen(process.env.PORT);\n";

/** A user's app folder: package.json (with `dependencies`), a lockfile, the entry in src/, its own node_modules and .git. */
function appFolder(dependencies: Record<string, string>, devDependencies: Record<string, string> = {}): string {
  const dir = tempDir('coldstart-app-versions-');
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'shop', dependencies, devDependencies })}\n`);
  writeFileSync(path.join(dir, 'package-lock.json'), '{ "lockfileVersion": 3 }\n');
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src', 'server.js'), SERVER);
  mkdirSync(path.join(dir, 'node_modules', 'ms'), { recursive: true });
  writeFileSync(path.join(dir, 'node_modules', 'ms', 'package.json'), '{ "version": "2.1.3" }\n');
  mkdirSync(path.join(dir, '.git'));
  writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return dir;
}

function serverApp(dir: string, name = 'shop'): AppSpec {
  const file = path.join(dir, 'src', 'server.js');
  return { name, kind: 'server', file, args: [], cwd: dir, expect: { status: 200 }, port: 'auto' };
}

/** Every file under `dir` with the sha256 of its bytes (links as their targets). */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const file = path.join(at, name);
      if (lstatSync(file).isDirectory()) walk(file);
      else out[path.relative(dir, file)] = createHash('sha256').update(readFileSync(file)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/** A stand-in for npm: the version's folder gets node_modules/<pkg>/package.json at that version, or the install fails. */
function fakeInstaller(cache: string, fails: readonly string[] = []): { install: AppVersionInstaller; calls: string[] } {
  const calls: string[] = [];
  const install: AppVersionInstaller = (value, appRoot) => {
    calls.push(value);
    if (fails.includes(value)) return { ok: false, reason: `No matching version found for ${value}.` };
    const dir = appVersionDir(appRoot, value, cache);
    const at = value.lastIndexOf('@');
    const [pkg, version] = [value.slice(0, at), value.slice(at + 1)];
    mkdirSync(path.join(dir, 'node_modules', pkg), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), `${JSON.stringify({ version })}\n`);
    return { ok: true, installed: { value, pkg, version, dir, resolved: `${pkg}-${version}.tgz`, integrity: 'sha512-x' } };
  };
  return { install, calls };
}

describe('measure --versions: which app gets which version', () => {
  it("finds the app's package folder above its file", () => {
    const dir = appFolder({ ms: '^2.1.3' });
    assert.equal(appPackageRoot(path.join(dir, 'src', 'server.js')), dir);
  });

  it('gives an app the versions of its dependencies and devDependencies, in the order given', () => {
    const dir = appFolder({ ms: '^2.1.3' }, { '@scope/tool': '1.0.0' });
    const plans = planAppVersions([serverApp(dir)], ['@scope/tool@1.0.0', 'ms@2.0.0', 'ms@2.1.3']);
    assert.deepEqual(plans[0]!.values, ['@scope/tool@1.0.0', 'ms@2.0.0', 'ms@2.1.3']);
    assert.equal(plans[0]!.root, dir);
  });

  it('leaves an app that does not depend on the package at its installed versions, when another app does', () => {
    const shop = appFolder({ ms: '^2.1.3' });
    const other = appFolder({ express: '^5.1.0' });
    const plans = planAppVersions([serverApp(shop), serverApp(other, 'other')], ['ms@2.0.0']);
    assert.deepEqual(
      plans.map((p) => p.values),
      [['ms@2.0.0'], []],
    );
  });

  it('refuses a package that no app depends on, naming the package.json read', () => {
    const dir = appFolder({ ms: '^2.1.3' });
    assert.throws(
      () => planAppVersions([serverApp(dir)], ['express@4.21.2']),
      (error: Error) =>
        error.message.startsWith('--versions express@4.21.2: express is not a dependency of the app (not in the dependencies, ') &&
        error.message.endsWith(`devDependencies or optionalDependencies of shop: ${path.join(dir, 'package.json')})`),
    );
  });
});

describe('measure --versions: the copies', () => {
  it("copies the app per version under the scratch folder, links that version's install, and leaves the app's folder as it was", () => {
    const dir = appFolder({ ms: '^2.1.3' });
    const before = hashes(dir);
    const cache = tempDir('coldstart-versions-cache-');
    const scratch = tempDir('coldstart-run-scratch-');
    const { install, calls } = fakeInstaller(cache);
    const lines: string[] = [];
    const result = appsAtVersions([serverApp(dir)], ['ms@2.0.0', 'ms@2.1.3'], { scratch, install, log: (l) => lines.push(l) });
    assert.deepEqual(calls, ['ms@2.0.0', 'ms@2.1.3']);
    assert.deepEqual(
      result.apps.map((a) => a.version),
      ['ms@2.0.0', 'ms@2.1.3'],
    );
    for (const { app, version } of result.apps) {
      const copy = path.join(scratch, 'apps', 'shop', version);
      assert.equal(app.file, path.join(copy, 'src', 'server.js'));
      assert.equal(app.cwd, copy);
      assert.equal(readFileSync(app.file, 'utf8'), SERVER);
      // the copy's packages are the version's install, not the app's own node_modules; git's store is not copied
      assert.equal(readlinkSync(path.join(copy, 'node_modules')), path.join(appVersionDir(dir, version, cache), 'node_modules'));
      const ms = JSON.parse(readFileSync(path.join(copy, 'node_modules', 'ms', 'package.json'), 'utf8')) as { version: string };
      assert.equal(`ms@${ms.version}`, version);
      assert.equal(existsSync(path.join(copy, '.git')), false);
    }
    assert.deepEqual([...result.installed.keys()], ['ms@2.0.0', 'ms@2.1.3']);
    assert.deepEqual(result.skipped, new Map());
    assert.deepEqual(hashes(dir), before, "the app's folder is unchanged");
    assert.equal(statSync(path.join(dir, 'node_modules')).isDirectory(), true);
  });

  it("moves a handler's file, task root and working folder into the copy; its Handler setting stays", () => {
    const dir = appFolder({ ms: '^2.1.3' });
    writeFileSync(path.join(dir, 'src', 'index.js'), 'exports.handler = async () => ({ statusCode: 200, body: "ok" });\n');
    const handler: AppSpec = {
      name: 'api',
      kind: 'lambda',
      file: path.join(dir, 'src', 'index.js'),
      exportName: 'handler',
      taskRoot: dir,
      handler: 'src/index.handler',
      args: [],
      cwd: dir,
      event: {},
      expect: { status: 200 },
      port: 'auto',
    };
    const scratch = tempDir('coldstart-run-scratch-');
    const { install } = fakeInstaller(tempDir('coldstart-versions-cache-'));
    const [copy] = appsAtVersions([handler], ['ms@2.0.0'], { scratch, install, log: () => undefined }).apps;
    const into = path.join(scratch, 'apps', 'api', 'ms@2.0.0');
    assert.deepEqual(
      { file: copy!.app.file, taskRoot: copy!.app.taskRoot, cwd: copy!.app.cwd, handler: copy!.app.handler },
      { file: path.join(into, 'src', 'index.js'), taskRoot: into, cwd: into, handler: 'src/index.handler' },
    );
    assert.ok(existsSync(copy!.app.file));
  });

  it('skips a version that does not install, says so, and measures the others', () => {
    const dir = appFolder({ ms: '^2.1.3' });
    const { install } = fakeInstaller(tempDir('coldstart-versions-cache-'), ['ms@9.9.9']);
    const lines: string[] = [];
    const scratch = tempDir('coldstart-run-scratch-');
    const result = appsAtVersions([serverApp(dir)], ['ms@9.9.9', 'ms@2.0.0'], { scratch, install, log: (l) => lines.push(l) });
    assert.deepEqual(
      result.apps.map((a) => a.version),
      ['ms@2.0.0'],
    );
    assert.equal(result.skipped.get('ms@9.9.9'), 'does not install: No matching version found for ms@9.9.9.');
    assert.ok(
      lines.some((l) => /^ms@9\.9\.9: skipped \(does not install: .*shop is not measured at it\)$/.test(l)),
      lines.join('\n'),
    );
    assert.equal(existsSync(path.join(scratch, 'apps', 'shop', 'ms@9.9.9')), false);
  });

  it("keys a version's install by the app's package.json, lockfile and .npmrc, not by its code", () => {
    const dir = appFolder({ ms: '^2.1.3' });
    const key = appInstallKey(dir);
    writeFileSync(path.join(dir, 'src', 'server.js'), `${SERVER}// edited\n`);
    assert.equal(appInstallKey(dir), key);
    writeFileSync(path.join(dir, 'package-lock.json'), '{ "lockfileVersion": 3, "packages": {} }\n');
    assert.notEqual(appInstallKey(dir), key);
    assert.match(
      path.basename(appVersionDir(dir, '@aws-sdk/client-dynamodb@3.600.0')),
      /^app-[0-9a-f]{12}\+@aws-sdk\+client-dynamodb@3\.600\.0$/,
    );
  });
});

describe('measure --versions: refused before anything runs', () => {
  it('a package the app does not depend on is one line, exit 2, and no run folder', async () => {
    const dir = appFolder({ ms: '^2.1.3' });
    const out = path.join(tempDir(), 'never');
    const result = await mainInProcess([
      'measure',
      '--entry',
      path.join(dir, 'src', 'server.js'),
      '--versions',
      'fastify@5.6.1',
      '--out',
      out,
    ]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^coldstart: --versions fastify@5\.6\.1: fastify is not a dependency of the app \(/);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.equal(existsSync(out), false);
  });
});

describe("an app's package.json that is not a file", () => {
  it('is refused in one line before it is read (a FIFO would have been waited on forever), not taken for no dependencies', () => {
    const dir = tempDir('coldstart-app-pkg-kind-');
    mkdirSync(path.join(dir, 'package.json'));
    writeFileSync(path.join(dir, 'server.js'), '');
    assert.throws(
      () => declaredDependencies(dir),
      (e: unknown) => e instanceof Error && /package\.json is not a file: an app's package\.json must be one$/.test(e.message),
    );
  });
});
