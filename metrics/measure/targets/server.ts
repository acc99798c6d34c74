/**
 * The server target: the generated file is a long-running HTTP server. It is ready when it prints
 * its COLDSTART line (bound and accepting); the first request is a POST to its LAST route on
 * 127.0.0.1, and a validating server must then reject an invalid body with 4xx.
 */
import { MAX_RECORD_MS } from '../../core/samples.ts';
import type { RouteRequest } from '../../../generators/contract.ts';
import {
  AFTER_FIRST_RESPONSE,
  CHILD_MARKS,
  PROTOCOL_PREFIX,
  PROTOCOL_VERSION,
  PROTOCOL_VERSIONS,
  type ChildMark,
} from '../../../generators/probe.ts';
import { APP_LINE_SOURCE } from '../../../generators/app-probe.ts';
import type { AppSpec } from '../../core/app.ts';
import type { CpuMarks, InvalidBodyCheck } from '../../core/samples.ts';
import { answerProblem, connectHost, sameAnswerProblem, freePort, httpRequest, NOT_FOUND_HINT, requestText } from '../app-answer.ts';
import { oneLine } from '../text.ts';
import { CellRoutes, type RouteAnswer } from './first-hits.ts';
import { AFTER_LINE_WAIT_MS, SampleFailure, timelineMarks, wallEpochOf, type Measured, type SampleIO, type Target } from './target.ts';

export interface Ready {
  timeOrigin: number;
  /** `imported` and `startup` are absent from the user's app (the preload sees only start and listen) */
  marks: { start: number; listen: number } & Partial<Record<ChildMark, number>>;
  /** CPU ms at the marks the child reported (protocol v2); empty for v1 */
  cpu: CpuMarks;
  port: number;
  /** the address it listens on (the preload reports it; generated files listen on 127.0.0.1) */
  address?: string;
  rss: number;
  heapUsed: number;
  runtime: string;
}

/** The marks a ready line may leave out: the user's app (`source: "app"`, from the preload) has no import or route marks. */
const APP_OPTIONAL_MARKS: readonly ChildMark[] = ['imported', 'startup'];

/** What the child reports once its first answer is written. */
export interface AfterLine {
  /** CPU ms (user + system) since the process started */
  cpu: number;
  rss: number | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * A time the child reports, ms since it started: finite, non-negative and at most MAX_RECORD_MS, the
 * bound samples.jsonl is read back with; a child that lies beyond it fails its own sample, not the report.
 */
function isTime(value: unknown): value is number {
  return isFiniteNumber(value) && value >= 0 && value <= MAX_RECORD_MS;
}

function isBytes(value: unknown): value is number {
  return isFiniteNumber(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER;
}

/**
 * The ready line's optional `cpu` object: each mark may be missing, a present one must be a finite
 * non-negative number, never below an earlier present one (CPU time only grows).
 */
function parseReadyCpu(value: unknown): CpuMarks {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object') throw new SampleFailure('ready line has a "cpu" that is not an object');
  const cpu: CpuMarks = {};
  let previous = 0;
  for (const name of CHILD_MARKS) {
    const ms = (value as Record<string, unknown>)[name];
    if (ms === undefined) continue;
    if (!isTime(ms)) throw new SampleFailure(`ready line has a bad CPU time at "${name}"`);
    if (ms < previous) throw new SampleFailure(`ready line CPU times are out of order at "${name}"`);
    cpu[name] = previous = ms;
  }
  return cpu;
}

/** Validate a COLDSTART line's JSON; throws SampleFailure with what is wrong. */
export function parseReadyLine(text: string): Ready {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SampleFailure(`malformed ${PROTOCOL_PREFIX.trim()} line: ${text.slice(0, 120)}`);
  }
  if (!isObject(value) || !(PROTOCOL_VERSIONS as readonly unknown[]).includes(value.v)) {
    throw new SampleFailure(`${PROTOCOL_PREFIX.trim()} line is not protocol v${PROTOCOL_VERSIONS.join(' or v')}: ${text.slice(0, 120)}`);
  }
  // each field is checked below; until then any of them may be missing
  const v = value as Partial<Ready> & { cpu?: unknown };
  if (!isFiniteNumber(v.timeOrigin)) throw new SampleFailure('ready line has no timeOrigin');
  const marks = v.marks as Record<string, unknown> | undefined;
  const fromApp = value.source === APP_LINE_SOURCE;
  let previous = 0;
  for (const name of CHILD_MARKS) {
    const mark = marks?.[name];
    if (mark === undefined && fromApp && APP_OPTIONAL_MARKS.includes(name)) continue;
    if (!isTime(mark)) throw new SampleFailure(`ready line has no "${name}" mark`);
    if (mark < previous) throw new SampleFailure(`ready line marks are out of order at "${name}"`);
    previous = mark;
  }
  if (typeof v.port !== 'number' || !Number.isInteger(v.port) || v.port < 1 || v.port > 65535) {
    if (fromApp && value.port === null) {
      throw new SampleFailure(`the app listened on ${oneLine(String(value.address), 120)}, not on a TCP port`);
    }
    throw new SampleFailure(`ready line has no valid port: ${String(v.port)}`);
  }
  if (v.address !== undefined && typeof v.address !== 'string') throw new SampleFailure('ready line has an address that is not text');
  if (!isBytes(v.rss) || !isBytes(v.heapUsed) || typeof v.runtime !== 'string') {
    throw new SampleFailure('ready line lacks rss, heapUsed or runtime');
  }
  return { ...(v as Ready), cpu: parseReadyCpu(v.cpu) };
}

/**
 * The after-answer line's JSON, or undefined when it is not one: a broken report of CPU time loses
 * that figure, never the sample.
 */
export function parseAfterLine(text: string): AfterLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (v.v !== PROTOCOL_VERSION || v.after !== AFTER_FIRST_RESPONSE || !isTime(v.cpu)) return undefined;
  return { cpu: v.cpu, rss: isBytes(v.rss) ? v.rss : undefined };
}

/** Send one request to the child on 127.0.0.1 (a fresh connection each time, bounded in time and size) and read the whole answer. */
async function send(port: number, request: RouteRequest, timeoutMs: number): Promise<RouteAnswer> {
  const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
  const answer = await httpRequest(
    { host: '127.0.0.1', port },
    { method: request.method, path: request.path, ...(payload === undefined ? {} : { body: payload }) },
    timeoutMs,
  );
  let body: unknown = answer.body;
  try {
    body = JSON.parse(answer.body);
  } catch {
    // kept as text: the check says what came back
  }
  return { status: answer.status, body, sentAt: answer.sentAt, at: answer.at };
}

async function checkInvalid(port: number, routes: CellRoutes, timeoutMs: number): Promise<InvalidBodyCheck | undefined> {
  const request = routes.invalid();
  if (!request) return undefined;
  try {
    const answer = await send(port, request, timeoutMs);
    if (answer.status >= 400 && answer.status < 500) return { ok: true, status: answer.status };
    return { ok: false, status: answer.status, reason: `an invalid body got ${answer.status}, expected 4xx` };
  } catch (error) {
    return { ok: false, reason: `invalid body check: ${(error as Error).message}` };
  }
}

/** The first answer: the table's last route for a generated file, the user's request for an app; when it had arrived. */
async function firstAnswer(io: SampleIO, ready: Ready, expectedPort: number, routes: CellRoutes | undefined): Promise<number> {
  const { app } = io;
  if (routes || !app) {
    const table = routes ?? new CellRoutes(io.cell, io.contract);
    const last = table.last;
    const answer = await send(ready.port, table.request(last), io.remaining());
    table.check(last, answer);
    return answer.at;
  }
  if (expectedPort !== 0 && ready.port !== expectedPort) {
    throw new SampleFailure(`the app listened on port ${ready.port}, not on the PORT=${expectedPort} it was given`);
  }
  const request = app.request ?? { method: 'GET', path: '/' };
  const answer = await httpRequest({ host: connectHost(ready.address), port: ready.port }, request, io.remaining());
  const problem =
    answerProblem(requestText(request), app.expect, answer.status, answer.body, NOT_FOUND_HINT) ??
    sameAnswerProblem(app, answer.status, answer.body);
  if (problem) throw new SampleFailure(problem);
  return answer.at;
}

/**
 * How a sample learns that its server is ready: the server's own ready line (when it has listened), or,
 * for a Web Function, the address accepting a connection from outside (`acceptedAt`, on the runner's clock).
 */
export type Readiness = (io: SampleIO) => Promise<{ ready: Ready; acceptedAt?: number }>;

/** The server's word: its ready line, printed once it listens. */
const ownReadyLine: Readiness = async (io) => ({
  ready: parseReadyLine(await io.protocolLine(io.app ? 'listening server' : 'ready line')),
});

/**
 * One sample of a listening server: ready (as `readiness` says), the first answer, the CPU time after it,
 * the first hits and the invalid-body check. `expectedPort` is the port an app was told (0: any).
 */
export async function measureServer(io: SampleIO, expectedPort: number, readiness: Readiness = ownReadyLine): Promise<Measured> {
  // a generated file answers its route table; the user's own app answers its one request
  const routes = io.app ? undefined : new CellRoutes(io.cell, io.contract);
  const { ready, acceptedAt } = await readiness(io);
  await io.endOfInit();
  const answerAt = await firstAnswer(io, ready, expectedPort, routes);
  // listen is on the child's clock too: moved onto the timeline like the other marks
  const ownListen = ready.timeOrigin + ready.marks.listen - wallEpochOf(io.spawnAt);
  // probed from outside, ready is when the address accepted; the server's own word is kept beside it
  const listen = acceptedAt === undefined ? ownListen : acceptedAt - io.spawnAt;
  const marks = timelineMarks(ready, io.spawnAt, { name: 'listen', at: listen }, answerAt - io.spawnAt);
  const measured: Measured = { marks, rss: ready.rss, heapUsed: ready.heapUsed, runtimeVersion: ready.runtime };
  if (acceptedAt !== undefined) measured.ownListen = ownListen;
  // CPU time after the answer: the child reports it once the answer is written (protocol v2)
  const cpu: CpuMarks = { ...ready.cpu };
  // an app that is itself a coldstart-generated file prints its own ready line too: skip it
  let after: AfterLine | undefined;
  for (let lines = io.app ? 2 : 1; lines > 0 && !after; lines--) {
    const afterText = await io.optionalProtocolLine(AFTER_LINE_WAIT_MS);
    if (afterText === undefined) break;
    after = parseAfterLine(afterText);
  }
  if (after && after.cpu >= (cpu.listen ?? 0)) cpu.firstResponse = after.cpu;
  if (Object.keys(cpu).length) measured.cpu = cpu;
  if (!routes) return measured;
  const hits = await routes.firstHits(io.firstHits, io.spawnAt, (request) => send(ready.port, request, io.remaining()));
  if (hits) measured.firstHits = hits;
  if (io.checkInvalidBody) {
    const invalid = await checkInvalid(ready.port, routes, io.remaining());
    if (invalid) measured.invalidBody = invalid;
  }
  return measured;
}

/** The port an app is told in PORT: a free one (it must listen there), or 0 (any port it picks). */
async function appPort(app: AppSpec | undefined): Promise<number> {
  if (!app || app.port === 0) return 0;
  return freePort();
}

export const serverTarget: Target = {
  name: 'server',
  async open({ app }) {
    const port = await appPort(app);
    // the app learns its port the way apps do: PORT (and HOST for the ones that read it)
    const env: Record<string, string> = app ? { ...app.env, PORT: String(port), HOST: '127.0.0.1' } : {};
    return { env, measure: (io) => measureServer(io, port), close: () => Promise.resolve() };
  },
};
