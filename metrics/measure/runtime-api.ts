/**
 * The Lambda Runtime API (the 2018-06-01 interface AWS documents for custom runtimes) as the runner
 * plays it for one sample: a node:http server on 127.0.0.1 with a queue of events. The child, a
 * Lambda file run as `node file.js`, asks `GET /2018-06-01/runtime/invocation/next` for each event
 * (the request is held open until one is queued) and answers with
 * `POST /2018-06-01/runtime/invocation/<id>/response` or `…/<id>/error`; a module that fails while
 * it loads posts `/2018-06-01/runtime/init/error` instead.
 *
 * Everything the child does is recorded with the runner's clock (performance.now()): every `next`
 * (the first one ends INIT, as on Lambda), when each event was handed out, and each outcome. A
 * request outside the interface gets the status AWS's Runtime API gives it (404 for an unknown
 * path, 405 for a wrong method, 400 InvalidRequestID for an unknown or already answered request id, 403
 * InvalidStateTransition for a call out of turn, 413 for a payload over 6 MB) plus 400 for a body
 * that is not JSON (the contract's answers are JSON), and is recorded as a failure: it settles every
 * event not answered yet with its reason.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export const RUNTIME_API_VERSION = '2018-06-01';
/** Lambda's limit on a synchronous response (and on an event). */
export const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

const NEXT = `/${RUNTIME_API_VERSION}/runtime/invocation/next`;
const INIT_ERROR = `/${RUNTIME_API_VERSION}/runtime/init/error`;
const INVOCATION = new RegExp(`^/${RUNTIME_API_VERSION}/runtime/invocation/([^/]+)/(response|error)$`);

/** One thing the child did, in the order it happened; `at` is the runner's performance.now(). */
export type RuntimeRecord =
  | { kind: 'next'; at: number }
  | { kind: 'handout'; at: number; requestId: string }
  | { kind: 'response'; at: number; requestId: string; body: unknown; bytes: number }
  | { kind: 'invocationError'; at: number; requestId: string; errorType: string; error: unknown }
  | { kind: 'initError'; at: number; errorType: string; error: unknown }
  | { kind: 'rejected'; at: number; status: number; reason: string };

/** How one queued event ended. `handedOutAt` is when the child got it (absent if it never did). */
export type InvocationOutcome = { requestId: string; handedOutAt?: number } & (
  | { kind: 'response'; at: number; body: unknown }
  | { kind: 'invocationError'; at: number; errorType: string; error: unknown }
  | { kind: 'initError'; at: number; errorType: string; error: unknown }
  | { kind: 'rejected'; at: number; reason: string }
  | { kind: 'closed'; at: number }
);

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

interface Pending {
  requestId: string;
  payload: string;
  handedOutAt?: number;
  settle?: (outcome: InvocationOutcome) => void;
}

type Phase = 'init' | 'ready' | 'invoking' | 'initFailed' | 'closed';

function traceId(): string {
  const seconds = Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0');
  return `Root=1-${seconds}-${randomBytes(12).toString('hex')};Parent=${randomBytes(8).toString('hex')};Sampled=0`;
}

function sendJson(response: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
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

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Start a Runtime API on 127.0.0.1 (a free port). One per sample. */
export async function startRuntimeApi(options: RuntimeApiOptions = {}): Promise<RuntimeApi> {
  const functionName = options.functionName ?? 'coldstart';
  const arn = `arn:aws:lambda:${options.region ?? 'us-east-1'}:123456789012:function:${functionName}`;
  const timeoutMs = options.functionTimeoutMs ?? 30_000;
  const records: RuntimeRecord[] = [];
  const queue: Pending[] = [];
  const unsettled = new Set<Pending>();
  let phase: Phase = 'init';
  let inFlight: Pending | undefined;
  let parked: http.ServerResponse | undefined;
  let initEnd: number | undefined;
  let resolveInitEnd!: (at: number) => void;
  const initEnded = new Promise<number>((resolve) => (resolveInitEnd = resolve));

  const settle = (pending: Pending, outcome: InvocationOutcome) => {
    if (!unsettled.delete(pending)) return;
    pending.settle?.(outcome);
  };
  const settleAll = (make: (pending: Pending) => InvocationOutcome) => {
    for (const pending of [...unsettled]) settle(pending, make(pending));
  };

  const reject = (response: http.ServerResponse, status: number, errorType: string, reason: string) => {
    const at = performance.now();
    records.push({ kind: 'rejected', at, status, reason });
    settleAll((p) => ({ requestId: p.requestId, handedOutAt: p.handedOutAt, kind: 'rejected', at, reason }));
    sendJson(response, status, { errorMessage: reason, errorType });
  };

  const handOut = (response: http.ServerResponse, pending: Pending) => {
    const at = performance.now();
    pending.handedOutAt = at;
    inFlight = pending;
    phase = 'invoking';
    records.push({ kind: 'handout', at, requestId: pending.requestId });
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(pending.payload),
      'lambda-runtime-aws-request-id': pending.requestId,
      'lambda-runtime-deadline-ms': String(Date.now() + timeoutMs),
      'lambda-runtime-invoked-function-arn': arn,
      'lambda-runtime-trace-id': traceId(),
    });
    response.end(pending.payload);
  };

  const onNext = (response: http.ServerResponse, label: string) => {
    const at = performance.now();
    records.push({ kind: 'next', at });
    if (phase === 'initFailed') {
      reject(response, 403, 'InvalidStateTransition', `${label} after an init error (403)`);
      return;
    }
    if (phase === 'invoking') {
      reject(response, 403, 'InvalidStateTransition', `${label} before answering ${inFlight?.requestId} (403)`);
      return;
    }
    if (parked) {
      reject(response, 403, 'InvalidStateTransition', `${label} while another next is waiting (403)`);
      return;
    }
    if (initEnd === undefined) {
      initEnd = at;
      resolveInitEnd(at);
    }
    phase = 'ready';
    const pending = queue.shift();
    if (pending) {
      handOut(response, pending);
      return;
    }
    parked = response;
    // a child that hangs up while waiting no longer waits
    response.once('close', () => {
      if (parked === response) parked = undefined;
    });
  };

  const onPost = async (request: http.IncomingMessage, response: http.ServerResponse, path: string, label: string) => {
    const invocation = INVOCATION.exec(path);
    if (path !== INIT_ERROR && !invocation) {
      reject(response, 404, 'NotFound', `${label}: not a Runtime API path (404)`);
      return;
    }
    const { text, tooLarge } = await readBody(request, MAX_PAYLOAD_BYTES);
    if (tooLarge) {
      reject(response, 413, 'RequestEntityTooLarge', `${label}: body over ${MAX_PAYLOAD_BYTES} bytes (413)`);
      return;
    }
    const at = performance.now();
    const errorType = String(request.headers['lambda-runtime-function-error-type'] ?? '');
    if (!invocation) {
      if (phase !== 'init') {
        reject(response, 403, 'InvalidStateTransition', `${label} after init ended (403)`);
        return;
      }
      const body = parseJson(text);
      if (!body.ok) {
        reject(response, 400, 'InvalidRequestBody', `${label}: body is not JSON (400)`);
        return;
      }
      phase = 'initFailed';
      records.push({ kind: 'initError', at, errorType, error: body.value });
      settleAll((p) => ({ requestId: p.requestId, kind: 'initError', at, errorType, error: body.value }));
      sendJson(response, 202, { status: 'OK' });
      return;
    }
    const requestId = decodeURIComponent(invocation[1]!);
    const pending = inFlight;
    if (!pending || pending.requestId !== requestId) {
      reject(response, 400, 'InvalidRequestID', `${label}: unknown or already answered request id (400)`);
      return;
    }
    const body = parseJson(text);
    if (!body.ok) {
      reject(response, 400, 'InvalidRequestBody', `${label}: body is not JSON (400)`);
      return;
    }
    inFlight = undefined;
    phase = 'ready';
    const base = { requestId, handedOutAt: pending.handedOutAt };
    if (invocation[2] === 'response') {
      records.push({ kind: 'response', at, requestId, body: body.value, bytes: Buffer.byteLength(text) });
      settle(pending, { ...base, kind: 'response', at, body: body.value });
    } else {
      records.push({ kind: 'invocationError', at, requestId, errorType, error: body.value });
      settle(pending, { ...base, kind: 'invocationError', at, errorType, error: body.value });
    }
    sendJson(response, 202, { status: 'OK' });
  };

  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0]!;
    const label = `${request.method} ${path.slice(0, 120)}`;
    const known = path === NEXT || path === INIT_ERROR || INVOCATION.test(path);
    if (path === NEXT && request.method === 'GET') {
      onNext(response, label);
      return;
    }
    if (request.method === 'POST' && path !== NEXT) {
      return void onPost(request, response, path, label).catch((error: unknown) => {
        if (!response.headersSent) reject(response, 400, 'InvalidRequest', `${label}: ${String(error)} (400)`);
      });
    }
    if (known) {
      reject(response, 405, 'MethodNotAllowed', `${label}: wrong method (405)`);
      return;
    }
    reject(response, 404, 'NotFound', `${label}: not a Runtime API path (404)`);
  });
  server.keepAliveTimeout = 0;

  await new Promise<void>((resolve, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', rejectListen);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    address: `127.0.0.1:${port}`,
    records,
    initEnded,
    get initEnd() {
      return initEnd;
    },
    failures: () => records.flatMap((r) => (r.kind === 'rejected' ? [r.reason] : [])),
    invoke(event: unknown): Invocation {
      const pending: Pending = { requestId: randomUUID(), payload: JSON.stringify(event) };
      const outcome = new Promise<InvocationOutcome>((resolve) => (pending.settle = resolve));
      unsettled.add(pending);
      if (phase === 'closed') {
        settle(pending, { requestId: pending.requestId, kind: 'closed', at: performance.now() });
      } else if (phase === 'initFailed') {
        // the child already said it cannot start: this event fails the same way
        const failure = records.find((r) => r.kind === 'initError')!;
        const { errorType, error } = failure;
        settle(pending, { requestId: pending.requestId, kind: 'initError', at: performance.now(), errorType, error });
      } else if (parked) {
        const response = parked;
        parked = undefined;
        handOut(response, pending);
      } else {
        queue.push(pending);
      }
      return { requestId: pending.requestId, outcome };
    },
    close(): Promise<void> {
      phase = 'closed';
      const at = performance.now();
      settleAll((p) => ({ requestId: p.requestId, handedOutAt: p.handedOutAt, kind: 'closed', at }));
      parked = undefined;
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

export interface LambdaEnvironmentOptions {
  /** AWS_LAMBDA_FUNCTION_NAME */
  functionName: string;
  /** AWS_LAMBDA_FUNCTION_MEMORY_SIZE, in MB */
  memoryMb: number;
  /** _HANDLER, `<file name without .js>.handler` */
  handler: string;
  /** LAMBDA_TASK_ROOT, the folder holding the function's code */
  taskRoot: string;
  /** AWS_REGION and AWS_DEFAULT_REGION (default us-east-1) */
  region?: string;
  /** AWS_EXECUTION_ENV, e.g. `AWS_Lambda_nodejs20.x` (omitted when not given) */
  executionEnv?: string;
  /** AWS_LAMBDA_LOG_STREAM_NAME (default: Lambda's form, today's UTC date and a random instance id) */
  logStreamName?: string;
}

/** The names lambdaEnvironment sets (AWS_EXECUTION_ENV only when given), for meta.json. */
export const LAMBDA_ENVIRONMENT_NAMES = [
  'AWS_LAMBDA_RUNTIME_API',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_EXECUTION_ENV',
  '_HANDLER',
  'LAMBDA_TASK_ROOT',
  'LANG',
  'TZ',
] as const;

/** A log stream name as Lambda forms it: `2026/01/31/[$LATEST]` and 32 hex digits. */
export function logStreamName(now = new Date()): string {
  const date = now.toISOString().slice(0, 10).replaceAll('-', '/');
  return `${date}/[$LATEST]${randomBytes(16).toString('hex')}`;
}

/**
 * The variables Lambda documents for a function's environment, for a child driven by the Runtime
 * API at `runtimeApi`. Only documented names; none of the credentials. To be merged over the
 * child's clean environment. (AWS's runtime interface client, aws-lambda-ric, refuses to start an
 * invocation without AWS_LAMBDA_LOG_STREAM_NAME.)
 */
export function lambdaEnvironment(runtimeApi: string, options: LambdaEnvironmentOptions): Record<string, string> {
  const region = options.region ?? 'us-east-1';
  return {
    AWS_LAMBDA_RUNTIME_API: runtimeApi,
    AWS_LAMBDA_FUNCTION_NAME: options.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${options.functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: options.logStreamName ?? logStreamName(),
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    ...(options.executionEnv !== undefined ? { AWS_EXECUTION_ENV: options.executionEnv } : {}),
    _HANDLER: options.handler,
    LAMBDA_TASK_ROOT: options.taskRoot,
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
  };
}
