/**
 * AWS's Runtime Interface Client for Node.js (npm package aws-lambda-ric: what Lambda's managed
 * runtime has in /var/runtime), never a project dependency: it needs Node >= 22 and its install builds
 * curl, aws-lambda-cpp and a native addon (rapid-client.node) with cmake, make and a C++ compiler (the
 * registry ships no prebuilt addon: its tarball holds only the sources of curl and aws-lambda-cpp).
 * It is built once per machine into a cache shared by every clone and run (ricCacheRoot:
 * $COLDSTART_RIC_CACHE, else $XDG_CACHE_HOME/coldstart/ric, else ~/.cache/coldstart/ric), one folder per
 * client version and platform; the addon uses Node-API, so the same build loads on Node 22 and 24. It is
 * built with the Node 22 download on PATH and its headers (npm's `nodedir`), so no header download is
 * needed, into a partial folder renamed into place when complete; a Ctrl-C or SIGTERM stops the build
 * (its whole process group) and removes the partial folder (ric-build.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ExitCodeError, UsageError } from '../core/errors.ts';
import { childDeadlineMs, childFailureLine, deadlinePassed } from '../core/child-deadlines.ts';
import { npmErrorLine, npmInstallArgs } from './npm-install.ts';
import { BUILD_PAST_DEADLINE, buildDeadlineS, runInterruptibleBuild, runInterruptibleBuildAsync } from './ric-build.ts';
import { ensureRuntime, RUNTIMES_DIR } from './runtimes.ts';

export const RIC_PACKAGE = 'aws-lambda-ric';
/** pinned: the newest release when this was written (`npm view aws-lambda-ric version`) */
export const RIC_VERSION = '4.0.2';
/** the tools its install scripts run */
const BUILD_TOOLS = ['cmake', 'make', 'g++', 'python3'];

export interface ResolvedRic {
  /** the client's package folder (Lambda's /var/runtime) */
  dir: string;
  version: string;
  /** package@version and how it was built */
  source: string;
}

/**
 * How long the build took on the machine this was written on (2 shared vCPUs, load 8.3 to 8.5 while it ran):
 * the figure the announcement gives (docs/guide/lambda.md).
 */
const RIC_BUILD_SECONDS_MEASURED = 73;

/** The machine-wide cache of built clients: $COLDSTART_RIC_CACHE, else $XDG_CACHE_HOME/coldstart/ric, else ~/.cache/coldstart/ric. */
function ricCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.COLDSTART_RIC_CACHE) return path.resolve(env.COLDSTART_RIC_CACHE);
  return path.join(env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache'), 'coldstart', 'ric');
}

/** One built client in the cache: per version, platform and architecture (Node-API: one build for every Node). */
function ricCacheEntry(cache = ricCacheRoot()): string {
  return path.join(cache, `${RIC_VERSION}-napi-${process.platform}-${process.arch}`);
}

/** The client's package folder in a cache entry. */
export function ricPackageDir(entry = ricCacheEntry()): string {
  return path.join(entry, 'node_modules', RIC_PACKAGE);
}

function installedVersion(dir: string): string | undefined {
  try {
    if (!existsSync(path.join(dir, 'index.mjs')) || !existsSync(path.join(dir, 'rapid-client.node'))) return undefined;
    return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** Whether `tool` is on env.PATH (`command -v`), or the line saying the lookup itself did not end (its deadline). */
function onPath(tool: string, env: NodeJS.ProcessEnv): boolean | string {
  const deadlineMs = childDeadlineMs('probe', env);
  const run = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', tool], { env, stdio: 'ignore', timeout: deadlineMs, killSignal: 'SIGKILL' });
  if (deadlinePassed(run)) return childFailureLine(`\`command -v ${tool}\``, run, deadlineMs)!;
  return run.status === 0;
}

/** Why the client cannot be built on this machine (a missing tool, or a lookup past its deadline), or undefined. */
export function ricBuildProblem(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform !== 'linux') return `${RIC_PACKAGE} builds only on Linux`;
  const found = BUILD_TOOLS.map((tool) => [tool, onPath(tool, env)] as const);
  const hung = found.find(([, on]) => typeof on === 'string');
  if (hung) return `building ${RIC_PACKAGE}: ${hung[1] as string}`;
  const missing = found.filter(([, on]) => on === false).map(([tool]) => tool);
  return missing.length ? `building ${RIC_PACKAGE} needs ${missing.join(', ')} (not found)` : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Partial builds whose process is gone (a machine that lost power mid-build): removed. */
function removeStalePartials(cache: string): void {
  for (const name of readdirSync(cache)) {
    const pid = /\.partial-(\d+)(\.removing)?$/.exec(name)?.[1];
    if (pid && !alive(Number(pid))) rmSync(path.join(cache, name), { recursive: true, force: true });
  }
}

interface RicBuild {
  dir: string;
  entry: string;
  partial: string;
  logFile: string;
  spec: string;
  env: NodeJS.ProcessEnv;
  args: string[];
  started: number;
}

const ricSource = `${RIC_PACKAGE}@${RIC_VERSION} (built with Node 22's headers)`;

/** The build to run (announced), or undefined when the cache has the client. */
function startRicBuild(env: NodeJS.ProcessEnv, log: (line: string) => void, root: string, cache: string): RicBuild | undefined {
  const entry = ricCacheEntry(cache);
  const dir = ricPackageDir(entry);
  const spec = `${RIC_PACKAGE}@${RIC_VERSION}`;
  if (installedVersion(dir) === RIC_VERSION) return undefined;
  const problem = ricBuildProblem(process.env);
  if (problem) throw new UsageError(`--lambda-bootstrap ric: ${problem}`);
  const node22 = ensureRuntime('node22', env, log, root);
  const nodeDir = path.dirname(path.dirname(node22.command));
  mkdirSync(cache, { recursive: true });
  removeStalePartials(cache);
  const partial = `${entry}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  log(
    `building ${spec} (AWS's Runtime Interface Client: the managed runtime's start, --lambda-bootstrap ric; ` +
      `the registry ships no prebuilt addon) into ${entry}: curl, aws-lambda-cpp and a native addon, ` +
      `once per machine; it took ${RIC_BUILD_SECONDS_MEASURED} s on 2 shared vCPUs at load 8 ` +
      '(Ctrl-C stops it and removes the partial build)',
  );
  return {
    dir,
    entry,
    partial,
    spec,
    logFile: path.join(partial, 'build.log'),
    args: npmInstallArgs(partial, [spec], { save: 'none', lockfile: false, scripts: true }),
    // npm and node-gyp run on Node 22 and compile against its headers (not the machine's node)
    env: { ...process.env, PATH: `${path.dirname(node22.command)}:${process.env.PATH ?? ''}`, npm_config_nodedir: nodeDir },
    started: performance.now(),
  };
}

/** The build's end: the partial folder renamed into the cache, or removed and the reason thrown. */
function finishRicBuild(build: RicBuild, status: number | null, log: (line: string) => void): ResolvedRic {
  const { dir, entry, partial, spec, logFile } = build;
  const output = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
  rmSync(logFile, { force: true });
  if (status !== 0) {
    rmSync(partial, { recursive: true, force: true });
    if (status !== null && status > 128) throw new ExitCodeError(`--lambda-bootstrap ric: the build of ${spec} was interrupted`, status);
    if (status === BUILD_PAST_DEADLINE) {
      const allowed = buildDeadlineS();
      throw new UsageError(`--lambda-bootstrap ric: the build of ${spec} did not end within its ${allowed} s deadline: stopped it`);
    }
    throw new UsageError(`--lambda-bootstrap ric: cannot build ${spec}: ${npmErrorLine(output) || `exit ${status}`}`);
  }
  if (installedVersion(ricPackageDir(partial)) !== RIC_VERSION) {
    rmSync(partial, { recursive: true, force: true });
    throw new UsageError(`--lambda-bootstrap ric: ${spec} installed but has no rapid-client.node`);
  }
  // another run may have finished the same build meanwhile: keep the one in place
  if (installedVersion(dir) === RIC_VERSION) rmSync(partial, { recursive: true, force: true });
  else {
    rmSync(entry, { recursive: true, force: true });
    renameSync(partial, entry);
  }
  log(`${spec} built in ${((performance.now() - build.started) / 1000).toFixed(0)} s (cached in ${entry})`);
  return { dir, version: RIC_VERSION, source: ricSource };
}

/**
 * The client, from the machine's cache, built into it when it is not there (announced with where and how
 * long, a progress line every few seconds, then the time it took). A client that cannot be built is a
 * UsageError saying why; an interrupted build leaves no process and no partial folder. Synchronous (the
 * tests' skip reasons): a signal this process catches waits for the build; the CLI uses ensureRicAsync.
 */
export function ensureRic(env: NodeJS.ProcessEnv, log: (line: string) => void, root = RUNTIMES_DIR, cache = ricCacheRoot()): ResolvedRic {
  const build = startRicBuild(env, log, root, cache);
  if (!build) return { dir: ricPackageDir(ricCacheEntry(cache)), version: RIC_VERSION, source: ricSource };
  const { partial, spec, logFile } = build;
  return finishRicBuild(build, runInterruptibleBuild('npm', build.args, { partial, label: spec, logFile, env: build.env }).status, log);
}

/** ensureRic for a command with signal handlers: a Ctrl-C or SIGTERM stops the build at once (exit 128 + n). */
export async function ensureRicAsync(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  root = RUNTIMES_DIR,
  cache = ricCacheRoot(),
): Promise<ResolvedRic> {
  const build = startRicBuild(env, log, root, cache);
  if (!build) return { dir: ricPackageDir(ricCacheEntry(cache)), version: RIC_VERSION, source: ricSource };
  const { partial, spec, logFile } = build;
  const outcome = await runInterruptibleBuildAsync('npm', build.args, { partial, label: spec, logFile, env: build.env });
  return finishRicBuild(build, outcome.status, log);
}
