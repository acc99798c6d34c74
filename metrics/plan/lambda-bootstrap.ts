/**
 * How a Lambda cell's process starts (`--lambda-bootstrap`). `probe`: the generated file is its own
 * Runtime API client (`node file.js`), as every Lambda cell started before this lever existed.
 * `ric`: as Lambda's managed Node.js runtime starts a function. Its `/var/runtime/bootstrap` (a bash
 * script; read from the published nodejs24.x runtime and AWS's container images) sets NODE_PATH,
 * derives V8 heap limits from AWS_LAMBDA_FUNCTION_MEMORY_SIZE, exports AWS_EXECUTION_ENV and execs
 *
 *   /var/lang/bin/node --expose-gc --max-http-header-size 81920 \
 *     --max-semi-space-size=<MB/10/2> --max-old-space-size=<MB − MB/10> /var/runtime/index.mjs
 *
 * where /var/runtime holds the Runtime Interface Client (npm package aws-lambda-ric: index.mjs and
 * its native rapid-client.node), which loads the handler named by _HANDLER from LAMBDA_TASK_ROOT.
 * Here /var/runtime is the client installed in .runtimes/ (ric.ts) and /var/task the handler's folder.
 * `ric-noflags`: the same client, variables and handler without the bootstrap's node flags, so that what
 * the flags cost (they make Node reject its built-in code cache) is a lever of its own.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppSpec } from '../core/app.ts';
import { BOOTSTRAPS, isCounted, type Bootstrap } from '../core/dimensions.ts';
import { isLambdaRuntimeLine, lineMajor, type LambdaRuntimeLine } from '../core/lambda-platform.ts';
import type { Cell } from '../core/cell.ts';

/** The starts that run the Runtime Interface Client (with or without the bootstrap's flags). */
export type RicBootstrap = Exclude<Bootstrap, 'probe'>;

/** Whether a cell's start is the Runtime Interface Client's (a string: cells of older runs hold any text). */
export function isRicBootstrap(bootstrap: string | undefined): bootstrap is RicBootstrap {
  return bootstrap !== 'probe' && (BOOTSTRAPS as readonly (string | undefined)[]).includes(bootstrap);
}
/** The default for Lambda cells: the managed runtime's own start. */
export const DEFAULT_BOOTSTRAP: Bootstrap = 'ric';

/** The flags the bootstrap passes on every current line, before the heap flags. */
export function lineFlags(_line: LambdaRuntimeLine): string[] {
  return ['--expose-gc', '--max-http-header-size', '81920'];
}

/** The V8 heap limits the bootstrap derives from the memory size: new space 10 % (semi space half of it), old space the rest. */
export function heapFlags(memoryMB: number): string[] {
  const newSpace = Math.floor(memoryMB / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMB - newSpace}`];
}

/** What the managed runtime's bootstrap adds to a process: its arguments (the client last) and variables. */
export interface ManagedStart {
  bootstrap: RicBootstrap;
  /** node's arguments: the flags, then the client's index.mjs */
  args: string[];
  /** NODE_PATH and AWS_EXECUTION_ENV */
  env: Record<string, string>;
  /** the flags alone, for meta.json (none for `ric-noflags`) */
  flags: string[];
}

/**
 * The start of a `ric` cell: `ricDir` is the client's package folder (Lambda's /var/runtime), `taskRoot`
 * the handler's folder (/var/task). The /opt paths of NODE_PATH (layers) are kept as Lambda has them:
 * without layers they do not exist there either.
 */
export function managedRuntimeStart(options: {
  bootstrap: RicBootstrap;
  line: LambdaRuntimeLine;
  memoryMB: number;
  ricDir: string;
  taskRoot: string;
}): ManagedStart {
  const { bootstrap, line, memoryMB, ricDir, taskRoot } = options;
  const flags = bootstrap === 'ric' ? [...lineFlags(line), ...heapFlags(memoryMB)] : [];
  const nodePath = [
    `/opt/nodejs/node${lineMajor(line)}/node_modules`,
    '/opt/nodejs/node_modules',
    path.join(ricDir, 'node_modules'),
    ricDir,
    taskRoot,
  ].join(':');
  return {
    bootstrap,
    args: [...flags, path.join(ricDir, 'index.mjs')],
    env: { NODE_PATH: nodePath, AWS_EXECUTION_ENV: `AWS_Lambda_${line}` },
    flags,
  };
}

/**
 * Whether Node loads `file` as an ES module: `.mjs`, or `.js` (or no extension) under a package.json
 * whose type is "module" (the nearest one, as Node looks). Its static imports pass neither require nor
 * the CommonJS compiler: only the split preload's load hook sees them (asksInitSplit).
 */
export function isEsModuleFile(file: string): boolean {
  const extension = path.extname(file);
  if (extension === '.mjs') return true;
  if (extension === '.cjs') return false;
  for (let dir = path.dirname(path.resolve(file)); ; dir = path.dirname(dir)) {
    try {
      const parsed = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { type?: unknown } | null;
      return parsed !== null && typeof parsed === 'object' && parsed.type === 'module';
    } catch {
      // no package.json here (or not JSON: Node fails on it later, with its own message)
    }
    if (path.dirname(dir) === dir) return false;
  }
}

/**
 * Whether a sample asks its file for INIT's split (INIT_SPLIT_ENV): timed (the wrapping would change a
 * count). A generated file has the probe in it; a user's CommonJS handler is loaded by coldstart's
 * bootstrap, which has it too, or under the Runtime Interface Client the split preload (app-probe.ts:
 * the handler's own top level is running, what it requires loading). A user's ES module handler
 * (isEsModuleFile) only under the client on a Lambda line of Node 22 or later, where the preload's load
 * hook (module.registerHooks) marks its first statement; coldstart's bootstrap requires it whole.
 */
export function asksInitSplit(cell: Cell, app: AppSpec | undefined): boolean {
  if (isCounted(cell)) return false;
  // an eager cell's wrapper carries the probe, as a generated file (it drops the split for an ES module)
  if (!app || app.eagerOf !== undefined || !isEsModuleFile(app.file)) return true;
  return isRicBootstrap(cell.bootstrap) && isLambdaRuntimeLine(cell.runtime) && lineMajor(cell.runtime) >= 22;
}
