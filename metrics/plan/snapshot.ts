/**
 * The `snapshot` build of a user's server entry: V8's user-land startup snapshot. The app is bundled
 * (esbuild: `node --build-snapshot` runs ONE script whose `require` reaches only builtins), the bundle
 * is wrapped by SNAPSHOT_PRELUDE and SNAPSHOT_POSTLUDE, and `node --snapshot-blob <blob>
 * --build-snapshot <wrapper>` runs the app's top level once and writes the heap to the blob. A sample
 * then starts `node --snapshot-blob <blob>` (with coldstart's preload), which deserializes the heap
 * instead of loading and running the code.
 *
 * A server cannot listen while the snapshot is built (an open socket is not serializable), so the
 * wrapper defers it: while the bundle's top level runs, `net.Server.prototype.listen` records its
 * calls instead of listening; then it is restored, and the deserialized main function replays the
 * calls. The port the app read from PORT at build time (the builder sets SNAPSHOT_BUILD_PORT) is
 * replaced by the PORT of the start. Anything else the top level read then (the environment, the
 * clock, files) is frozen in the blob: the same-answer proof compares the answer with the plain
 * build's. A top level that leaves a timer, a socket or a file operation open cannot be snapshotted:
 * the wrapper stops the build with the open resources' names.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppSpec } from '../core/app.ts';
import type { Cell } from '../core/cell.ts';
import { oneLine } from '../core/escape.ts';
import type { ResolvedRuntime } from './runtimes.ts';
import { isCounted } from '../core/dimensions.ts';
import { targetKind } from '../core/kinds.ts';

/** What a failed build's reason starts with (the answer lists the variant as not ranked with it). */
export const SNAPSHOT_FAILURE = 'cannot build a startup snapshot';

/** The PORT the app sees while the snapshot is built; a listen call on it is replayed on the start's PORT. */
export const SNAPSHOT_BUILD_PORT = '39999';

/** How long the builder may run before it is stopped (a top level that never settles). */
const BUILD_TIMEOUT_MS = 120_000;
/** Milliseconds as seconds, to a tenth below 10 s. */
function seconds(ms: number): string {
  return ms < 10_000 ? (Math.round(ms / 100) / 10).toString() : Math.round(ms / 1000).toString();
}
/** At most this much of the builder's output is kept (V8's fatal errors print whole objects). */
const MAX_OUTPUT_BYTES = 256 * 1024;
/** The reason is cut to this many characters. */
const MAX_REASON = 240;

export const SNAPSHOT_PRELUDE = `'use strict';
/* coldstart startup snapshot wrapper v1: the app's bundle runs once at build time with its listen calls deferred */
const __coldstartSnapshot = (function () {
  const net = require('node:net');
  const v8 = require('node:v8');
  const listen = net.Server.prototype.listen;
  const calls = [];
  net.Server.prototype.listen = function (...args) {
    calls.push({ server: this, args });
    return this;
  };
  return { net, v8, listen, calls, buildPort: process.env.PORT, module: { exports: {} } };
})();
try {
(function (exports, require, module, __filename, __dirname) {
`;

export const SNAPSHOT_POSTLUDE = `
})(__coldstartSnapshot.module.exports, require, __coldstartSnapshot.module, __filename, __dirname);
} finally {
  __coldstartSnapshot.net.Server.prototype.listen = __coldstartSnapshot.listen;
}
(function (s) {
  // the standard streams are the builder's own; anything else left open cannot go into a snapshot
  const open = process.getActiveResourcesInfo().filter((name) => name !== 'PipeWrap' && name !== 'TTYWrap');
  if (open.length > 0) {
    const what = [...new Set(open)].join(', ');
    throw new Error('the app leaves ' + what + ' open at the end of its top level (a timer, socket or file operation)');
  }
  function onPort(value, port) {
    return s.buildPort !== undefined && String(value) === s.buildPort ? (typeof value === 'number' ? Number(port) : port) : value;
  }
  s.v8.startupSnapshot.setDeserializeMainFunction(function () {
    const port = process.env.PORT;
    for (const { server, args } of s.calls) {
      const first = args[0];
      if (port !== undefined && first !== null && typeof first === 'object' && 'port' in first) {
        server.listen({ ...first, port: onPort(first.port, port) }, ...args.slice(1));
      } else {
        server.listen(...(port !== undefined && args.length > 0 ? [onPort(first, port), ...args.slice(1)] : args));
      }
    }
  });
})(__coldstartSnapshot);
`;

/**
 * Why an app's cell has no snapshot variant, or undefined when one is tried. A handler: Lambda's
 * managed runtime starts node itself (its bootstrap runs the Runtime Interface Client); node does
 * take `--snapshot-blob` from NODE_OPTIONS (checked on Node 20.20.2 and 24.21.0), but the blob then
 * restores a heap under the client, which loads the handler's file as usual.
 */
export function snapshotUnsupported(
  app: Pick<AppSpec, 'kind'>,
  cell: Pick<Cell, 'compileCache' | 'measure'>,
  runtime: Pick<ResolvedRuntime, 'kind'>,
): string | undefined {
  if (targetKind(app.kind).handler)
    return (
      "not applicable to a Lambda handler: the managed runtime's bootstrap starts node itself with its Runtime Interface Client; " +
      'NODE_OPTIONS=--snapshot-blob is accepted, but the client then loads the handler file as usual (using the snapshot needs ' +
      'a handler that takes its export from the restored heap: a change of the code), and a blob starts only on the exact node ' +
      "build that wrote it, while Lambda moves its runtime's patch version on its own schedule"
    );
  if (targetKind(app.kind).caps)
    return (
      'not applicable to a Lambda Web Function: its runtime starts node on index.js itself, and a blob starts only on the exact ' +
      "node build that wrote it while Lambda moves nodejs24.x's patch version on its own schedule (SnapStart reaches Node only " +
      'through container images)'
    );
  if (runtime.kind !== 'node') return 'Bun has no V8 startup snapshot (node --build-snapshot)';
  // node refuses a blob under other V8 flags than it was built with (exit 14, "Expected tag …, read …")
  if (isCounted(cell))
    return 'not counted: a blob starts only under the V8 flags it was built with, and a counted start adds --predictable and fixed seeds';
  if (cell.compileCache !== 'off')
    return 'a snapshot holds the app already compiled and run: no module is loaded after it for a compile cache to serve';
  return undefined;
}

/** The script `node --build-snapshot` runs: the bundle between the prelude and the postlude (same bundle, same bytes). */
export function snapshotWrapper(bundle: string): string {
  return `${SNAPSHOT_PRELUDE}${bundle}${SNAPSHOT_POSTLUDE}`;
}

/** Where a bundle's wrapper and blob live: beside it. */
export function snapshotPaths(bundleFile: string): { wrapper: string; blob: string } {
  return { wrapper: `${bundleFile}.snapshot.js`, blob: `${bundleFile}.snapshot.blob` };
}

/** The wrapper's own error: the app leaves something open (SNAPSHOT_POSTLUDE). */
const OPEN_AT_END = /^Error: the app leaves .* open at the end of its top level/;

/** The reason a build failed, as one bounded line from what node printed. */
export function snapshotErrorLine(output: string, status: number | null, signal: string | null): string {
  const lines = output.split('\n').map((l) => l.trim());
  // V8 refusing an object it cannot serialize prints the object: its first own properties say what it is
  const handle = lines.findIndex((l) => l.startsWith('global handle not serialized'));
  let reason: string | undefined;
  if (handle >= 0) {
    const names = lines
      .slice(handle, handle + 40)
      .flatMap((l) => /^0x[0-9a-f]+: \[String\][^#]*#(\w+):/.exec(l)?.[1] ?? [])
      .slice(0, 4);
    reason = `V8: global handle not serialized${names.length ? ` (an object holding ${names.join(', ')})` : ''}`;
  } else {
    const error = lines.findIndex((l) => /^(\w*Error|Error \[\w+\]): /.test(l) || l.startsWith('Failed to '));
    if (error >= 0) {
      // where it was thrown, by file name only (no path of this machine); the wrapper's own refusal needs none
      const at = OPEN_AT_END.test(lines[error]!) ? undefined : lines.slice(error + 1).find((l) => l.startsWith('at '));
      reason = `${lines[error]}${at ? ` (${at.replace(/(^at |\()\/(?:[^/\s)]+\/)*/, '$1')})` : ''}`;
    }
  }
  if (!reason) {
    const ended = signal ? `node was stopped by ${signal}` : `node exited with ${status ?? 'no status'}`;
    const last = lines.filter((l) => l && !l.startsWith('(node:') && !l.startsWith('(Use `node')).slice(-1)[0];
    reason = last ? `${ended}: ${last}` : ended;
  }
  const line = oneLine(reason).replace(/\s+/g, ' ').trim();
  return `${SNAPSHOT_FAILURE}: ${line.length > MAX_REASON ? `${line.slice(0, MAX_REASON - 1)}…` : line}`;
}

/** What the builder's run returned (spawnSync's fields that matter). */
export interface BuilderResult {
  status: number | null;
  signal: string | null;
  output: string;
  /** set when the process could not be started or was stopped (the timeout, too much output) */
  error?: string;
}

/** Runs `command args` with env; the test's stand-in writes no file. */
export type SnapshotBuilder = (command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, deadlineMs?: number) => BuilderResult;

/** A process to start, and how the runner wraps one (measure/contain.ts's containment, which plan/ may not import). */
export type LaunchWrap = (launch: { command: string; args: string[]; env: NodeJS.ProcessEnv }) => {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** started under the containment helper (SIGTERM is passed on to the command, SIGUSR1 kills its tree at once) */
  contained?: boolean;
};

/**
 * The builder that runs `node --build-snapshot` as a sample runs, under `wrap` (the pipeline passes the
 * containment helper): the user's code runs while the snapshot is built, and whatever it starts (a
 * daemon that left its session and holds the output pipes) is killed when the build ends, rather than
 * kept alive and keeping the build waiting for its pipes until the time limit.
 */
export function wrappedBuilder(wrap: LaunchWrap): SnapshotBuilder {
  return (command, args, env, cwd, deadlineMs) => {
    const launch = wrap({ command, args, env });
    // at the time limit: SIGTERM would be ignored by the helper (and by a namespace's init), and spawnSync would wait on
    return runBuilder(launch.command, launch.args, launch.env ?? env, cwd, launch.contained ? 'SIGUSR1' : 'SIGKILL', deadlineMs);
  };
}

/** The builder without a wrap: stopped with SIGTERM at its deadline. */
const plainBuilder: SnapshotBuilder = (command, args, env, cwd, deadlineMs) => runBuilder(command, args, env, cwd, 'SIGTERM', deadlineMs);

function runBuilder(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  killSignal: NodeJS.Signals = 'SIGTERM',
  deadlineMs = BUILD_TIMEOUT_MS,
): BuilderResult {
  const run = spawnSync(command, args, {
    env,
    cwd,
    encoding: 'utf8',
    timeout: deadlineMs,
    killSignal,
    maxBuffer: MAX_OUTPUT_BYTES,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const error = run.error ? ((run.error as NodeJS.ErrnoException).code ?? run.error.message) : undefined;
  // spawnSync gives strings with an encoding, and null only when the process never started
  const output = `${(run.stderr as string | null) ?? ''}\n${(run.stdout as string | null) ?? ''}`;
  return { status: run.status, signal: run.signal, output, ...(error ? { error } : {}) };
}

export type SnapshotOutcome = { ok: true; blob: string; wrapper: string; buildMs: number } | { ok: false; error: string };

/**
 * Build the startup snapshot of `bundleFile` with the runtime `command` (a blob starts only on the
 * node build that wrote it). Never throws for an app that cannot be snapshotted: the outcome says why.
 */
export function buildSnapshot(
  command: string,
  bundleFile: string,
  options: {
    env: NodeJS.ProcessEnv;
    cwd: string;
    builder?: SnapshotBuilder;
    now?: () => number;
    /** the build's deadline (a test's short one); 120 s otherwise */
    deadlineMs?: number;
  },
): SnapshotOutcome {
  const { wrapper, blob } = snapshotPaths(bundleFile);
  mkdirSync(path.dirname(wrapper), { recursive: true });
  writeFileSync(wrapper, snapshotWrapper(readFileSync(bundleFile, 'utf8')));
  rmSync(blob, { force: true });
  const now = options.now ?? performance.now.bind(performance);
  const deadlineMs = options.deadlineMs ?? BUILD_TIMEOUT_MS;
  const started = now();
  const result = (options.builder ?? plainBuilder)(
    command,
    ['--snapshot-blob', blob, '--build-snapshot', wrapper],
    { ...options.env, PORT: SNAPSHOT_BUILD_PORT },
    options.cwd,
    deadlineMs,
  );
  const buildMs = now() - started;
  if (result.error === 'ETIMEDOUT')
    return {
      ok: false,
      error:
        `${SNAPSHOT_FAILURE}: the build did not end within its ${seconds(deadlineMs)} s deadline and was stopped ` +
        `after ${seconds(buildMs)} s (its top level never settles: a server that listens, or a handle left open)`,
    };
  if (result.error && result.status === null && !result.signal)
    return { ok: false, error: `${SNAPSHOT_FAILURE}: ${oneLine(result.error)}` };
  if (result.status !== 0) return { ok: false, error: snapshotErrorLine(result.output, result.status, result.signal) };
  return { ok: true, blob, wrapper, buildMs };
}
