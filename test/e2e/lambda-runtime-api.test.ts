/**
 * The runner's Lambda Runtime API over a socket: the HTTP adapter as a runtime sees it (long-polled
 * `next`, the headers, the error type header, a body over the limit, the JSON a refusal gets, close
 * cutting off a waiting request; the transitions themselves are test/unit/runtime-api-state.test.ts's
 * table), the Lambda environment, and real children:
 * the Lambda probe's bootstrap failing during INIT, a handler that throws or crashes, a callback
 * handler, a child that never asks for an event, a broken client, and SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { routeEvent } from '../../generators/lambda-event.ts';
import { readLambdaLine } from '../../generators/lambda-probe.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { lambdaEnvironment } from '../../metrics/measure/runtime-api/environment.ts';
import { startRuntimeApi, type RuntimeApi } from '../../metrics/measure/runtime-api/server.ts';
import { MAX_PAYLOAD_BYTES } from '../../metrics/measure/runtime-api/state.ts';
import { fixture, processesWith, waitFor } from '../support/helpers.ts';
import { probedFixture, runLambda } from '../support/lambda-helpers.ts';

const V = '/2018-06-01/runtime';

/** The JSON body the Runtime API answers a request it refuses with. */
interface ApiError {
  errorType: string;
  errorMessage: string;
}

async function call(api: RuntimeApi, method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`http://${api.address}${path}`, { method, body, headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function withApi(test: (api: RuntimeApi) => Promise<void>): Promise<void> {
  const api = await startRuntimeApi();
  try {
    await test(api);
  } finally {
    await api.close();
  }
}

describe('the Runtime API, as a runtime sees it', () => {
  it('binds 127.0.0.1 only', () =>
    withApi((api) => {
      assert.match(api.address, /^127\.0\.0\.1:\d+$/);
      return Promise.resolve();
    }));

  it('holds `next` until an event is queued, then hands it out with the four headers; a response is accepted', () =>
    withApi(async (api) => {
      let answered = false;
      const next = call(api, 'GET', `${V}/invocation/next`).then((got) => {
        answered = true;
        return got;
      });
      // the request reaches the server in its own time (a fixed sleep failed at load 18)
      assert.ok(await waitFor(() => api.initEnd !== undefined, 10_000, 10), 'the first next ends INIT even while it waits');
      assert.equal(answered, false, 'next is held while no event is queued');
      const event = routeEvent(4, { name: 'ada' });
      const invocation = api.invoke(event);
      const got = await next;
      assert.equal(got.status, 200);
      assert.deepEqual(JSON.parse(got.text), event);
      assert.equal(got.headers.get('lambda-runtime-aws-request-id'), invocation.requestId);
      assert.ok(Number(got.headers.get('lambda-runtime-deadline-ms')) > Date.now());
      assert.match(got.headers.get('lambda-runtime-invoked-function-arn') ?? '', /^arn:aws:lambda:us-east-1:\d{12}:function:coldstart$/);
      assert.match(got.headers.get('lambda-runtime-trace-id') ?? '', /^Root=1-[0-9a-f]{8}-[0-9a-f]{24};Parent=[0-9a-f]{16};Sampled=0$/);

      const posted = await call(api, 'POST', `${V}/invocation/${invocation.requestId}/response`, '{"statusCode":200,"body":"{}"}');
      assert.equal(posted.status, 202);
      assert.deepEqual(JSON.parse(posted.text), { status: 'OK' });
      const outcome = await invocation.outcome;
      assert.equal(outcome.kind, 'response');
      assert.deepEqual(outcome.body, { statusCode: 200, body: '{}' });
      assert.ok(outcome.handedOutAt !== undefined && api.initEnd! <= outcome.handedOutAt && outcome.handedOutAt <= outcome.at);
      assert.deepEqual(
        api.records.map((r) => r.kind),
        ['next', 'handout', 'response'],
      );
      assert.deepEqual(api.failures(), []);
    }));

  it('serves queued events in order; an invocation error is recorded with its type', () =>
    withApi(async (api) => {
      const first = api.invoke({ n: 1 });
      const second = api.invoke({ n: 2 });
      const a = await call(api, 'GET', `${V}/invocation/next`);
      assert.deepEqual(JSON.parse(a.text), { n: 1 });
      const error = JSON.stringify({ errorType: 'TypeError', errorMessage: 'boom', stackTrace: [] });
      const type = { 'lambda-runtime-function-error-type': 'Runtime.HandlerError' };
      const posted = await call(api, 'POST', `${V}/invocation/${first.requestId}/error`, error, type);
      assert.equal(posted.status, 202);
      const b = await call(api, 'GET', `${V}/invocation/next`);
      assert.deepEqual(JSON.parse(b.text), { n: 2 });
      assert.equal(b.headers.get('lambda-runtime-aws-request-id'), second.requestId);
      const outcome = await first.outcome;
      assert.equal(outcome.kind, 'invocationError');
      assert.equal(outcome.errorType, 'Runtime.HandlerError');
      assert.deepEqual(outcome.error, JSON.parse(error));
    }));

  type Garbage = { name: string; status: number; errorType: string; reason: RegExp; send: (api: RuntimeApi) => ReturnType<typeof call> };
  const garbage: Garbage[] = [
    {
      name: 'an unknown path',
      status: 404,
      errorType: 'NotFound',
      reason: /GET \/nope: not a Runtime API path/,
      send: (api) => call(api, 'GET', '/nope'),
    },
    {
      name: 'a wrong method',
      status: 405,
      errorType: 'MethodNotAllowed',
      reason: /POST .*\/next: wrong method/,
      send: (api) => call(api, 'POST', `${V}/invocation/next`, '{}'),
    },
  ];
  for (const g of garbage) {
    it(`garbage: ${g.name} gets ${g.status} ${g.errorType}, is recorded, and fails the queued events`, () =>
      withApi(async (api) => {
        const queued = api.invoke({});
        const answer = await g.send(api);
        assert.equal(answer.status, g.status);
        assert.equal((JSON.parse(answer.text) as ApiError).errorType, g.errorType);
        assert.equal(api.failures().length, 1);
        assert.match(api.failures()[0]!, g.reason);
        const outcome = await queued.outcome;
        assert.equal(outcome.kind, 'rejected');
        assert.match(outcome.reason, g.reason);
      }));
  }

  it('a body over 6 MB gets 413 and fails the event, which stays open: the proper answer is still accepted', () =>
    withApi(async (api) => {
      const invocation = api.invoke({});
      assert.equal((await call(api, 'GET', `${V}/invocation/next`)).status, 200);
      const answer = await call(api, 'POST', `${V}/invocation/${invocation.requestId}/response`, 'x'.repeat(MAX_PAYLOAD_BYTES + 1));
      assert.equal(answer.status, 413);
      assert.equal((JSON.parse(answer.text) as ApiError).errorType, 'RequestEntityTooLarge');
      const outcome = await invocation.outcome;
      assert.equal(outcome.kind, 'rejected');
      assert.match(outcome.reason, /body over \d+ bytes/);
      assert.equal((await call(api, 'POST', `${V}/invocation/${invocation.requestId}/response`, '{}')).status, 202);
      assert.equal(api.failures().length, 1);
    }));

  it('close() cuts off a waiting next; later events settle as closed at once', async () => {
    const api = await startRuntimeApi();
    const next = fetch(`http://${api.address}${V}/invocation/next`).then(
      (response) => `answered ${response.status}`,
      () => 'cut off',
    );
    assert.ok(await waitFor(() => api.initEnd !== undefined, 5000));
    await api.close();
    assert.equal(await next, 'cut off');
    assert.equal((await api.invoke({}).outcome).kind, 'closed');
  });

  it('close() settles an event handed out but not answered as closed, with when it was handed out', async () => {
    const api = await startRuntimeApi();
    const invocation = api.invoke({});
    assert.equal((await call(api, 'GET', `${V}/invocation/next`)).status, 200);
    await api.close();
    const outcome = await invocation.outcome;
    assert.equal(outcome.kind, 'closed');
    assert.ok(outcome.handedOutAt !== undefined && outcome.handedOutAt <= outcome.at);
  });
});

describe('the Lambda environment of a child', () => {
  it('has the documented variables, the Runtime API address, and no credentials', () => {
    const env = lambdaEnvironment('127.0.0.1:9001', { functionName: 'f', memoryMb: 512, handler: 'index.handler', taskRoot: '/task' });
    assert.match(env.AWS_LAMBDA_LOG_STREAM_NAME!, /^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/);
    assert.deepEqual(
      { ...env, AWS_LAMBDA_LOG_STREAM_NAME: undefined },
      {
        AWS_LAMBDA_RUNTIME_API: '127.0.0.1:9001',
        AWS_LAMBDA_FUNCTION_NAME: 'f',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/f',
        AWS_LAMBDA_LOG_STREAM_NAME: undefined,
        AWS_REGION: 'us-east-1',
        AWS_DEFAULT_REGION: 'us-east-1',
        _HANDLER: 'index.handler',
        LAMBDA_TASK_ROOT: '/task',
        LANG: 'en_US.UTF-8',
        TZ: ':UTC',
      },
    );
    const options = { functionName: 'f', memoryMb: 1, handler: 'h', taskRoot: 't', executionEnv: 'AWS_Lambda_nodejs20.x' };
    const withRuntime = lambdaEnvironment('a:1', options);
    assert.equal(withRuntime.AWS_EXECUTION_ENV, 'AWS_Lambda_nodejs20.x');
  });
});

describe('children driven by the Runtime API', () => {
  it('a module that throws while it loads: init/error recorded, no event handed out, exit 1', async () => {
    const { file, cleanup } = probedFixture('lambda-init-throws.js');
    try {
      const run = await runLambda(file, { events: [routeEvent(0, { name: 'x' })], timeoutMs: 20_000, exitWithinMs: 5000 });
      const [outcome] = run.outcomes;
      assert.equal(outcome?.kind, 'initError', JSON.stringify(outcome));
      assert.equal(outcome.errorType, 'Runtime.InitError');
      const { errorType, errorMessage, stackTrace } = outcome.error as { errorType: string; errorMessage: string; stackTrace: string[] };
      assert.deepEqual([errorType, errorMessage], ['Error', 'fixture failed while loading']);
      assert.ok(Array.isArray(stackTrace) && stackTrace.some((line) => line.includes('index.js')), stackTrace.join('\n'));
      assert.equal(outcome.handedOutAt, undefined);
      assert.equal(run.api.initEnd, undefined, 'INIT never ended');
      assert.deepEqual(run.exit, { code: 1, signal: null });
      assert.match(run.stderr, /fixture failed while loading/);
      assert.doesNotMatch(run.stdout, /COLDSTART/);
    } finally {
      cleanup();
    }
  });

  it('a module without a handler export: init/error Runtime.NoSuchHandler, exit 1', async () => {
    const { file, cleanup } = probedFixture('lambda-no-handler.js');
    try {
      const run = await runLambda(file, { events: [{}], timeoutMs: 20_000, exitWithinMs: 5000 });
      const [outcome] = run.outcomes;
      assert.equal(outcome?.kind, 'initError');
      assert.equal(outcome.errorType, 'Runtime.NoSuchHandler');
      assert.deepEqual(run.exit, { code: 1, signal: null });
    } finally {
      cleanup();
    }
  });

  it('a handler that rejects: each event gets …/error with the error, the bootstrap goes on, no firstResponse line', async () => {
    const { file, cleanup } = probedFixture('lambda-handler-throws.js');
    try {
      const run = await runLambda(file, { events: [{ n: 1 }, { n: 2 }], timeoutMs: 20_000 });
      for (const outcome of run.outcomes) {
        assert.equal(outcome.kind, 'invocationError', JSON.stringify(outcome));
        assert.equal(outcome.errorType, 'Runtime.HandlerError');
        const error = outcome.error as { errorType: string; errorMessage: string; stackTrace: string[] };
        assert.equal(error.errorType, 'TypeError');
        assert.equal(error.errorMessage, 'fixture handler failed');
        assert.ok(Array.isArray(error.stackTrace) && error.stackTrace.length > 0);
      }
      const lines = run.stdout.split('\n').filter((l) => l.startsWith('COLDSTART'));
      assert.equal(lines.length, 1, 'the ready line only');
      assert.equal((readLambdaLine(lines[0]!) as { target?: string }).target, 'lambda');
    } finally {
      cleanup();
    }
  });

  it('a handler that crashes the process from a callback: …/error posted, exit 1', async () => {
    const { file, cleanup } = probedFixture('lambda-crash.js');
    try {
      const run = await runLambda(file, { events: [{}], timeoutMs: 20_000, exitWithinMs: 5000 });
      const [outcome] = run.outcomes;
      assert.equal(outcome?.kind, 'invocationError', JSON.stringify(outcome));
      assert.match(JSON.stringify(outcome.error), /fixture crashed in a callback/);
      assert.deepEqual(run.exit, { code: 1, signal: null });
    } finally {
      cleanup();
    }
  });

  it('a callback-style handler gets the context from the headers and its event', async () => {
    const { file, cleanup } = probedFixture('lambda-callback.js');
    try {
      const event = routeEvent(1, { name: 'ada' }, { requestId: 'fixed', timeEpoch: 0 });
      const run = await runLambda(file, { events: [event], timeoutMs: 20_000 });
      const [outcome] = run.outcomes;
      assert.equal(outcome?.kind, 'response', `${JSON.stringify(outcome)} ${run.stderr}`);
      const seen = JSON.parse((outcome.body as { body: string }).body) as Record<string, unknown>;
      assert.equal(seen.requestId, outcome.requestId);
      assert.match(String(seen.arn), /:function:coldstart-test$/);
      assert.equal(seen.functionName, 'coldstart-test');
      assert.equal(seen.memory, '1024');
      assert.ok(typeof seen.remaining === 'number' && seen.remaining > 0);
      assert.match(String(seen.trace), /^Root=1-/);
      assert.deepEqual(seen.event, event);
    } finally {
      cleanup();
    }
  });

  it('a child that never asks for next: the test times out, kills it, and nothing is left behind', async () => {
    const marker = `coldstart-test-lambda-never-next-${process.pid}`;
    const run = await runLambda(fixture('lambda-never-next.js'), { events: [{}], timeoutMs: 800, args: [marker] });
    assert.deepEqual(run.outcomes, [{ kind: 'timeout' }]);
    assert.equal(run.api.initEnd, undefined);
    assert.deepEqual(run.api.records, []);
    assert.equal(run.exit.signal, 'SIGKILL');
    assert.deepEqual(processesWith(marker), []);
  });

  for (const [mode, reason] of [
    ['not-json', /body is not JSON \(400\)/],
    ['wrong-id', /unknown or already answered request id \(400\)/],
  ] as const) {
    it(`a broken client (${mode}): the event fails with the reason, the client got a 400`, async () => {
      const run = await runLambda(fixture('lambda-garbage.js'), { events: [{}], timeoutMs: 20_000, args: [mode], exitWithinMs: 5000 });
      const [outcome] = run.outcomes;
      assert.equal(outcome?.kind, 'rejected', JSON.stringify(outcome));
      assert.match(outcome.reason, reason);
      assert.match(run.api.failures().join('\n'), reason);
      assert.match(run.stdout, /^400 \{"errorMessage":/, 'the client was told 400 with a JSON error');
    });
  }

  it('SIGTERM ends a waiting bootstrap with exit 0', async () => {
    const { file, cleanup } = probedFixture('lambda-callback.js');
    const api = await startRuntimeApi();
    const lambda = lambdaEnvironment(api.address, { functionName: 'f', memoryMb: 128, handler: 'index.handler', taskRoot: '.' });
    const env = childEnvironment(process.env, lambda).env;
    const child = spawn(process.execPath, [file], { env, stdio: 'ignore' });
    const exited = new Promise<[number | null, string | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])));
    try {
      assert.ok(await waitFor(() => api.initEnd !== undefined, 20_000), 'the bootstrap asked for an event');
      child.kill('SIGTERM');
      assert.deepEqual(await exited, [0, null]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await api.close();
      cleanup();
    }
  });
});
