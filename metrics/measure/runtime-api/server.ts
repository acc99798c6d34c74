/**
 * The Lambda Runtime API as the runner plays it for one sample: a node:http server on 127.0.0.1 that
 * turns each request into an event of the state machine (state.ts), stamped with the runner's clock
 * (performance.now()), and sends the replies it gives. The headers of a hand-out (deadline, ARN, trace
 * id) are made here: they need the wall clock and randomness, which the state machine does not.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DEFAULT_REGION } from '../../core/lambda-platform.ts';
import {
  INITIAL_STATE,
  MAX_PAYLOAD_BYTES,
  requestLabel,
  route,
  step,
  type ApiEvent,
  type ApiState,
  type InvocationOutcome,
  type Reply,
  type RuntimeRecord,
} from './state.ts';

export interface Invocation {
  requestId: string;
  /** settles once: answered, failed, or the API closed first; never rejects */
  outcome: Promise<InvocationOutcome>;
}

export interface RuntimeApiOptions {
  /** the function name in the invoked ARN (default `coldstart`) */
  functionName?: string;
  region?: string;
  /** announced in Lambda-Runtime-Deadline-Ms from each hand-out (default 30 s; not enforced here) */
  functionTimeoutMs?: number;
}

export interface RuntimeApi {
  /** `127.0.0.1:<port>`: the value of AWS_LAMBDA_RUNTIME_API */
  readonly address: string;
  /** everything recorded so far, in order */
  readonly records: readonly RuntimeRecord[];
  /** when the child first asked for an event (the end of INIT), or undefined */
  readonly initEnd: number | undefined;
  /** resolves with initEnd at the child's first `next` (never rejects; pending until then) */
  readonly initEnded: Promise<number>;
  /** the reasons of the requests that were rejected, in order */
  failures(): string[];
  /** queue an event (served in the order queued) */
  invoke(event: unknown): Invocation;
  /** stop: pending `next` requests are cut off, unanswered events settle as `closed` */
  close(): Promise<void>;
}

function traceId(): string {
  const seconds = Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0');
  return `Root=1-${seconds}-${randomBytes(12).toString('hex')};Parent=${randomBytes(8).toString('hex')};Sampled=0`;
}

/** Read a request body up to `limit` bytes; `tooLarge` when it went past. */
function readBody(request: http.IncomingMessage, limit: number): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > limit }));
    request.on('error', reject);
  });
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** What a hand-out's headers name besides the event: the invoked function's ARN and its timeout. */
interface Handouts {
  arn: string;
  timeoutMs: number;
}

/** Send a reply of the state machine. */
function send(response: http.ServerResponse, reply: Exclude<Reply, { kind: 'wait' }>, handouts: Handouts): void {
  const text = reply.kind === 'json' ? JSON.stringify(reply.body) : reply.payload;
  const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
  if (reply.kind === 'handout') {
    headers['lambda-runtime-aws-request-id'] = reply.requestId;
    headers['lambda-runtime-deadline-ms'] = String(Date.now() + handouts.timeoutMs);
    headers['lambda-runtime-invoked-function-arn'] = handouts.arn;
    headers['lambda-runtime-trace-id'] = traceId();
  }
  response.writeHead(reply.kind === 'json' ? reply.status : 200, headers);
  response.end(text);
}

/** The event request number `id` stands for, stamped when it arrived or (a POST) when its body was read. */
async function eventOf(request: http.IncomingMessage, id: number): Promise<ApiEvent> {
  const path = (request.url ?? '').split('?')[0]!;
  const label = requestLabel(request.method, path);
  const what = route(request.method, path);
  if (what.kind === 'next') return { kind: 'next', at: performance.now(), request: id, label };
  if (what.kind === 'refuse') return { ...what, at: performance.now(), request: id };
  try {
    const body = await readBody(request, MAX_PAYLOAD_BYTES);
    const errorType = String(request.headers['lambda-runtime-function-error-type'] ?? '');
    const read = { ...body, errorType, at: performance.now(), request: id, label };
    return what.kind === 'answer' ? { ...what, ...read } : { kind: 'initError', ...read };
  } catch (error) {
    const reason = `${label}: ${String(error)} (400)`;
    return { kind: 'refuse', at: performance.now(), request: id, status: 400, errorType: 'InvalidRequest', reason };
  }
}

/** Start a Runtime API on 127.0.0.1 (a free port). One per sample. */
export async function startRuntimeApi(options: RuntimeApiOptions = {}): Promise<RuntimeApi> {
  const handouts: Handouts = {
    arn: `arn:aws:lambda:${options.region ?? DEFAULT_REGION}:123456789012:function:${options.functionName ?? 'coldstart'}`,
    timeoutMs: options.functionTimeoutMs ?? 30_000,
  };
  const records: RuntimeRecord[] = [];
  const settlers = new Map<string, (outcome: InvocationOutcome) => void>();
  /** the requests not answered yet, by the number their events carry */
  const open = new Map<number, http.ServerResponse>();
  let requests = 0;
  let state: ApiState = INITIAL_STATE;
  let resolveInitEnd!: (at: number) => void;
  const initEnded = new Promise<number>((resolve) => (resolveInitEnd = resolve));

  const dispatch = (event: ApiEvent) => {
    const result = step(state, event);
    state = result.state;
    records.push(...result.records);
    if (state.initEnd !== undefined) resolveInitEnd(state.initEnd);
    for (const outcome of result.settles) {
      settlers.get(outcome.requestId)?.(outcome);
      settlers.delete(outcome.requestId);
    }
    const { reply } = result;
    const response = reply && open.get(reply.to);
    if (reply && response && reply.kind !== 'wait') {
      open.delete(reply.to);
      send(response, reply, handouts);
    }
  };

  const server = http.createServer((request, response) => {
    const id = ++requests;
    open.set(id, response);
    response.once('close', () => {
      open.delete(id);
      dispatch({ kind: 'hangUp', request: id });
    });
    void eventOf(request, id).then(dispatch);
  });
  server.keepAliveTimeout = 0;
  const port = await listen(server);

  return {
    address: `127.0.0.1:${port}`,
    records,
    initEnded,
    get initEnd() {
      return state.initEnd;
    },
    failures: () => records.flatMap((r) => (r.kind === 'rejected' ? [r.reason] : [])),
    invoke(event: unknown): Invocation {
      const requestId = randomUUID();
      const outcome = new Promise<InvocationOutcome>((resolve) => settlers.set(requestId, resolve));
      dispatch({ kind: 'invoke', at: performance.now(), requestId, payload: JSON.stringify(event) });
      return { requestId, outcome };
    },
    close(): Promise<void> {
      dispatch({ kind: 'close', at: performance.now() });
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
