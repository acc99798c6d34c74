/**
 * The cells of `measure`: the user's own server entries and Lambda handlers instead of generated
 * files. An app is a cell like any other (framework = its name, variant plain, routes 1, source
 * app), multiplied by the same levers and memory sizes, so every output and `compare` work on it;
 * only the SOURCE of its file and how it is asked differ (core/app.ts). A server entry runs with
 * coldstart's preload (`--require`); a handler runs under coldstart's Lambda bootstrap.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeAppFiles } from '../../generators/app-probe.ts';
import { defaultContract } from '../../generators/contract.ts';
import type { AppSpec } from '../core/app.ts';
import { APP_SOURCE, cellKey, makeCell } from '../core/cell.ts';
import { UsageError } from '../core/errors.ts';
import { bundleFile, bundlePath } from './bundle.ts';
import type { PlannedCell, PreparedCells } from './cells.ts';
import { DEFAULT_LEVERS, expandCells, type BlockedCell, type CompileCache, type LeverLists } from './levers.ts';
import { resolveRuntimes } from './runtimes.ts';

export interface AppCellOptions {
  apps: AppSpec[];
  /** the node binary of the `node` runtime */
  node: string;
  levers?: LeverLists;
  /** --lambda-memory (default none: no limits, 0) */
  memories?: readonly number[];
}

/** A name for tables and Lambda function names: lowercase letters, digits and single dashes. */
export const APP_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
export const MAX_APP_NAME = 40;

/** The name an app gets from its file when the user gives none: `src/Orders API.mjs` → `orders-api`. */
export function appNameOf(file: string): string {
  const base = path
    .basename(file, path.extname(file))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_APP_NAME)
    .replace(/-+$/, '');
  return /^[a-z]/.test(base) ? base : `app-${base || 'entry'}`.replace(/-+$/, '');
}

/** A user's name for an app, checked; a bad one is a UsageError. */
export function checkAppName(name: string): string {
  if (!APP_NAME.test(name) || name.length > MAX_APP_NAME) {
    throw new UsageError(
      `--name: "${name}" is not a name (lowercase letters, digits and single dashes, starting with a letter, up to ${MAX_APP_NAME})`,
    );
  }
  return name;
}

/** The file must exist and be a file: a one-line UsageError otherwise. */
export function checkAppFile(option: string, file: string): string {
  if (!existsSync(file)) throw new UsageError(`${option}: ${file} does not exist`);
  if (!statSync(file).isFile()) throw new UsageError(`${option}: ${file} is not a file`);
  return file;
}

/** Every app × memory size × runtime × build × compile cache, each with its launch. */
export async function prepareAppCells(
  options: AppCellOptions,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<PreparedCells> {
  const lists = options.levers ?? DEFAULT_LEVERS;
  const runtimes = resolveRuntimes(lists.runtimes, options.node, env, log);
  const { preload, lambdaBootstrap } = writeAppFiles();
  const byName = new Map(options.apps.map((app) => [app.name, app]));
  const memories = options.memories ?? [0];
  const base = options.apps.flatMap((app) =>
    memories.map((memory) => makeCell({ framework: app.name, variant: 'plain', routes: 1, target: app.kind, memory, source: APP_SOURCE })),
  );
  const cells = expandCells(base, lists);
  const files = new Map<string, string>();
  const blocked = new Map<string, BlockedCell>();
  if (cells.some((c) => c.build === 'bundle')) log('bundling the apps with esbuild…');
  const planned: PlannedCell[] = [];
  for (const cell of cells) {
    const app = byName.get(cell.framework)!;
    const runtime = runtimes.get(cell.runtime)!;
    const key = cellKey(cell);
    let file = app.file;
    if (cell.compileCache !== 'off' && runtime.compileCacheUnsupported) {
      blocked.set(key, { kind: 'unsupported', reason: runtime.compileCacheUnsupported });
    } else if (cell.build === 'bundle') {
      const output = bundlePath(path.posix.join('app', `${app.name}.js`), runtime.bundleTarget);
      // always rebuilt: the bundle's cache key knows the project's packages, not the app's
      rmSync(`${output}.key`, { force: true });
      const outcome = await bundleFile(app.file, output, runtime.bundleTarget);
      if (outcome.ok) file = outcome.file;
      else {
        log(`${app.name}: ${outcome.error}`);
        blocked.set(key, { kind: 'failed', reason: outcome.error });
      }
    }
    // a server runs its (bundled) entry with the preload; a handler runs coldstart's bootstrap, which requires it
    const runs = app.kind === 'server' ? file : lambdaBootstrap;
    if (!blocked.has(key)) files.set(key, runs);
    const why = blocked.get(key);
    planned.push({
      cell,
      launch: why
        ? undefined
        : {
            command: runtime.command,
            file: runs,
            compileCache: cell.compileCache as CompileCache,
            ...(app.kind === 'server' ? { preArgs: ['--require', preload], args: app.args } : {}),
            cwd: app.cwd,
          },
      blocked: why,
      contract: defaultContract,
      validates: false,
      app: { ...app, file },
    });
  }
  return { selected: [], skipped: new Map(), cells: planned, levers: { lists, cells, runtimes, files, blocked } };
}
