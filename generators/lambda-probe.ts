/**
 * The Lambda probe: the text every Lambda file starts with, the same for every framework. It loads
 * no module while the app loads: it records performance.now() and CPU-time marks (`start` first,
 * then `imported` and `startup`, which the app part calls through __csMark).
 *
 * When a managed runtime (AWS's own) loads the file, only `exports.handler` is used and the probe
 * does nothing more. When the file is the main module (`node file.js`) it is its own bootstrap: a
 * client of the Lambda Runtime API (2018-06-01) at AWS_LAMBDA_RUNTIME_API, as a custom runtime is.
 * It waits for the module to finish loading, checks `handler`, prints one line and asks for the
 * first event (where Lambda ends INIT):
 *
 *   COLDSTART {"v":2,"target":"lambda","timeOrigin":…,"marks":{"start":…,"imported":…,"startup":…},
 *              "cpu":{"start":…,"imported":…,"startup":…},"rss":…,"heapUsed":…,"runtime":"node v20.20.2","pid":…}
 *
 * then loops: GET …/invocation/next, call handler(event, context[, callback]), POST …/<id>/response
 * with the JSON result or …/<id>/error. After the first response is accepted it prints
 *
 *   COLDSTART {"v":2,"after":"firstResponse","cpu":…,"rss":…}
 *
 * Marks are milliseconds since the child's performance.timeOrigin; cpu is process.cpuUsage() user +
 * system in milliseconds since the process started. An exception while the module loads (or no
 * `handler` export) is posted to /runtime/init/error, one during an invocation to …/<id>/error;
 * either way the process then exits 1. SIGTERM exits 0.
 *
 * The client is node:http, loaded only once the app has loaded (or failed): most frameworks have
 * loaded it already, so it adds nothing to INIT there, whereas the global fetch would load its own
 * HTTP stack (undici) on the first call. One keep-alive socket carries every request.
 */
import { PROTOCOL_PREFIX } from './probe.ts';

export const LAMBDA_PROTOCOL_VERSION = 2;

/** Marks a Lambda file records while it loads, in the order they happen. */
export const LAMBDA_MARKS = ['start', 'imported', 'startup'] as const;
export type LambdaMark = (typeof LAMBDA_MARKS)[number];

/** How a Lambda file is written: CommonJS (`exports.handler`, every lazy file) or an ES module (an eager file's top-level await). */
export type ModuleKind = 'commonjs' | 'module';

/**
 * The variable that asks the probe for INIT's split (the runner sets it on every generated Lambda
 * sample; on AWS it is absent and the probe wraps nothing): it then wraps require and the module
 * compiler from its first statement to the `startup` mark, and, when a Runtime Interface Client
 * loads the file, prints the ready line at `startup`. Each outermost require is timed twice: on the
 * wall clock (performance.now) and in the main thread's CPU time (process.threadCpuUsage, user +
 * system, on Node 22 and later; the process's, process.cpuUsage, before), so that the running part
 * can be had in CPU time as well (one getrusage call more per outermost require, about a microsecond).
 * The main thread's, not the process's: V8's helper threads (garbage collection, compilation) run
 * beside it on INIT's second vCPU, and the CPU reference's loop (measure/cpu-speed.ts) is one
 * thread's work, whichever clock times it. `load.clock` says which clock the split used.
 * `__csLoad.load` is the unwrapped require (the user's bootstrap loads the handler file through it,
 * so that the file's own top level counts as running), and `__csLoad.esm`, set by that bootstrap when
 * the handler is an ES module, drops the split (its static imports pass neither require nor the
 * compiler, so loading would read as nothing).
 */
export const INIT_SPLIT_ENV = 'COLDSTART_INIT_SPLIT';

/** The probe's text, with the few places where a CommonJS file and an ES module differ marked `@@NAME@@`. */
const PROBE_TEXT = `/* coldstart lambda probe v${LAMBDA_PROTOCOL_VERSION}: the same text in every Lambda file@@KIND@@ */
const __cs = { start: performance.now() };
const __csCpu = { start: __csCpuMs() };
const __csMain = @@MAIN@@;
const __csLoad = {
  ms: 0, cpuMs: 0, ownCpuMs: 0, clock: process.threadCpuUsage ? 'thread' : 'process', modules: 0, bytes: 0,
  depth: 0, restore: undefined, load: undefined, esm: false,
};
if (process.env.${INIT_SPLIT_ENV}) __csSplit();
function __csSplit() {
  const proto = require('node:module').prototype;
  const compile = proto._compile;
  const load = proto.require;
  proto._compile = function (content) { __csLoad.modules++; __csLoad.bytes += content.length; return compile.apply(this, arguments); };
  proto.require = function () {
    if (__csLoad.depth++ > 0) try { return load.apply(this, arguments); } finally { __csLoad.depth--; }
    const at = performance.now();
    const cpuAt = __csSplitCpuMs();
    try { return load.apply(this, arguments); } finally {
      __csLoad.depth--; __csLoad.ms += performance.now() - at; __csLoad.cpuMs += __csSplitCpuMs() - cpuAt;
    }
  };
  __csLoad.load = load;
  const ownAt = __csSplitCpuMs();
  __csLoad.restore = () => { __csLoad.ownCpuMs = __csSplitCpuMs() - ownAt; proto._compile = compile; proto.require = load; };
}
const __csRt = { phase: 'init', requestId: undefined, failed: false, agent: undefined };
function __csCpuMs() { const usage = process.cpuUsage(); return (usage.user + usage.system) / 1000; }
function __csSplitCpuMs() {
  const usage = process.threadCpuUsage ? process.threadCpuUsage() : process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
function __csMark(name) {
  __cs[name] = performance.now(); __csCpu[name] = __csCpuMs();
  if (name !== 'startup' || !__csLoad.restore) return;
  __csLoad.restore();
  if (!__csMain) __csReady();
}
function __csReady() {
  const memory = process.memoryUsage();
  const load = __csLoad.restore && !__csLoad.esm
    ? { ms: __csLoad.ms, cpuMs: __csLoad.cpuMs, ownCpuMs: __csLoad.ownCpuMs, clock: __csLoad.clock,
      modules: __csLoad.modules, bytes: __csLoad.bytes } : undefined;
  return __csLine({
    v: ${LAMBDA_PROTOCOL_VERSION}, target: 'lambda', timeOrigin: performance.timeOrigin, marks: __cs, cpu: __csCpu,
    rss: memory.rss, heapUsed: memory.heapUsed,
    runtime: process.versions.bun ? 'bun ' + process.versions.bun : 'node ' + process.version, pid: process.pid, load,
  });
}
function __csLine(value) {
  return new Promise((resolve) => process.stdout.write(${JSON.stringify(PROTOCOL_PREFIX)} + JSON.stringify(value) + '\\n', resolve));
}
function __csRequest(method, path, body, headers) {
  return new Promise((resolve, reject) => {
    const http = require('node:http');
    const api = new URL('http://' + process.env.AWS_LAMBDA_RUNTIME_API);
    __csRt.agent = __csRt.agent || new http.Agent({ keepAlive: true, maxSockets: 1 });
    const options = { host: api.hostname.replace(/^\\[|\\]$/g, ''), port: api.port || 80, method, path, headers, agent: __csRt.agent };
    const request = http.request(options, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}
function __csPost(path, body, headers) {
  return __csRequest('POST', path, body, { 'content-type': 'application/json', ...headers }).then((answer) => {
    if (answer.status < 200 || answer.status > 299) throw new Error('POST ' + path + ' answered ' + answer.status + ': ' + answer.body);
  });
}
function __csErrorBody(error) {
  const e = error !== null && typeof error === 'object' ? error : { name: 'Error', message: String(error) };
  const stack = typeof e.stack === 'string' ? e.stack.split('\\n').slice(1).map((line) => line.trim()) : [];
  return JSON.stringify({ errorType: String(e.name || 'Error'), errorMessage: String(e.message), stackTrace: stack });
}
function __csFail(error, type) {
  if (__csRt.failed) return;
  __csRt.failed = true;
  process.stderr.write('coldstart: ' + ((error && error.stack) || String(error)) + '\\n');
  const path = __csRt.phase === 'init' ? '/2018-06-01/runtime/init/error'
    : __csRt.requestId !== undefined ? '/2018-06-01/runtime/invocation/' + encodeURIComponent(__csRt.requestId) + '/error' : undefined;
  if (path === undefined || !process.env.AWS_LAMBDA_RUNTIME_API) process.exit(1);
  const header = type || (__csRt.phase === 'init' ? 'Runtime.InitError' : 'Runtime.HandlerError');
  __csPost(path, __csErrorBody(error), { 'lambda-runtime-function-error-type': header }).then(() => process.exit(1), (postError) => {
    process.stderr.write('coldstart: ' + String(postError) + '\\n');
    process.exit(1);
  });
}
function __csContext(headers) {
  const env = process.env;
  const deadline = Number(headers['lambda-runtime-deadline-ms']);
  if (headers['lambda-runtime-trace-id']) env._X_AMZN_TRACE_ID = headers['lambda-runtime-trace-id'];
  else delete env._X_AMZN_TRACE_ID;
  return {
    awsRequestId: headers['lambda-runtime-aws-request-id'], invokedFunctionArn: headers['lambda-runtime-invoked-function-arn'],
    functionName: env.AWS_LAMBDA_FUNCTION_NAME, functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
    memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE, logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME, callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}
function __csInvoke(handler, next) {
  return new Promise((resolve) => {
    const succeed = (value) => resolve({ ok: true, value });
    const fail = (error) => resolve({ ok: false, error });
    try {
      const callback = (error, value) => (error === undefined || error === null ? succeed(value) : fail(error));
      const result = handler(JSON.parse(next.body), __csContext(next.headers), callback);
      if (result !== null && typeof result === 'object' && typeof result.then === 'function') result.then(succeed, fail);
      else if (handler.length < 3) succeed(result);
    } catch (error) {
      fail(error);
    }
  });
}
async function __csLoop() {
  if (__csRt.failed) return;
  const handler = @@HANDLER@@;
  if (typeof handler !== 'function') return __csFail(new Error('the module exports no handler function'), 'Runtime.NoSuchHandler');
  await __csReady();
  for (let first = true; ; ) {
    __csRt.phase = 'ready';
    __csRt.requestId = undefined;
    const next = await __csRequest('GET', '/2018-06-01/runtime/invocation/next');
    if (next.status !== 200) throw new Error('GET next answered ' + next.status + ': ' + next.body);
    __csRt.requestId = String(next.headers['lambda-runtime-aws-request-id']);
    const outcome = await __csInvoke(handler, next);
    const path = '/2018-06-01/runtime/invocation/' + encodeURIComponent(__csRt.requestId);
    if (outcome.ok) await __csPost(path + '/response', JSON.stringify(outcome.value === undefined ? null : outcome.value));
    else await __csPost(path + '/error', __csErrorBody(outcome.error), { 'lambda-runtime-function-error-type': 'Runtime.HandlerError' });
    if (first && outcome.ok) {
      first = false;
      await __csLine({ v: ${LAMBDA_PROTOCOL_VERSION}, after: 'firstResponse', cpu: __csCpuMs(), rss: process.memoryUsage.rss() });
    }
  }
}
if (__csMain) {
  process.on('SIGTERM', () => process.exit(0));
  process.on('uncaughtException', (error) => __csFail(error));
@@START@@}
function __csStart(@@START_ARG@@) {@@START_BODY@@
  setImmediate(() => __csLoop().catch((error) => {
    process.stderr.write('coldstart: runtime API: ' + ((error && error.stack) || String(error)) + '\\n');
    process.exit(1);
  }));
}
/* end of probe */`;

/** What each marked place of PROBE_TEXT holds in a CommonJS file and in an ES module. */
const PROBE_PLACES: Record<string, Record<ModuleKind, string>> = {
  KIND: { commonjs: '', module: ' (ES module)' },
  MAIN: { commonjs: 'require.main === module', module: 'process.argv[1] === import.meta.filename' },
  HANDLER: { commonjs: 'module.exports.handler', module: '__csRt.handler' },
  START: { commonjs: '  __csStart();\n', module: '' },
  START_ARG: { commonjs: '', module: 'handler' },
  START_BODY: { commonjs: '', module: '\n  if (!__csMain) return;\n  __csRt.handler = handler;' },
};

function lambdaProbe(kind: ModuleKind): string {
  return PROBE_TEXT.replace(/@@([A-Z_]+)@@/g, (_, name: string) => PROBE_PLACES[name]![kind]);
}

/** The probe of a CommonJS Lambda file (an ES module's calls `__csStart(handler)` after its last statement). */
export const LAMBDA_PROBE = lambdaProbe('commonjs');
export const LAMBDA_PROBE_ESM = lambdaProbe('module');

/** The header comment and probe that open every Lambda file. */
export function lambdaFileHeader(framework: string, variant: string, routes: number): string {
  return [
    `// ${routes} routes, framework ${framework}, variant ${variant}, target lambda. Generated by coldstart: do not edit.`,
    `'use strict';`,
    LAMBDA_PROBE,
    '',
  ].join('\n');
}

/**
 * The two lines that give an eager file its `require` (createRequire). A bundle of it drops them, so
 * that esbuild sees the requires and bundles what they load (plan/bundle.ts), and gives the bundle
 * one `require` of its own for Node's built-in modules.
 */
export const EAGER_REQUIRE_LINES = [
  `import { createRequire } from 'node:module';`,
  `const require = createRequire(import.meta.url);`,
] as const;

/**
 * The header of an eager Lambda file: an ES module (so that INIT awaits its top-level await, as the
 * managed runtime and its Runtime Interface Client do for an .mjs handler) whose app part requires
 * its packages through createRequire, as the lazy file does, so that the probe's `start` mark comes
 * before they load (static imports would load first). It ends with eagerFileEnd.
 */
export function eagerLambdaFileHeader(framework: string, variant: string, routes: number): string {
  return [
    `// ${routes} routes, framework ${framework}, variant ${variant}, target lambda, init eager. Generated by coldstart: do not edit.`,
    ...EAGER_REQUIRE_LINES,
    LAMBDA_PROBE_ESM,
    '',
  ].join('\n');
}

/** An eager file's last statement: its own bootstrap (as the main module) starts once the module, its await included, has finished. */
export const EAGER_FILE_END = '__csStart(handler);\n';

/** The first line: printed once the module has loaded, just before the first `GET next`. */
export interface LambdaReadyLine {
  v: 2;
  target: 'lambda';
  timeOrigin: number;
  marks: Record<LambdaMark, number>;
  cpu: Record<LambdaMark, number>;
  rss: number;
  heapUsed: number;
  runtime: string;
  pid: number;
  /**
   * with INIT_SPLIT_ENV: the time inside require up to `startup` (wall, and the process's CPU time over the
   * same calls: `cpuMs`, absent from probes before it), the modules compiled and their size
   */
  /**
   * INIT's split: loading's wall and CPU time, the CPU time start → startup (ownCpuMs) by the same
   * clock (`clock`: the main thread's, or the process's on a Node without threadCpuUsage), modules, bytes
   */
  load?: { ms: number; cpuMs?: number; ownCpuMs?: number; clock?: 'thread' | 'process'; modules: number; bytes: number };
}

/** The second line: printed once the first invocation's response was accepted. */
export interface LambdaAfterLine {
  v: 2;
  after: 'firstResponse';
  cpu: number;
  rss: number;
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';
/** A time a child reports, ms since it started: finite, non-negative, below 10^9 (what samples.jsonl accepts back). */
const isTime = (value: unknown): value is number => isNumber(value) && value >= 0 && value <= 1e9;
/** A byte count: finite, non-negative, a safe integer's size. */
const isBytes = (value: unknown): value is number => isNumber(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER;
const isMarks = (value: unknown): value is Record<LambdaMark, number> => isObject(value) && LAMBDA_MARKS.every((m) => isTime(value[m]));

/**
 * Read one stdout line of a Lambda file: the ready line, the after line, or undefined for any other
 * line. A line that starts with the prefix but is not well formed throws, with what is wrong.
 */
export function readLambdaLine(line: string): LambdaReadyLine | LambdaAfterLine | undefined {
  if (!line.startsWith(PROTOCOL_PREFIX)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line.slice(PROTOCOL_PREFIX.length));
  } catch {
    throw new Error(`not JSON after ${PROTOCOL_PREFIX.trim()}: ${line.slice(0, 200)}`);
  }
  if (!isObject(value) || value.v !== LAMBDA_PROTOCOL_VERSION) {
    throw new Error(`not a v${LAMBDA_PROTOCOL_VERSION} line: ${line.slice(0, 200)}`);
  }
  if (value.after === 'firstResponse') {
    if (isTime(value.cpu) && isBytes(value.rss)) return value as unknown as LambdaAfterLine;
    throw new Error(`after line without numeric cpu and rss: ${line.slice(0, 200)}`);
  }
  const ok =
    value.target === 'lambda' &&
    isNumber(value.timeOrigin) &&
    isMarks(value.marks) &&
    isMarks(value.cpu) &&
    isBytes(value.rss) &&
    isBytes(value.heapUsed) &&
    typeof value.runtime === 'string' &&
    isNumber(value.pid) &&
    (value.load === undefined ||
      (isObject(value.load) &&
        isTime(value.load.ms) &&
        (value.load.cpuMs === undefined || isTime(value.load.cpuMs)) &&
        (value.load.ownCpuMs === undefined || isTime(value.load.ownCpuMs)) &&
        (value.load.clock === undefined || value.load.clock === 'thread' || value.load.clock === 'process') &&
        isBytes(value.load.modules) &&
        isBytes(value.load.bytes)));
  if (!ok) throw new Error(`malformed lambda ready line: ${line.slice(0, 200)}`);
  return value as unknown as LambdaReadyLine;
}
