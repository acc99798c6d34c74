/**
 * The probe: the few lines every generated file starts with, the same text for every framework.
 * It loads no module. At every mark it records performance.now() and the CPU time the process has
 * used so far (process.cpuUsage(), user + system, in ms since the process started). Once the server
 * is bound it prints one line on stdout that the runner reads:
 *
 *   COLDSTART {"v":2,"timeOrigin":…,"marks":{"start":…,"imported":…,"startup":…,"listen":…},
 *              "cpu":{"start":…,"imported":…,"startup":…,"listen":…},
 *              "port":…,"rss":…,"heapUsed":…,"runtime":"node v20.20.2","pid":…}
 *
 * and once its first answer is written (the response's 'finish'), one more:
 *
 *   COLDSTART {"v":2,"after":"firstResponse","cpu":…,"rss":…}
 *
 * Marks are milliseconds since the child's own performance.timeOrigin; the runner moves them onto
 * its spawn timeline. A failed listen/ready prints the error on stderr and exits 1: never a time.
 */

export const PROTOCOL_PREFIX = 'COLDSTART ';
export const PROTOCOL_VERSION = 2;
/** The older version the runner still reads: the same line without `cpu` (and no second line). */
export const PROTOCOL_VERSIONS = [1, PROTOCOL_VERSION] as const;
/** The `after` value of the line the child prints once its first answer is written. */
export const AFTER_FIRST_RESPONSE = 'firstResponse';

/** Marks the generated file records, in the order they happen. */
export const CHILD_MARKS = ['start', 'imported', 'startup', 'listen'] as const;
export type ChildMark = (typeof CHILD_MARKS)[number];

/** The probe's lines that say where the server listens: 127.0.0.1 and PORT (0: any free port). */
const SERVER_ADDRESS = `const __csHost = '127.0.0.1';
const __csPort = Number(process.env.PORT || 0);`;

export const PROBE = `/* coldstart probe v${PROTOCOL_VERSION}: the same text in every generated file */
function __csCpuMs() { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }
const __cs = { start: performance.now() };
const __csCpu = { start: __csCpuMs() };
${SERVER_ADDRESS}
function __csMark(name) { __cs[name] = performance.now(); __csCpu[name] = __csCpuMs(); }
function __csLine(value) { return ${JSON.stringify(PROTOCOL_PREFIX)} + JSON.stringify(value) + '\\n'; }
function __csReady(server) {
  __csMark('listen');
  const address = server.address();
  const memory = process.memoryUsage();
  const line = __csLine({
    v: ${PROTOCOL_VERSION}, timeOrigin: performance.timeOrigin, marks: __cs, cpu: __csCpu,
    port: address && typeof address === 'object' ? address.port : null,
    rss: memory.rss, heapUsed: memory.heapUsed,
    runtime: process.versions.bun ? 'bun ' + process.versions.bun : 'node ' + process.version,
    pid: process.pid,
  });
  server.once('request', (request, response) => response.once('finish', () => {
    const after = ${JSON.stringify(AFTER_FIRST_RESPONSE)};
    process.stdout.write(__csLine({ v: ${PROTOCOL_VERSION}, after, cpu: __csCpuMs(), rss: process.memoryUsage().rss }));
  }));
  process.stdout.write(line, () => { if (process.env.COLDSTART_EXIT === '1') process.exit(0); });
}
function __csFail(error) {
  process.stderr.write('coldstart: server failed to start: ' + ((error && error.stack) || String(error)) + '\\n');
  process.exit(1);
}
process.on('SIGTERM', () => process.exit(0));
/* end of probe */`;

/** The environment variable Lambda Web Functions give the server's address in, `host:port`. */
export const HTTP_ENDPOINT_ENV = 'AWS_LAMBDA_HTTP_ENDPOINT';

/**
 * The same lines for a Lambda Web Function (generators/web.ts): the host and port of
 * AWS_LAMBDA_HTTP_ENDPOINT (`host:port`, an IPv6 host in brackets) when it is set, as the runtime says a
 * server must listen; else the server's own 127.0.0.1 and PORT. An endpoint that is not host:port fails
 * the start, as a listen on it would.
 */
const WEB_ADDRESS = `/* coldstart: a Lambda Web Function listens on ${HTTP_ENDPOINT_ENV} (host:port) */
const __csEndpoint = process.env.${HTTP_ENDPOINT_ENV};
const __csWeb = __csEndpoint === undefined ? null : /^\\[?([^\\]]*)\\]?:(\\d{1,5})$/.exec(__csEndpoint);
if (__csEndpoint !== undefined && !__csWeb) {
  process.stderr.write('coldstart: ${HTTP_ENDPOINT_ENV} is not host:port: ' + JSON.stringify(__csEndpoint).slice(0, 80) + '\\n');
  process.exit(1);
}
const __csHost = __csWeb ? __csWeb[1] : '127.0.0.1';
const __csPort = __csWeb ? Number(__csWeb[2]) : Number(process.env.PORT || 0);`;

/**
 * A server file as a Lambda Web Function runs it: the same bytes but the probe's address lines, which read
 * AWS_LAMBDA_HTTP_ENDPOINT. The server files (and their published hashes) are unchanged.
 */
export function webFunctionSource(serverSource: string): string {
  const at = serverSource.indexOf(SERVER_ADDRESS);
  if (at < 0 || serverSource.indexOf(SERVER_ADDRESS, at + 1) >= 0)
    throw new Error("a server file without exactly one probe address (the generator does not start with the probe's header)");
  return serverSource.slice(0, at) + WEB_ADDRESS + serverSource.slice(at + SERVER_ADDRESS.length);
}

/** The header comment and probe that open every generated file. */
export function fileHeader(framework: string, variant: string, routes: number): string {
  return [
    `// ${routes} routes, framework ${framework}, variant ${variant}. Generated by coldstart: do not edit.`,
    `'use strict';`,
    PROBE,
    '',
  ].join('\n');
}

/**
 * Emit `count` lines, one per route, from a template function. Kept here so that every generator
 * writes its routes out literally (no runtime loop), which is what makes parsing them part of the
 * measured cold start.
 */
export function eachRoute(count: number, line: (i: number) => string): string {
  const out = new Array<string>(count);
  for (let i = 0; i < count; i++) out[i] = line(i);
  return out.join('\n');
}
