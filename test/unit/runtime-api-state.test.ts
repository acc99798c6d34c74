/**
 * The Runtime API's state machine without a socket: every phase against every event (the reply, the
 * phase after, what is recorded and what settles), then the details the table does not show (who
 * gets a hand-out, when INIT ends, an answer after a rejected one), and the routing of a request.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  INITIAL_STATE,
  MAX_PAYLOAD_BYTES,
  route,
  step,
  type ApiEvent,
  type ApiState,
  type Step,
} from '../../metrics/measure/runtime-api/state.ts';

const next = (request: number): ApiEvent => ({ kind: 'next', at: 0, request, label: 'GET next' });
const invoke = (requestId: string): ApiEvent => ({ kind: 'invoke', at: 0, requestId, payload: `{"id":"${requestId}"}` });
const body = (text: string, tooLarge = false) => ({ text, tooLarge, errorType: 'Runtime.Something' });
const answer = (requestId: string, outcome: 'response' | 'error', text = '{}', tooLarge = false): ApiEvent => ({
  kind: 'answer',
  at: 0,
  request: 2,
  label: 'POST answer',
  requestId,
  outcome,
  ...body(text, tooLarge),
});
const initError = (text = '{}', tooLarge = false): ApiEvent => ({
  kind: 'initError',
  at: 0,
  request: 2,
  label: 'POST init',
  ...body(text, tooLarge),
});
const hangUp = (request: number): ApiEvent => ({ kind: 'hangUp', request });
const close: ApiEvent = { kind: 'close', at: 0 };

/** Apply events in order, each at its index + 1 on the clock; the last step and its state. */
function run(events: readonly ApiEvent[], from: ApiState = INITIAL_STATE): Step {
  let last: Step = { state: from, records: [], settles: [] };
  events.forEach((event, index) => {
    last = step(last.state, 'at' in event ? { ...event, at: index + 1 } : event);
  });
  return last;
}

/** The phases, each as the events that lead to it ("a" is the event the child may hold; request 1 its `next`). */
const PHASES: Record<string, ApiEvent[]> = {
  init: [],
  'init, a queued': [invoke('a')],
  'ready, next waiting': [next(1)],
  'ready, nobody waiting': [next(1), hangUp(1)],
  'invoking a': [invoke('a'), next(1)],
  initFailed: [invoke('a'), initError()],
  closed: [invoke('a'), close],
};

const EVENTS: Record<string, ApiEvent> = {
  next: next(2),
  'invoke b': invoke('b'),
  'response a': answer('a', 'response'),
  'error a': answer('a', 'error'),
  'response x': answer('x', 'response'),
  'response a, not JSON': answer('a', 'response', 'hello'),
  'response a, too large': answer('a', 'response', '', true),
  'init error': initError(),
  'init error, not JSON': initError('hello'),
  'init error, too large': initError('', true),
  'unknown path': { kind: 'refuse', at: 0, request: 2, status: 404, errorType: 'NotFound', reason: 'GET /x: not a Runtime API path (404)' },
  'hang up 1': hangUp(1),
  close,
};

// phase × event → the phase after | the reply (a status, wait, handout, or -) | the records | the outcomes that settle
const TABLE = `
init                  | next                  | ready       | wait    | next             |
init                  | invoke b              | init        | -       |                  |
init                  | response a            | init        | 400     | rejected         |
init                  | error a               | init        | 400     | rejected         |
init                  | response x            | init        | 400     | rejected         |
init                  | response a, not JSON  | init        | 400     | rejected         |
init                  | response a, too large | init        | 413     | rejected         |
init                  | init error            | initFailed  | 202     | initError        |
init                  | init error, not JSON  | init        | 400     | rejected         |
init                  | init error, too large | init        | 413     | rejected         |
init                  | unknown path          | init        | 404     | rejected         |
init                  | hang up 1             | init        | -       |                  |
init                  | close                 | closed      | -       |                  |
init, a queued        | next                  | invoking    | handout | next handout     |
init, a queued        | invoke b              | init        | -       |                  |
init, a queued        | response a            | init        | 400     | rejected         | rejected
init, a queued        | error a               | init        | 400     | rejected         | rejected
init, a queued        | response x            | init        | 400     | rejected         | rejected
init, a queued        | response a, not JSON  | init        | 400     | rejected         | rejected
init, a queued        | response a, too large | init        | 413     | rejected         | rejected
init, a queued        | init error            | initFailed  | 202     | initError        | initError
init, a queued        | init error, not JSON  | init        | 400     | rejected         | rejected
init, a queued        | init error, too large | init        | 413     | rejected         | rejected
init, a queued        | unknown path          | init        | 404     | rejected         | rejected
init, a queued        | hang up 1             | init        | -       |                  |
init, a queued        | close                 | closed      | -       |                  | closed
ready, next waiting   | next                  | ready       | 403     | next rejected    |
ready, next waiting   | invoke b              | invoking    | handout | handout          |
ready, next waiting   | response a            | ready       | 400     | rejected         |
ready, next waiting   | error a               | ready       | 400     | rejected         |
ready, next waiting   | response x            | ready       | 400     | rejected         |
ready, next waiting   | response a, not JSON  | ready       | 400     | rejected         |
ready, next waiting   | response a, too large | ready       | 413     | rejected         |
ready, next waiting   | init error            | ready       | 403     | rejected         |
ready, next waiting   | init error, not JSON  | ready       | 403     | rejected         |
ready, next waiting   | init error, too large | ready       | 413     | rejected         |
ready, next waiting   | unknown path          | ready       | 404     | rejected         |
ready, next waiting   | hang up 1             | ready       | -       |                  |
ready, next waiting   | close                 | closed      | -       |                  |
ready, nobody waiting | next                  | ready       | wait    | next             |
ready, nobody waiting | invoke b              | ready       | -       |                  |
ready, nobody waiting | response a            | ready       | 400     | rejected         |
ready, nobody waiting | init error            | ready       | 403     | rejected         |
ready, nobody waiting | hang up 1             | ready       | -       |                  |
ready, nobody waiting | close                 | closed      | -       |                  |
invoking a            | next                  | invoking    | 403     | next rejected    | rejected
invoking a            | invoke b              | invoking    | -       |                  |
invoking a            | response a            | ready       | 202     | response         | response
invoking a            | error a               | ready       | 202     | invocationError  | invocationError
invoking a            | response x            | invoking    | 400     | rejected         | rejected
invoking a            | response a, not JSON  | invoking    | 400     | rejected         | rejected
invoking a            | response a, too large | invoking    | 413     | rejected         | rejected
invoking a            | init error            | invoking    | 403     | rejected         | rejected
invoking a            | init error, not JSON  | invoking    | 403     | rejected         | rejected
invoking a            | init error, too large | invoking    | 413     | rejected         | rejected
invoking a            | unknown path          | invoking    | 404     | rejected         | rejected
invoking a            | hang up 1             | invoking    | -       |                  |
invoking a            | close                 | closed      | -       |                  | closed
initFailed            | next                  | initFailed  | 403     | next rejected    |
initFailed            | invoke b              | initFailed  | -       |                  | initError
initFailed            | response a            | initFailed  | 400     | rejected         |
initFailed            | init error            | initFailed  | 403     | rejected         |
initFailed            | init error, too large | initFailed  | 413     | rejected         |
initFailed            | unknown path          | initFailed  | 404     | rejected         |
initFailed            | close                 | closed      | -       |                  |
closed                | next                  | closed      | 410     |                  |
closed                | invoke b              | closed      | -       |                  | closed
closed                | response a            | closed      | 410     |                  |
closed                | init error            | closed      | 410     |                  |
closed                | unknown path          | closed      | 410     |                  |
closed                | hang up 1             | closed      | -       |                  |
closed                | close                 | closed      | -       |                  |
`;

const words = (cell: string) => cell.split(' ').filter(Boolean);

describe('the Runtime API state machine, phase × event', () => {
  for (const line of TABLE.trim().split('\n')) {
    const [phase, eventName, after, reply, records, settles] = line.split('|').map((cell) => cell.trim()) as [string, ...string[]];
    it(`${phase} + ${eventName} → ${after}, ${reply}, records [${records}], settles [${settles}]`, () => {
      const given = PHASES[phase];
      const event = EVENTS[eventName!];
      assert.ok(given && event, `${phase} / ${eventName} are in the table's rows`);
      const result = run([...given, event]);
      assert.equal(result.state.phase, after);
      const got = result.reply === undefined ? '-' : result.reply.kind === 'json' ? String(result.reply.status) : result.reply.kind;
      assert.equal(got, reply);
      assert.deepEqual(
        result.records.map((r) => r.kind),
        words(records!),
      );
      assert.deepEqual(
        result.settles.map((s) => s.kind),
        words(settles!),
      );
    });
  }

  it('the table has every event in every phase where it says something new', () => {
    const rows = new Set(
      TABLE.trim()
        .split('\n')
        .map((line) =>
          line
            .split('|')
            .slice(0, 2)
            .map((c) => c.trim())
            .join(' + '),
        ),
    );
    for (const phase of ['init', 'init, a queued', 'ready, next waiting', 'invoking a']) {
      for (const event of Object.keys(EVENTS)) assert.ok(rows.has(`${phase} + ${event}`), `${phase} + ${event}`);
    }
  });
});

describe('the Runtime API state machine, in detail', () => {
  it('a hand-out goes to the waiting next, whose request number the reply names, with the event as queued', () => {
    const result = run([next(7), invoke('a')]);
    assert.deepEqual(result.reply, { to: 7, kind: 'handout', requestId: 'a', payload: '{"id":"a"}' });
    assert.deepEqual(result.state.inFlight, { requestId: 'a', handedOutAt: 2 });
    assert.equal(result.state.parked, undefined);
  });

  it('queued events are handed out in order, each to the next that asks', () => {
    const first = run([invoke('a'), invoke('b'), next(1)]);
    assert.equal(first.reply?.kind === 'handout' && first.reply.requestId, 'a');
    const second = run([answer('a', 'response'), next(3)], first.state);
    assert.equal(second.reply?.kind === 'handout' && second.reply.requestId, 'b');
    assert.deepEqual(second.state.queue, []);
  });

  it('INIT ends at the first next that is accepted, and only then', () => {
    assert.equal(run([next(1)]).state.initEnd, 1);
    assert.equal(run([next(1), next(2)]).state.initEnd, 1, 'a refused next does not move it');
    assert.equal(run([invoke('a'), initError(), next(1)]).state.initEnd, undefined, 'a next after an init error does not end INIT');
  });

  it('an outcome says when its event was handed out; a response records its bytes', () => {
    const result = run([invoke('a'), next(1), answer('a', 'response', '{"ok":"é"}')]);
    assert.deepEqual(result.settles, [{ requestId: 'a', handedOutAt: 2, kind: 'response', at: 3, body: { ok: 'é' } }]);
    assert.deepEqual(result.records, [{ kind: 'response', at: 3, requestId: 'a', body: { ok: 'é' }, bytes: 11 }]);
  });

  it('a rejected answer fails the event, which stays with the child: the proper answer is recorded, and settles nothing twice', () => {
    const rejected = run([invoke('a'), next(1), answer('a', 'response', 'hello')]);
    assert.equal(rejected.settles[0]?.kind === 'rejected' && rejected.settles[0].reason, 'POST answer: body is not JSON (400)');
    assert.equal(rejected.state.inFlight?.requestId, 'a');
    const proper = run([answer('a', 'response')], rejected.state);
    assert.equal(proper.reply?.kind === 'json' && proper.reply.status, 202);
    assert.deepEqual(
      proper.records.map((r) => r.kind),
      ['response'],
    );
    assert.deepEqual(proper.settles, []);
  });

  it('an init error fails later events the same way, with its type and error', () => {
    const failed = run([initError('{"errorMessage":"cannot load"}'), invoke('b')]);
    assert.deepEqual(failed.settles, [
      { requestId: 'b', kind: 'initError', at: 2, errorType: 'Runtime.Something', error: { errorMessage: 'cannot load' } },
    ]);
  });

  it('a refusal answers with the JSON error AWS gives, and names the request in the reason', () => {
    const result = run([invoke('a'), next(1), next(2)]);
    assert.deepEqual(result.reply, {
      to: 2,
      kind: 'json',
      status: 403,
      body: { errorMessage: 'GET next before answering a (403)', errorType: 'InvalidStateTransition' },
    });
    const large = run([initError('', true)]);
    assert.equal(large.records[0]?.kind === 'rejected' && large.records[0].reason, `POST init: body over ${MAX_PAYLOAD_BYTES} bytes (413)`);
  });

  it('a hang-up of another request leaves the waiting next parked', () => {
    assert.equal(run([next(1), hangUp(2)]).state.parked, 1);
    assert.equal(run([next(1), hangUp(1)]).state.parked, undefined);
  });

  it('never changes the state it is given', () => {
    const before = run([invoke('a'), invoke('b'), next(1)]).state;
    const copy = structuredClone(before);
    for (const event of Object.values(EVENTS)) step(before, event);
    assert.deepEqual(before, copy);
  });
});

describe('routing a request', () => {
  const V = '/2018-06-01/runtime';
  const table: [string, string, ReturnType<typeof route>][] = [
    ['GET', `${V}/invocation/next`, { kind: 'next' }],
    ['POST', `${V}/init/error`, { kind: 'initError' }],
    ['POST', `${V}/invocation/a%2Fb/response`, { kind: 'answer', requestId: 'a/b', outcome: 'response' }],
    ['POST', `${V}/invocation/abc/error`, { kind: 'answer', requestId: 'abc', outcome: 'error' }],
    [
      'POST',
      `${V}/invocation/next`,
      { kind: 'refuse', status: 405, errorType: 'MethodNotAllowed', reason: `POST ${V}/invocation/next: wrong method (405)` },
    ],
    [
      'GET',
      `${V}/init/error`,
      { kind: 'refuse', status: 405, errorType: 'MethodNotAllowed', reason: `GET ${V}/init/error: wrong method (405)` },
    ],
    [
      'PUT',
      `${V}/invocation/a/response`,
      { kind: 'refuse', status: 405, errorType: 'MethodNotAllowed', reason: `PUT ${V}/invocation/a/response: wrong method (405)` },
    ],
    ['GET', '/nope', { kind: 'refuse', status: 404, errorType: 'NotFound', reason: 'GET /nope: not a Runtime API path (404)' }],
    [
      'POST',
      `${V}/invocation/a/other`,
      { kind: 'refuse', status: 404, errorType: 'NotFound', reason: `POST ${V}/invocation/a/other: not a Runtime API path (404)` },
    ],
  ];
  for (const [method, path, expected] of table) {
    it(`${method} ${path} → ${expected.kind}${expected.kind === 'refuse' ? ` ${expected.status}` : ''}`, () => {
      assert.deepEqual(route(method, path), expected);
    });
  }

  it('names a request by at most 120 characters of its path', () => {
    const got = route('GET', `/${'x'.repeat(300)}`);
    assert.equal(got.kind === 'refuse' && got.reason, `GET /${'x'.repeat(119)}: not a Runtime API path (404)`);
  });
});
