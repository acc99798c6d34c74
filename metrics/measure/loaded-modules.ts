/**
 * The modules a server (a generated file, or the user's entry) loads before it listens, each with its
 * size on disk: one more, unrecorded run of the file (not under valgrind, not timed), with a preloaded
 * hook that lists the modules loaded once the first server listens and then ends the process. The list
 * is what the start loaded, the same on every run (bisect's per-package table: which packages'
 * loaded code changed between two releases). The hook itself loads node:net and node:fs first.
 * CommonJS modules come from `require.cache`; ES modules from a module-customization hook
 * (`module.register`, Node 20.6 and later: its `load` hook runs on Node's hooks thread and appends
 * each ES module's URL to a file), so an ES module entry and the ES module packages it imports are
 * listed too; a file loaded both ways is listed once. Node's own modules come from
 * process.moduleLoadList (`node:http2`, `node:internal/http2/core`, 0 bytes: they are not on disk).
 * The run is contained as a sample is (measure/contain.ts): whatever the app starts (a daemon that
 * left its session) is killed when it ends; its output goes to no pipe a daemon could hold open,
 * stderr to a file of which the first line is read, bounded.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadedModule } from '../core/packages.ts';
import { readTextBounded } from '../store/input-files.ts';
import { withContainment } from './contain.ts';
import { childEnvironment } from './environment.ts';

/** The hooks-thread side: every ES module (format `module`) loaded from a file, its URL appended to the list. */
const ESM_HOOKS = `import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function load(url, context, next) {
  const result = await next(url, context);
  if (out && result.format === 'module' && url.startsWith('file:')) appendFileSync(out, url + '\\n');
  return result;
}
`;

/**
 * The preloaded hook: the ES module hooks registered (where Node has module.register); when the first
 * server listens, every module of require.cache (but itself) and every ES module the hooks saw, each
 * file once with its bytes on disk, then Node's own modules loaded so far; then the process exits.
 */
const HOOK = `'use strict';
const { readFileSync, statSync, writeFileSync } = require('node:fs');
const net = require('node:net');
const { pathToFileURL, fileURLToPath } = require('node:url');
const esmList = process.env.COLDSTART_LOADED_ESM;
const nodeModule = require('node:module');
if (typeof nodeModule.register === 'function' && esmList) {
  writeFileSync(esmList, '');
  nodeModule.register(pathToFileURL(process.env.COLDSTART_LOADED_HOOKS), { data: { out: esmList } });
}
function list() {
  const files = new Set(Object.keys(require.cache).filter((file) => file !== __filename));
  if (esmList) {
    let urls = '';
    try { urls = readFileSync(esmList, 'utf8'); } catch {}
    for (const url of urls.split('\\n')) if (url) try { files.add(fileURLToPath(url)); } catch {}
  }
  const modules = [...files].sort().map((file) => {
    let bytes = 0;
    try { bytes = statSync(file).size; } catch {}
    return { file, bytes };
  });
  // Node's own modules (not on disk: 0 bytes), by the list Node keeps of what it loaded
  for (const entry of process.moduleLoadList || []) {
    if (entry.startsWith('NativeModule ')) modules.push({ file: 'node:' + entry.slice('NativeModule '.length), bytes: 0 });
  }
  writeFileSync(process.env.COLDSTART_LOADED_OUT, JSON.stringify(modules));
}
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => setImmediate(() => { list(); process.exit(0); }));
  return listen.apply(this, args);
};
`;

/** How long the listing run may take: a 1,000-route start takes seconds, a loaded machine more. */
const LIST_LIMIT_MS = 300_000;

/** How much of the app's stderr is read for the reason it failed. */
const STDERR_READ_BYTES = 4096;

/** The first non-empty line of the first STDERR_READ_BYTES of `file`, at most 200 characters. */
function firstLine(file: string): string {
  const text = readTextBounded(file, STDERR_READ_BYTES, "the app's stderr", { prefix: true });
  return (text.split('\n').find((l) => l.trim()) ?? '').trim().slice(0, 200);
}

/**
 * The modules `file` (run in `cwd` with `args`, the app's own command line) loads until it listens,
 * or why they could not be read (one line).
 */
export function loadedModules(
  file: string,
  cwd: string,
  args: readonly string[] = [],
): { ok: true; modules: LoadedModule[] } | { ok: false; reason: string } {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'coldstart-loaded-'));
  try {
    const hook = path.join(scratch, 'hook.cjs');
    const out = path.join(scratch, 'modules.json');
    const stderr = path.join(scratch, 'stderr');
    const hooks = path.join(scratch, 'esm-hooks.mjs');
    writeFileSync(hook, HOOK);
    writeFileSync(hooks, ESM_HOOKS);
    const { env } = childEnvironment(process.env, {
      PORT: '0',
      COLDSTART_LOADED_OUT: out,
      COLDSTART_LOADED_ESM: path.join(scratch, 'esm.txt'),
      COLDSTART_LOADED_HOOKS: hooks,
    });
    const launch = withContainment({ command: process.execPath, args: ['--require', hook, file, ...args], env });
    const errFd = openSync(stderr, 'w');
    let child;
    try {
      // at the time limit: the helper ignores SIGTERM (SIGUSR1 kills its tree), a namespace's init too
      const killSignal = launch.contained ? 'SIGUSR1' : 'SIGKILL';
      child = spawnSync(launch.command, launch.args, {
        cwd,
        env: launch.env,
        timeout: LIST_LIMIT_MS,
        killSignal,
        stdio: ['ignore', 'ignore', errFd],
      });
    } finally {
      closeSync(errFd);
    }
    if (child.error) return { ok: false, reason: child.error.message };
    if (child.status !== 0) {
      const last = firstLine(stderr);
      return { ok: false, reason: `exited ${child.status ?? child.signal}${last ? `: ${last}` : ''}` };
    }
    const modules = JSON.parse(readFileSync(out, 'utf8')) as LoadedModule[];
    return { ok: true, modules };
  } catch (error) {
    return { ok: false, reason: (error as Error).message.split('\n')[0] ?? 'unreadable' };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
