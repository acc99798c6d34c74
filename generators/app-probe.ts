/**
 * The files coldstart adds around the user's own app (`measure`), so that the app's code is never
 * touched. Each is the same bytes every time; what changes between apps (the entry, the handler's
 * file and export) reaches them through the environment, never through generated text.
 *
 * - `app/preload.cjs`, loaded with `node --require` before the entry (CommonJS or ESM alike): it
 *   marks `start`, and hooks `net.Server.prototype.listen`, so the moment ANY server of the app
 *   emits 'listening' it prints the ready line of the server protocol (probe.ts) with the marks
 *   `start` and `listen`, the address and port, and once the first HTTP answer is written the
 *   after-answer line with the CPU time. It loads only `node:net` (which every server loads anyway).
 *   On SIGTERM, when the app has no SIGTERM handler of its own, it exits normally (so that a
 *   `--cpu-prof` profile is written).
 * - `app/lambda-bootstrap.cjs` (the `probe` start of a handler; under `ric` AWS's client loads it):
 *   the Lambda probe (lambda-probe.ts) followed by a `require` of the user's handler file
 *   (COLDSTART_HANDLER_FILE; ESM too, through Node's require of ES modules, Node >= 20.19) and the
 *   export named by COLDSTART_HANDLER_EXPORT (dotted: nested; then in the default export, as the
 *   client looks): marks `imported` after the require and `startup` once the export is checked.
 *   With INIT's split asked (COLDSTART_INIT_SPLIT), the handler file is loaded through the unwrapped
 *   require, so that what the file requires is loading and its own top level running, as in a
 *   generated file; an ES module handler (its static imports pass no require) reports no split. A
 *   missing file, a missing export or one that is not a function fails INIT with a one-line reason
 *   (posted to /runtime/init/error).
 * - `app/term-exit.cjs`, loaded with `--require` into the profiled run of a cell started by AWS's
 *   client (which has no SIGTERM handler): the runner's SIGTERM then ends the process normally, so
 *   that `--cpu-prof` writes its profile, unless the code has a SIGTERM handler of its own.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { INIT_SPLIT_ENV, LAMBDA_PROBE, LAMBDA_PROTOCOL_VERSION } from './lambda-probe.ts';
import { AFTER_FIRST_RESPONSE, PROTOCOL_PREFIX, PROTOCOL_VERSION } from './probe.ts';
import { GENERATED_DIR } from './write.ts';

/** The variables the Lambda bootstrap reads: the handler's absolute file and its export. */
export const HANDLER_FILE_ENV = 'COLDSTART_HANDLER_FILE';
export const HANDLER_EXPORT_ENV = 'COLDSTART_HANDLER_EXPORT';
/** The `source` the preload's ready line carries. */
export const APP_LINE_SOURCE = 'app';

export const APP_PRELOAD = `'use strict';
/* coldstart app preload v${PROTOCOL_VERSION}: loaded with --require before the app's entry; the app is not changed */
(function () {
  function cpuMs() { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }
  const marks = { start: performance.now() };
  const cpu = { start: cpuMs() };
  const net = require('node:net');
  const prefix = ${JSON.stringify(PROTOCOL_PREFIX)};
  let reported = false;
  function line(value) { process.stdout.write(prefix + JSON.stringify(value) + '\\n'); }
  function report(server) {
    if (reported) return;
    reported = true;
    marks.listen = performance.now();
    cpu.listen = cpuMs();
    const address = server.address();
    const memory = process.memoryUsage();
    server.once('request', (request, response) => response.once('finish', () => {
      line({ v: ${PROTOCOL_VERSION}, after: ${JSON.stringify(AFTER_FIRST_RESPONSE)}, cpu: cpuMs(), rss: process.memoryUsage().rss });
    }));
    line({
      v: ${PROTOCOL_VERSION}, source: ${JSON.stringify(APP_LINE_SOURCE)}, timeOrigin: performance.timeOrigin, marks, cpu,
      port: address !== null && typeof address === 'object' ? address.port : null,
      address: address !== null && typeof address === 'object' ? address.address : String(address),
      rss: memory.rss, heapUsed: memory.heapUsed,
      runtime: process.versions.bun ? 'bun ' + process.versions.bun : 'node ' + process.version, pid: process.pid,
    });
  }
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function (...args) {
    if (!reported) this.once('listening', () => report(this));
    return listen.apply(this, args);
  };
  process.on('SIGTERM', function coldstartTerm() {
    if (process.listenerCount('SIGTERM') === 1) process.exit(0);
  });
})();
`;

export const APP_LAMBDA_BOOTSTRAP = `// coldstart's bootstrap for a user's Lambda handler: the probe, then the handler. Do not edit.
'use strict';
${LAMBDA_PROBE}
(function () {
  const file = process.env.${HANDLER_FILE_ENV};
  const name = process.env.${HANDLER_EXPORT_ENV};
  // with the split asked, the handler file itself through the unwrapped require: its own top level is
  // running, what it requires loading (as in a generated file, where the probe shares the app's file)
  const loaded = __csLoad.load ? __csLoad.load.call(module, file) : require(file);
  if (loaded !== null && typeof loaded === 'object' && loaded[Symbol.toStringTag] === 'Module') __csLoad.esm = true;
  __csMark('imported');
  // a dotted name reaches a nested export, and an ES module's default export is searched too, as Lambda's client does
  const step = (at, key) => (at !== null && (typeof at === 'object' || typeof at === 'function') ? at[key] : undefined);
  const find = (from) => name.split('.').reduce(step, from);
  let value = find(loaded);
  if (value === undefined && loaded !== null && typeof loaded === 'object' && 'default' in loaded) value = find(loaded.default);
  if (value === undefined) {
    const names = loaded !== null && typeof loaded === 'object' ? Object.keys(loaded).slice(0, 8).join(', ') : '';
    throw new Error('the handler file exports no "' + name + '"' + (names ? ' (it exports: ' + names + ')' : ''));
  }
  if (typeof value !== 'function') throw new Error('the export "' + name + '" is a ' + typeof value + ', not a function');
  exports.handler = value;
  __csMark('startup');
})();
`;

/**
 * `app/lambda-split.cjs`, loaded with `--require` before the Runtime Interface Client when a user's
 * handler is asked for INIT's split (the client imports the handler; coldstart's bootstrap is not
 * there): it does nothing without COLDSTART_INIT_SPLIT. With it, for a CommonJS handler it wraps the
 * module compiler and require as the probe does (lambda-probe.ts), from the moment the handler file
 * (COLDSTART_HANDLER_FILE) starts compiling to its return: what the handler requires is loading (wall
 * and CPU time, modules, bytes), its own top level running. For an ES module handler (Node >= 22.15:
 * module.registerHooks) a load hook adds one call before the handler's first statement and one after
 * its last, on its first and last lines (no line moves): loading is the handler's load → its first
 * statement (its static imports resolved, read, compiled and evaluated, which ESM does before the body),
 * running its body (top-level awaits included). It then prints the probe's ready line with the marks
 * `start` (the handler's load), `imported` (its first statement; an ES module's) and `startup` (its end).
 * The client's own modules load before and are not counted, as they are not in a generated file's split.
 */
export const APP_LAMBDA_SPLIT = `'use strict';
/* coldstart: INIT's split of a user's handler under the Runtime Interface Client; the handler's file is not changed */
(function () {
  if (!process.env.${INIT_SPLIT_ENV} || !process.env.${HANDLER_FILE_ENV}) return;
  const fs = require('node:fs');
  const Module = require('node:module');
  const real = (file) => { try { return fs.realpathSync(file); } catch { return file; } };
  const handlerFile = real(process.env.${HANDLER_FILE_ENV});
  const handlerUrl = require('node:url').pathToFileURL(handlerFile).href;
  const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  // the split's CPU clock: the main thread's where Node has it (22+), as the generated probe's
  const splitCpuMs = () => {
    const u = process.threadCpuUsage ? process.threadCpuUsage() : process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const loaded = { ms: 0, cpuMs: 0, ownCpuMs: 0, clock: process.threadCpuUsage ? 'thread' : 'process', modules: 0, bytes: 0 };
  const splitCpu = {};
  const marks = {};
  const cpu = {};
  const proto = Module.prototype;
  const compile = proto._compile;
  const load = proto.require;
  // waiting → (an ES module: graph, its imports loading) → counting (the handler's own top level) → done
  let state = 'waiting';
  let depth = 0;
  proto._compile = function (content, filename) {
    if (state === 'waiting' && typeof filename === 'string' && real(filename) === handlerFile) return commonjs(this, arguments);
    if (state === 'graph' || state === 'counting') { loaded.modules++; loaded.bytes += content.length; }
    return compile.apply(this, arguments);
  };
  proto.require = function () {
    if (state !== 'counting') return load.apply(this, arguments);
    if (depth++ > 0) try { return load.apply(this, arguments); } finally { depth--; }
    const at = performance.now();
    const cpuAt = splitCpuMs();
    try { return load.apply(this, arguments); } finally {
      depth--; loaded.ms += performance.now() - at; loaded.cpuMs += splitCpuMs() - cpuAt;
    }
  };
  function begin(source) {
    loaded.modules++;
    loaded.bytes += source.length;
    marks.start = performance.now();
    cpu.start = cpuMs();
    splitCpu.start = splitCpuMs();
  }
  function end() {
    state = 'done';
    proto._compile = compile;
    proto.require = load;
    marks.startup = performance.now();
    cpu.startup = cpuMs();
    loaded.ownCpuMs = splitCpuMs() - splitCpu.start;
    if (marks.imported === undefined) { marks.imported = marks.startup; cpu.imported = cpu.startup; }
    const memory = process.memoryUsage();
    process.stdout.write(${JSON.stringify(PROTOCOL_PREFIX)} + JSON.stringify({
      v: ${LAMBDA_PROTOCOL_VERSION}, target: 'lambda', timeOrigin: performance.timeOrigin, marks, cpu,
      rss: memory.rss, heapUsed: memory.heapUsed, runtime: 'node ' + process.version, pid: process.pid, load: loaded,
    }) + '\\n');
  }
  // a CommonJS handler: what it requires is loading, its own top level running
  function commonjs(module, args) {
    begin(args[0]);
    state = 'counting';
    try { return compile.apply(module, args); } finally { end(); }
  }
  // an ES module handler (Node >= 22.15): its static imports are loaded and evaluated before its body
  // starts, so loading is the handler's load → its first statement (plus what its body requires), and
  // running its body; a call at each end of its source (on its first line and after its last) marks them
  if (typeof Module.registerHooks !== 'function') return;
  globalThis.__coldstartBody = () => {
    marks.imported = performance.now();
    cpu.imported = cpuMs();
    loaded.ms += marks.imported - marks.start;
    loaded.cpuMs += splitCpuMs() - splitCpu.start;
    state = 'counting';
  };
  globalThis.__coldstartEnd = () => { if (state === 'counting') end(); };
  Module.registerHooks({
    load(url, context, next) {
      const result = next(url, context);
      if (result.format !== 'module' || result.source === undefined || result.source === null) return result;
      const text = typeof result.source === 'string' ? result.source : new TextDecoder().decode(result.source);
      if (state === 'graph' || state === 'counting') { loaded.modules++; loaded.bytes += text.length; }
      if (state !== 'waiting' || url !== handlerUrl) return result;
      begin(text);
      state = 'graph';
      const body = text.replace(/^(#!.*\\n?)?/, (hashbang) => hashbang + 'globalThis.__coldstartBody();');
      return { ...result, source: body + '\\n;globalThis.__coldstartEnd();\\n' };
    },
  });
})();
`;

export const APP_TERM_EXIT = `'use strict';
/* coldstart: exit normally on SIGTERM (so that --cpu-prof writes its profile) unless the code handles it itself */
process.on('SIGTERM', function coldstartTerm() {
  if (process.listenerCount('SIGTERM') === 1) process.exit(0);
});
`;

export const APP_DIR = path.join(GENERATED_DIR, 'app');

/** Write the files under generated/app/ (only when their bytes change); returns their paths. */
export function writeAppFiles(dir = APP_DIR): { preload: string; lambdaBootstrap: string; lambdaSplit: string; termExit: string } {
  mkdirSync(dir, { recursive: true });
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    let previous: string | undefined;
    try {
      previous = readFileSync(file, 'utf8');
    } catch {
      previous = undefined;
    }
    if (previous !== text) writeFileSync(file, text);
    return file;
  };
  return {
    preload: write('preload.cjs', APP_PRELOAD),
    lambdaBootstrap: write('lambda-bootstrap.cjs', APP_LAMBDA_BOOTSTRAP),
    lambdaSplit: write('lambda-split.cjs', APP_LAMBDA_SPLIT),
    termExit: write('term-exit.cjs', APP_TERM_EXIT),
  };
}
