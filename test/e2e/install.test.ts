/**
 * The tool installed into a user's project (issue 38): `npm pack` of the checkout, `npm install -D`
 * of the tarball into a fresh app folder outside the checkout (an ES-module project with a node:http
 * server), then, from the app's folder, `npx coldstart measure` (relative --entry, --body, --out and
 * --export-json), `compare` of two measure runs, and the instruction-count gate of
 * docs/guide/counting-instructions.md (skipped with the reason without valgrind): every output lands
 * where the user said, and nothing lands in the checkout or in the installed package's folder. And
 * the checkout's own npm scripts run through `npm --prefix` from the app's folder read relative paths
 * from there too (npm's INIT_CWD).
 *
 * The install takes the packages from npm's cache where it can (`--prefer-offline`); without a
 * registry and with a cold cache it cannot install, and the test says so and skips.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeLambdaPackage } from '../../metrics/cloud/package.ts';
import { AWS_SDK_PACKAGES } from '../../metrics/core/aws-sdk.ts';
import { EXIT_AWS_SDK_MISSING } from '../../metrics/core/errors.ts';
import { findCountTools } from '../../metrics/measure/counting.ts';
import { FakeLambda } from '../support/fake-lambda.ts';
import { ROOT, tempDir } from '../support/helpers.ts';

const TIMEOUT_MS = 600_000;
/** The app's first request: relative --body, from the app folder. */
const REQUEST = ['--request', 'POST /orders', '--body', 'requests/order.json', '--expect-status', '201'];
const countSkip = findCountTools() ? false : 'valgrind (and vgdb) not on PATH: apt-get install valgrind; the instruction gate is skipped';

/** The environment of a user's shell: npm's variables of the test run (INIT_CWD, npm_*) left out, so npm and npx set their own. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'INIT_CWD' && !/^npm_/i.test(name)));
}

function run(command: string, args: string[], cwd: string, timeout = 300_000): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: userEnv(), encoding: 'utf8', timeout });
}

interface CliAnswer {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `run`, without blocking the test's own process; `env` added to the user's environment. */
function runAsync(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliAnswer> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...userEnv(), ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function said(result: CliAnswer): string {
  return `exit ${String(result.status)}\n${result.stdout}\n${result.stderr}`;
}

/** Every path under `dir` with its size and mtime (without the folders named in `skip`): what a run may not change. */
function snapshot(dir: string, skip: ReadonlySet<string> = new Set()): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      const relative = path.relative(dir, full);
      if (skip.has(relative)) continue;
      if (entry.isDirectory()) walk(full);
      else {
        const stat = statSync(full, { throwIfNoEntry: false });
        files.set(relative, stat ? `${stat.size} ${stat.mtimeMs}` : 'gone');
      }
    }
  };
  walk(dir);
  return files;
}

/** The version of each @aws-sdk/* and @smithy/* package in the checkout's lock. */
function sdkLock(): Map<string, string> {
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  const versions = new Map<string, string>();
  for (const [key, entry] of Object.entries(lock.packages)) {
    const name = /^node_modules\/(@(?:aws-sdk|smithy)\/[^/]+)$/.exec(key)?.[1];
    if (name && entry.version) versions.set(name, entry.version);
  }
  return versions;
}

/**
 * How a user installs the SDK from a registry mirror that lacks its newest internals (docs/guide/lambda-run.md):
 * the clients at the versions of the tool's lock, and the app's package.json overrides pinning every other
 * @aws-sdk/* and @smithy/* package to the lock (npm refuses an override of a package the app depends on directly).
 * The clients' `name@version`, to install.
 */
function pinSdkToLock(app: string, clients: readonly string[]): string[] {
  const lock = sdkLock();
  const overrides = Object.fromEntries([...lock].filter(([name]) => !clients.includes(name)));
  const file = path.join(app, 'package.json');
  writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), overrides }, null, 2));
  return clients.map((name) => `${name}@${lock.get(name) ?? 'latest'}`);
}

/** What changed from `before` to `after`: added, removed or rewritten paths. */
function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed = [...after].filter(([file, stamp]) => before.get(file) !== stamp).map(([file]) => file);
  return [...changed, ...[...before.keys()].filter((file) => !after.has(file))].sort();
}

/** The app: an ES-module project (so coldstart's CommonJS files must say they are CommonJS) with a node:http server. */
function writeApp(dir: string): void {
  // the folders the user's --export-json and compare --out name exist, as coldstart asks
  for (const folder of ['requests', 'exports', 'reports']) mkdirSync(path.join(dir, folder), { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: 'shop', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  const server = (rounds: number) => `import http from 'node:http';
import { createHash } from 'node:crypto';
let digest = '';
for (let i = 0; i < ${rounds}; i++) digest = createHash('sha256').update(digest + i).digest('hex');
http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const order = JSON.parse(body || '{}');
      res.writeHead(order.sku ? 201 : 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 1, sku: order.sku, digest: digest.slice(0, 8) }));
    });
  })
  .listen(Number(process.env.PORT), process.env.HOST);
`;
  writeFileSync(path.join(dir, 'server.js'), server(2000));
  // the head commit's server: the same app doing about 5 % more start-up work
  writeFileSync(path.join(dir, 'server-head.js'), server(12_000));
  writeFileSync(path.join(dir, 'requests', 'order.json'), '{"sku":"A-1"}\n');
}

describe('installed into a project: npm pack, npm install -D, npx coldstart from the app', { timeout: TIMEOUT_MS }, () => {
  let work = '';
  let app = '';
  let installed = '';
  let installSkip: string | false = false;
  let checkoutBefore = new Map<string, string>();
  let packageBefore = new Map<string, string>();
  const CHECKOUT_SKIP = new Set(['node_modules', '.git', '.runtimes', '.cache', 'generated']);

  before(() => {
    // outside the checkout: a folder of the system's temporary folder
    work = realpathSync(tempDir('coldstart-install-'));
    assert.ok(path.relative(ROOT, work).startsWith('..'), `${work} is outside the checkout`);
    app = path.join(work, 'shop');
    writeApp(app);
    checkoutBefore = snapshot(ROOT, CHECKOUT_SKIP);

    const pack = run('npm', ['pack', '--json', '--pack-destination', work], ROOT);
    assert.equal(pack.status, 0, said(pack));
    const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    assert.ok(packed, 'npm pack names its tarball');
    const inside = packed.files.map((f) => f.path);
    for (const needed of ['bin/coldstart.js', 'metrics/cli/main.ts', 'metrics/calibration/lambda-reference.json', 'tsconfig.json']) {
      assert.ok(inside.includes(needed), `the tarball holds ${needed}`);
    }
    for (const file of inside) assert.ok(!/^(test|results|\.ci|metrics\/tools)\//.test(file), `the tarball leaves out ${file}`);

    const args = ['install', '-D', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', path.join(work, packed.filename)];
    // AWS's SDK is an optional peer dependency: the tool's own install never resolves it, so a registry
    // mirror that lacks the newest SDK internals (ETARGET) no longer stops it
    const install = run('npm', args, app);
    if (install.status !== 0) {
      const network = /ENOTCACHED|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET/.exec(install.stderr);
      assert.ok(network, `npm install of the tarball failed for another reason than the network: ${said(install)}`);
      installSkip = `npm install of the tarball needs the registry (${network[0]}) and npm's cache lacks its dependencies`;
      return;
    }
    installed = path.join(app, 'node_modules', 'coldstart');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { private?: boolean };
    assert.notEqual(manifest.private, true);
    assert.ok(!existsSync(path.join(app, 'node_modules', 'fastify')), "a user's app gets no framework it did not ask for");
    assert.ok(!existsSync(path.join(app, 'node_modules', '@aws-sdk')), "a user's app gets AWS's SDK only when it asks for it");
    packageBefore = snapshot(installed);
  });

  after(() => {
    if (!work) return;
    assert.deepEqual(changes(checkoutBefore, snapshot(ROOT, CHECKOUT_SKIP)), [], 'nothing was written into the checkout');
  });

  /** `npx coldstart ARGS` from the app's folder. */
  function npx(args: string[]): SpawnSyncReturns<string> {
    return run('npx', ['--no-install', 'coldstart', ...args], app);
  }

  it('measure: relative --entry, --body, --out and --export-json, from the app folder', (t) => {
    if (installSkip) {
      t.skip(installSkip);
      return;
    }
    const common = [
      '--request',
      'POST /orders',
      '--body',
      'requests/order.json',
      '--expect-status',
      '201',
      '--samples',
      '2',
      '--warmup',
      '0',
    ];
    const base = npx(['measure', '--entry', 'server.js', ...common, '--out', 'runs/base', '--export-json', 'exports/base.json']);
    assert.equal(base.status, 0, said(base));
    const head = npx(['measure', '--entry', 'server-head.js', '--name', 'server', ...common, '--out', 'runs/head']);
    assert.equal(head.status, 0, said(head));
    for (const file of ['samples.jsonl', 'meta.json', 'summary.md', 'report.html']) {
      assert.ok(existsSync(path.join(app, 'runs', 'base', file)), `runs/base/${file} in the app`);
      assert.ok(existsSync(path.join(app, 'runs', 'head', file)), `runs/head/${file} in the app`);
    }
    const exported = JSON.parse(readFileSync(path.join(app, 'exports', 'base.json'), 'utf8')) as { results: unknown[] };
    assert.equal(exported.results.length, 1, 'the export holds the one app');
    assert.ok(!existsSync(path.join(app, 'results')), 'no default results/ folder when --out is given');
    assert.deepEqual(changes(packageBefore, snapshot(installed)), [], 'nothing was written into the installed package');
    const cache = path.join(app, 'node_modules', '.cache', 'coldstart', 'generated');
    assert.ok(existsSync(path.join(cache, 'app', 'preload.cjs')), "coldstart's own files are under node_modules/.cache/coldstart");
  });

  it('compare of the two measure runs, its markdown where --out says', (t) => {
    if (installSkip) {
      t.skip(installSkip);
      return;
    }
    const compared = npx(['compare', 'runs/base', 'runs/head', '--out', 'reports/compare.md']);
    assert.equal(compared.status, 0, said(compared));
    const markdown = readFileSync(path.join(app, 'reports', 'compare.md'), 'utf8');
    assert.match(markdown, /\| app:server \| firstResponse \|/);
    assert.deepEqual(changes(packageBefore, snapshot(installed)), [], 'nothing was written into the installed package');
  });

  it('the instruction-count gate: base and head counted, compare --fail-above 1.01 fails on 5 % more work', (t) => {
    if (installSkip) {
      t.skip(installSkip);
      return;
    }
    if (countSkip) {
      t.skip(countSkip);
      return;
    }
    const counted = [...REQUEST, '--measure', 'instructions', '--samples', '1'];
    const base = npx(['measure', '--entry', 'server.js', '--name', 'server', ...counted, '--out', 'gate/base']);
    assert.equal(base.status, 0, said(base));
    const same = npx(['measure', '--entry', 'server.js', '--name', 'server', ...counted, '--out', 'gate/same']);
    assert.equal(same.status, 0, said(same));
    const head = npx(['measure', '--entry', 'server-head.js', '--name', 'server', ...counted, '--out', 'gate/head']);
    assert.equal(head.status, 0, said(head));
    const gate = ['--metric', 'instructions', '--fail-above', '1.01'];
    const pass = npx(['compare', 'gate/base', 'gate/same', ...gate]);
    assert.equal(pass.status, 0, `the same app passes the gate: ${said(pass)}`);
    const fail = npx(['compare', 'gate/base', 'gate/head', ...gate, '--out', 'gate/compare.md']);
    assert.equal(fail.status, 1, `5 % more start-up work fails the gate: ${said(fail)}`);
    assert.ok(existsSync(path.join(app, 'gate', 'compare.md')));
    assert.deepEqual(changes(packageBefore, snapshot(installed)), [], 'nothing was written into the installed package');
  });

  it("the checkout's npm scripts through npm --prefix read relative paths from the app folder (INIT_CWD)", () => {
    const result = run(
      'npm',
      [
        '--prefix',
        ROOT,
        'run',
        '-s',
        'measure',
        '--',
        '--entry',
        'server.js',
        ...REQUEST,
        '--samples',
        '1',
        '--warmup',
        '0',
        '--out',
        'runs/prefix',
      ],
      app,
    );
    assert.equal(result.status, 0, said(result));
    assert.ok(existsSync(path.join(app, 'runs', 'prefix', 'summary.md')), 'runs/prefix in the app folder');
    assert.ok(!existsSync(path.join(ROOT, 'runs')), 'nothing under the checkout');
  });

  it('lambda:run needs the SDK (exit 9, one line; not a dry run); installed as the line says, lambda:clean calls the API', async (t) => {
    if (installSkip) {
      t.skip(installSkip);
      return;
    }
    const without = npx(['lambda:run', 'pkg', '--region', 'eu-west-1', '--create-role', '--out', 'real']);
    assert.equal(without.status, EXIT_AWS_SDK_MISSING, said(without));
    assert.match(without.stderr.trim(), /^coldstart: lambda:run needs AWS's SDK for JavaScript[^\n]*npm install '@aws-sdk\//);
    // the line names every SDK package the tool asks for, each at its range
    for (const [name, range] of Object.entries(AWS_SDK_PACKAGES)) assert.ok(without.stderr.includes(`'${name}@${range}'`), name);
    assert.ok(!existsSync(path.join(app, 'real')), 'nothing written');
    // but a dry run creates nothing and needs no SDK: its plan and cost
    // the bundle beside the package folder: a folder holding a file of the user's is not coldstart's to write
    writeFileSync(path.join(app, 'dry-bundle.js'), 'exports.handler = async () => ({ statusCode: 200 });\n');
    const cell = { framework: 'hono', variant: 'validated' as const, routes: 1 };
    writeLambdaPackage(path.join(app, 'dry-pkg'), [{ cell, bundle: path.join(app, 'dry-bundle.js') }], { runtime: 'nodejs22.x' });
    const dry = npx(['lambda:run', 'dry-pkg', '--region', 'eu-west-1', '--create-role', '--out', 'dry', '--dry-run']);
    assert.equal(dry.status, 0, said(dry));
    assert.match(dry.stdout, /^estimated cost: \$/m);
    assert.match(dry.stdout, /^dry run: nothing created$/m);
    assert.ok(!existsSync(path.join(app, 'dry')), 'nothing written');

    // the install the line asks for, with npm's overrides where the registry lacks the SDK's newest internals
    const npmInstall = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'];
    let install = run('npm', [...npmInstall, ...Object.entries(AWS_SDK_PACKAGES).map(([name, range]) => `${name}@${range}`)], app);
    if (install.status !== 0 && /ETARGET/.test(install.stderr)) {
      install = run('npm', [...npmInstall, ...pinSdkToLock(app, Object.keys(AWS_SDK_PACKAGES))], app);
    }
    assert.equal(install.status, 0, said(install));

    const fake = new FakeLambda();
    await fake.start();
    try {
      const clean = await npxAsync(['lambda:clean', '--region', 'eu-west-1', '--dry-run'], {
        AWS_ENDPOINT_URL: fake.url,
        AWS_ACCESS_KEY_ID: 'AKIDCOLDSTARTTEST',
        AWS_SECRET_ACCESS_KEY: 'coldstart-install-test',
        AWS_EC2_METADATA_DISABLED: 'true',
      });
      assert.equal(clean.status, 0, said(clean));
      assert.ok(
        fake.calls.some((call) => call.op === 'ListFunctions'),
        'the SDK of the app asked the endpoint for the functions',
      );
    } finally {
      await fake.stop();
    }
  });

  /** `npx coldstart ARGS` from the app's folder without blocking this process (the fake Lambda endpoint answers from it). */
  function npxAsync(args: string[], env: NodeJS.ProcessEnv): Promise<CliAnswer> {
    return runAsync('npx', ['--no-install', 'coldstart', ...args], app, env);
  }
});
