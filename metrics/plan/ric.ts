/**
 * AWS's Runtime Interface Client for Node.js (npm package aws-lambda-ric: what Lambda's managed
 * runtime has in /var/runtime), installed on first use into .runtimes/aws-lambda-ric/ like the
 * downloaded runtimes, never as a project dependency: it needs Node >= 22 and its install builds
 * curl, aws-lambda-cpp and a native addon (rapid-client.node) with cmake, make and a C++ compiler.
 * It is built once, with the Node 22 download on PATH and its headers (npm's `nodedir`), so no
 * header download is needed; the addon uses Node-API, so the same build loads on Node 24.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { UsageError } from '../core/errors.ts';
import { npmInstall } from './npm-install.ts';
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

/** The client's folder under a runtimes root. */
export function ricPackageDir(root = RUNTIMES_DIR): string {
  return path.join(root, RIC_PACKAGE, 'node_modules', RIC_PACKAGE);
}

function installedVersion(dir: string): string | undefined {
  try {
    if (!existsSync(path.join(dir, 'index.mjs')) || !existsSync(path.join(dir, 'rapid-client.node'))) return undefined;
    return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

function onPath(tool: string, env: NodeJS.ProcessEnv): boolean {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', tool], { env, stdio: 'ignore' }).status === 0;
}

/** Why the client cannot be built on this machine (a missing tool), or undefined. */
export function ricBuildProblem(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform !== 'linux') return `${RIC_PACKAGE} builds only on Linux`;
  const missing = BUILD_TOOLS.filter((tool) => !onPath(tool, env));
  return missing.length ? `building ${RIC_PACKAGE} needs ${missing.join(', ')} (not found)` : undefined;
}

/**
 * The client, installed when it is not there (about 40 s of compiling on 2 vCPUs, once). A client
 * that cannot be installed is a UsageError saying why.
 */
export function ensureRic(env: NodeJS.ProcessEnv, log: (line: string) => void, root = RUNTIMES_DIR): ResolvedRic {
  const dir = ricPackageDir(root);
  const spec = `${RIC_PACKAGE}@${RIC_VERSION}`;
  const source = `${spec} (built with Node 22's headers)`;
  if (installedVersion(dir) === RIC_VERSION) return { dir, version: RIC_VERSION, source };
  const problem = ricBuildProblem(process.env);
  if (problem) throw new UsageError(`--lambda-bootstrap ric: ${problem}`);
  const node22 = ensureRuntime('node22', env, log, root);
  const nodeDir = path.dirname(path.dirname(node22.command));
  const prefix = path.join(root, RIC_PACKAGE);
  log(
    `installing ${spec} (the Runtime Interface Client) into ${path.relative(process.cwd(), prefix) || prefix}: ` +
      'it compiles curl, aws-lambda-cpp and a native addon, about 40 s on 2 vCPUs, once',
  );
  const started = performance.now();
  const npm = npmInstall(prefix, [spec], {
    save: 'none',
    lockfile: false,
    // its install scripts build the client
    scripts: true,
    waitMs: 1_200_000,
    // npm and node-gyp run on Node 22 and compile against its headers (not the machine's node)
    env: { ...process.env, PATH: `${path.dirname(node22.command)}:${process.env.PATH ?? ''}`, npm_config_nodedir: nodeDir },
  });
  if (!npm.ok) throw new UsageError(`--lambda-bootstrap ric: cannot install ${spec}: ${npm.reason}`);
  if (installedVersion(dir) !== RIC_VERSION)
    throw new UsageError(`--lambda-bootstrap ric: ${spec} installed but ${dir} has no rapid-client.node`);
  log(`${spec} built in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return { dir, version: RIC_VERSION, source };
}
