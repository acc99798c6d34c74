/**
 * How a cell starts: the one launch builder every command uses. A cell's resolved launch (which
 * binary, which file, which compile cache) is known when the plan is made; the measuring side adds
 * the working folder, the environment and, for a compile-cache cell, the cache directory.
 */
import type { ManagedStart } from './lambda-bootstrap.ts';
import type { CompileCache } from './levers.ts';

/** Node's module compile cache directory variable (Node >= 22.1). */
export const COMPILE_CACHE_ENV = 'NODE_COMPILE_CACHE';

/** What a cell runs, resolved from its dimensions. */
export interface CellLaunch {
  /** the runtime binary */
  command: string;
  /** the file it runs: the generated file or its bundle */
  file: string;
  compileCache: CompileCache;
  /** a Lambda cell started as the managed runtime starts it (lambda-bootstrap.ts); absent: `command file` */
  start?: ManagedStart;
  /** runtime options before the file (the user's app: the preload; a profiled run: the profiler's), or before the bootstrap's flags */
  preArgs?: string[];
  /** arguments after the file (the user's app: its own command line) */
  args?: string[];
  /** the folder it runs in, when not the run's scratch folder (the user's app: its own) */
  cwd?: string;
}

/** A process to start. */
export interface Launch {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** the app or handler file it runs, when it is not the last argument (a client loads it) */
  file?: string;
}

/**
 * The process of one run of a cell: NODE_COMPILE_CACHE only when the cell uses the cache (never the
 * parent's), pointing at `cacheDir`, which a cold or warm cell must be given.
 */
export function launchOf(cell: CellLaunch, cwd: string, env: NodeJS.ProcessEnv, cacheDir?: string): Launch {
  const { [COMPILE_CACHE_ENV]: _parentCache, ...childEnv } = env;
  if (cell.compileCache !== 'off') {
    if (!cacheDir) throw new Error(`a ${cell.compileCache} compile cache cell needs a cache directory`);
    childEnv[COMPILE_CACHE_ENV] = cacheDir;
  }
  if (cell.start) {
    // the client loads the handler: the bootstrap's flags and variables, never the parent's NODE_PATH
    // (runtime options of the runner's own, the profiler's, come before the bootstrap's)
    return {
      command: cell.command,
      args: [...(cell.preArgs ?? []), ...cell.start.args],
      cwd: cell.cwd ?? cwd,
      env: { ...childEnv, ...cell.start.env },
      file: cell.file,
    };
  }
  return {
    command: cell.command,
    args: [...(cell.preArgs ?? []), cell.file, ...(cell.args ?? [])],
    cwd: cell.cwd ?? cwd,
    env: childEnv,
    file: cell.file,
  };
}
