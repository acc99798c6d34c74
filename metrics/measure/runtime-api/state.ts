/**
 * The Lambda Runtime API (the 2018-06-01 interface AWS documents for custom runtimes) as a pure state
 * machine: `step(state, event)` gives the next state, the answer to the request (if any), the records
 * to keep and the invocations that settle. No sockets, no clock, no randomness: the HTTP adapter
 * (server.ts) turns requests into events with the runner's clock and request ids into replies.
 *
 * The child asks `GET /2018-06-01/runtime/invocation/next` for each event (held open until one is
 * queued) and answers with `POST /2018-06-01/runtime/invocation/<id>/response` or `…/<id>/error`; a
 * module that fails while it loads posts `/2018-06-01/runtime/init/error` instead. Every `next` is
 * recorded (the first accepted one ends INIT, as on Lambda), each hand-out and each outcome. A request
 * outside the interface gets the status AWS's Runtime API gives it (404 for an unknown path, 405 for a
 * wrong method, 400 InvalidRequestID for an unknown or already answered request id, 403
 * InvalidStateTransition for a call out of turn, 413 for a payload over 6 MB) plus 400 for a body that
 * is not JSON (the contract's answers are JSON), and is recorded as a failure: it settles every event
 * not answered yet with its reason.
 */

export const RUNTIME_API_VERSION = '2018-06-01';
/** Lambda's limit on a synchronous response and on an event: a platform fact, in core. */
export { MAX_PAYLOAD_BYTES } from '../../core/lambda-platform.ts';
import { MAX_PAYLOAD_BYTES } from '../../core/lambda-platform.ts';

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

/**
 * init: no `next` yet; ready: INIT ended, no event with the child; invoking: an event handed out and
 * not answered; initFailed: the child posted an init error; closed: the runner stopped the API.
 */
export type Phase = 'init' | 'ready' | 'invoking' | 'initFailed' | 'closed';

/** An event that has not settled yet; `handedOutAt` once the child got it. */
export interface Unsettled {
  readonly requestId: string;
  readonly handedOutAt?: number;
}

export interface ApiState {
  readonly phase: Phase;
  /** events queued and not handed out yet, served in order */
  readonly queue: readonly { readonly requestId: string; readonly payload: string }[];
  /** every event not settled yet, in the order queued */
  readonly unsettled: readonly Unsettled[];
  /** the event the child holds (stays after a rejected answer: the proper one is still accepted) */
  readonly inFlight?: { readonly requestId: string; readonly handedOutAt: number };
  /** the request number of the `next` waiting for an event */
  readonly parked?: number;
  /** when the child first asked for an event (the end of INIT) */
  readonly initEnd?: number;
  /** what the child said when it could not start: a later event fails the same way */
  readonly initFailure?: { readonly errorType: string; readonly error: unknown };
}

export const INITIAL_STATE: ApiState = { phase: 'init', queue: [], unsettled: [] };

/** A POST body as the adapter read it, up to MAX_PAYLOAD_BYTES. */
interface Body {
  /** the text read (cut at the limit when tooLarge) */
  text: string;
  tooLarge: boolean;
  /** the Lambda-Runtime-Function-Error-Type header, '' when absent */
  errorType: string;
}

/** `request` numbers the HTTP request an event came from; the reply goes back to it. */
export type ApiEvent =
  | { kind: 'next'; at: number; request: number; label: string }
  | ({ kind: 'initError'; at: number; request: number; label: string } & Body)
  | ({ kind: 'answer'; at: number; request: number; label: string; requestId: string; outcome: 'response' | 'error' } & Body)
  | { kind: 'refuse'; at: number; request: number; status: number; errorType: string; reason: string }
  /** a waiting `next` whose connection closed */
  | { kind: 'hangUp'; request: number }
  /** the runner queues an event */
  | { kind: 'invoke'; at: number; requestId: string; payload: string }
  /** the runner stops the API */
  | { kind: 'close'; at: number };

/** What to answer request `to`: a JSON status, an event to hand out, or nothing yet (a parked `next`). */
export type Reply = { to: number } & (
  { kind: 'json'; status: number; body: unknown } | { kind: 'handout'; requestId: string; payload: string } | { kind: 'wait' }
);

export interface Step {
  state: ApiState;
  reply?: Reply;
  /** to append to the records, in order */
  records: RuntimeRecord[];
  /** invocations that settle now (each settles once) */
  settles: InvocationOutcome[];
}

/** What an HTTP request is, from its method and path alone (before any body is read). */
export type Route =
  | { kind: 'next' }
  | { kind: 'initError' }
  | { kind: 'answer'; requestId: string; outcome: 'response' | 'error' }
  | { kind: 'refuse'; status: number; errorType: string; reason: string };

/** The label a request's failures name it by: its method and (the start of) its path. */
export function requestLabel(method: string | undefined, path: string): string {
  return `${method} ${path.slice(0, 120)}`;
}

export function route(method: string | undefined, path: string): Route {
  const invocation = INVOCATION.exec(path);
  if (path === NEXT && method === 'GET') return { kind: 'next' };
  if (method === 'POST' && path === INIT_ERROR) return { kind: 'initError' };
  if (method === 'POST' && invocation) {
    return { kind: 'answer', requestId: decodeURIComponent(invocation[1]!), outcome: invocation[2] === 'response' ? 'response' : 'error' };
  }
  const label = requestLabel(method, path);
  if (path === NEXT || path === INIT_ERROR || invocation) {
    return { kind: 'refuse', status: 405, errorType: 'MethodNotAllowed', reason: `${label}: wrong method (405)` };
  }
  return { kind: 'refuse', status: 404, errorType: 'NotFound', reason: `${label}: not a Runtime API path (404)` };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

const ACCEPTED = { status: 'OK' };
const tooLarge = (label: string) => `${label}: body over ${MAX_PAYLOAD_BYTES} bytes (413)`;

/** Settle every unsettled event with the outcome `make` gives it. */
function settleAll(state: ApiState, make: (event: Unsettled) => InvocationOutcome): { state: ApiState; settles: InvocationOutcome[] } {
  return { state: { ...state, unsettled: [] }, settles: state.unsettled.map(make) };
}

/** Refuse request `to`: record the failure and fail every unsettled event with its reason. */
function refuse(state: ApiState, at: number, to: number, status: number, errorType: string, reason: string): Step {
  const failed = settleAll(state, (p) => ({ requestId: p.requestId, handedOutAt: p.handedOutAt, kind: 'rejected', at, reason }));
  return {
    state: failed.state,
    reply: { to, kind: 'json', status, body: { errorMessage: reason, errorType } },
    records: [{ kind: 'rejected', at, status, reason }],
    settles: failed.settles,
  };
}

/** Give queued event `event` to the request `to` (a `next`, now or parked). */
function handOut(state: ApiState, at: number, to: number, event: { requestId: string; payload: string }): Step {
  const unsettled = state.unsettled.map((p) => (p.requestId === event.requestId ? { ...p, handedOutAt: at } : p));
  return {
    state: { ...state, phase: 'invoking', unsettled, inFlight: { requestId: event.requestId, handedOutAt: at }, parked: undefined },
    reply: { to, kind: 'handout', requestId: event.requestId, payload: event.payload },
    records: [{ kind: 'handout', at, requestId: event.requestId }],
    settles: [],
  };
}

function onNext(state: ApiState, event: Extract<ApiEvent, { kind: 'next' }>): Step {
  const { at, request, label } = event;
  const next: RuntimeRecord = { kind: 'next', at };
  const refused = (why: string): Step => {
    const step = refuse(state, at, request, 403, 'InvalidStateTransition', `${label} ${why} (403)`);
    return { ...step, records: [next, ...step.records] };
  };
  if (state.phase === 'initFailed') return refused('after an init error');
  if (state.phase === 'invoking') return refused(`before answering ${state.inFlight?.requestId}`);
  if (state.parked !== undefined) return refused('while another next is waiting');
  const ready: ApiState = { ...state, phase: 'ready', initEnd: state.initEnd ?? at };
  const [first, ...rest] = ready.queue;
  if (!first) return { state: { ...ready, parked: request }, reply: { to: request, kind: 'wait' }, records: [next], settles: [] };
  const given = handOut({ ...ready, queue: rest }, at, request, first);
  return { ...given, records: [next, ...given.records] };
}

function onInitError(state: ApiState, event: Extract<ApiEvent, { kind: 'initError' }>): Step {
  const { at, request, label, errorType } = event;
  if (event.tooLarge) return refuse(state, at, request, 413, 'RequestEntityTooLarge', tooLarge(label));
  if (state.phase !== 'init') return refuse(state, at, request, 403, 'InvalidStateTransition', `${label} after init ended (403)`);
  const body = parseJson(event.text);
  if (!body.ok) return refuse(state, at, request, 400, 'InvalidRequestBody', `${label}: body is not JSON (400)`);
  const error = body.value;
  const failed = settleAll(state, (p) => ({ requestId: p.requestId, kind: 'initError', at, errorType, error }));
  return {
    state: { ...failed.state, phase: 'initFailed', initFailure: { errorType, error } },
    reply: { to: request, kind: 'json', status: 202, body: ACCEPTED },
    records: [{ kind: 'initError', at, errorType, error }],
    settles: failed.settles,
  };
}

function onAnswer(state: ApiState, event: Extract<ApiEvent, { kind: 'answer' }>): Step {
  const { at, request, label, requestId, errorType } = event;
  if (event.tooLarge) return refuse(state, at, request, 413, 'RequestEntityTooLarge', tooLarge(label));
  const held = state.inFlight;
  if (held?.requestId !== requestId) {
    return refuse(state, at, request, 400, 'InvalidRequestID', `${label}: unknown or already answered request id (400)`);
  }
  const body = parseJson(event.text);
  if (!body.ok) return refuse(state, at, request, 400, 'InvalidRequestBody', `${label}: body is not JSON (400)`);
  const wasUnsettled = state.unsettled.some((p) => p.requestId === requestId);
  const base = { requestId, handedOutAt: held.handedOutAt };
  const [record, outcome]: [RuntimeRecord, InvocationOutcome] =
    event.outcome === 'response'
      ? [
          { kind: 'response', at, requestId, body: body.value, bytes: Buffer.byteLength(event.text) },
          { ...base, kind: 'response', at, body: body.value },
        ]
      : [
          { kind: 'invocationError', at, requestId, errorType, error: body.value },
          { ...base, kind: 'invocationError', at, errorType, error: body.value },
        ];
  return {
    state: { ...state, phase: 'ready', inFlight: undefined, unsettled: state.unsettled.filter((p) => p.requestId !== requestId) },
    reply: { to: request, kind: 'json', status: 202, body: ACCEPTED },
    records: [record],
    settles: wasUnsettled ? [outcome] : [],
  };
}

function onInvoke(state: ApiState, event: Extract<ApiEvent, { kind: 'invoke' }>): Step {
  const { at, requestId } = event;
  if (state.phase === 'closed') return { state, records: [], settles: [{ requestId, kind: 'closed', at }] };
  if (state.initFailure) {
    // the child already said it cannot start: this event fails the same way
    return { state, records: [], settles: [{ requestId, kind: 'initError', at, ...state.initFailure }] };
  }
  const queued: ApiState = { ...state, unsettled: [...state.unsettled, { requestId }] };
  if (queued.parked === undefined) {
    return { state: { ...queued, queue: [...queued.queue, { requestId, payload: event.payload }] }, records: [], settles: [] };
  }
  return handOut(queued, at, queued.parked, event);
}

/** The one transition function: everything the API does is a step. */
export function step(state: ApiState, event: ApiEvent): Step {
  const unchanged: Step = { state, records: [], settles: [] };
  if (state.phase === 'closed' && event.kind !== 'invoke' && event.kind !== 'close') {
    // the server is gone: a request still in flight is answered, nothing else happens
    if (event.kind === 'hangUp') return unchanged;
    return { ...unchanged, reply: { to: event.request, kind: 'json', status: 410, body: { errorMessage: 'closed', errorType: 'Closed' } } };
  }
  switch (event.kind) {
    case 'next':
      return onNext(state, event);
    case 'initError':
      return onInitError(state, event);
    case 'answer':
      return onAnswer(state, event);
    case 'refuse':
      return refuse(state, event.at, event.request, event.status, event.errorType, event.reason);
    case 'hangUp':
      // a child that hangs up while waiting no longer waits
      return state.parked === event.request ? { ...unchanged, state: { ...state, parked: undefined } } : unchanged;
    case 'invoke':
      return onInvoke(state, event);
    case 'close': {
      const closed = settleAll(state, (p) => ({ requestId: p.requestId, handedOutAt: p.handedOutAt, kind: 'closed', at: event.at }));
      return { state: { ...closed.state, phase: 'closed', queue: [], parked: undefined }, records: [], settles: closed.settles };
    }
  }
}
