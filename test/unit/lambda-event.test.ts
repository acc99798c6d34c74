/**
 * The Lambda side of the contract as data: the HTTP API (payload 2.0) event, reading a handler's
 * result, and reading the probe's COLDSTART lines.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiGatewayTime, httpApiEvent, readLambdaResult, routeEvent } from '../../generators/lambda-event.ts';
import { readLambdaLine } from '../../generators/lambda-probe.ts';

describe('the HTTP API event', () => {
  it('is a payload 2.0 POST of the JSON body to the route, the same apart from the request id and time', () => {
    const a = routeEvent(7, { name: 'ada' });
    const b = routeEvent(7, { name: 'ada' });
    assert.notEqual(a.requestContext.requestId, b.requestContext.requestId);
    const pinned = { requestId: 'r', timeEpoch: 1_583_348_638_390 };
    assert.deepEqual(routeEvent(7, { name: 'ada' }, pinned), routeEvent(7, { name: 'ada' }, pinned));
    const event = routeEvent(7, { name: 'ada' }, pinned);
    assert.equal(event.version, '2.0');
    assert.equal(event.rawPath, '/route-7');
    assert.equal(event.requestContext.http.method, 'POST');
    assert.equal(event.requestContext.http.path, '/route-7');
    assert.equal(event.requestContext.time, '04/Mar/2020:19:03:58 +0000');
    assert.equal(event.headers['content-type'], 'application/json');
    assert.equal(event.headers['content-length'], String(event.body?.length));
    assert.deepEqual(JSON.parse(event.body ?? ''), { name: 'ada' });
    assert.equal(event.isBase64Encoded, false);
  });

  it('carries any JSON body as text, never interpolated', () => {
    const body = { 'route-3': ['"; process.exit(1); //'] };
    assert.deepEqual(JSON.parse(httpApiEvent('/route-3', body).body ?? ''), body);
  });

  it('formats the request time as API Gateway does (UTC)', () => {
    assert.equal(apiGatewayTime(Date.UTC(2026, 0, 2, 3, 4, 5)), '02/Jan/2026:03:04:05 +0000');
  });
});

describe('reading a handler result', () => {
  it('reads statusCode and a JSON body, plain or base64', () => {
    const answer = readLambdaResult({ statusCode: 200, body: '{"hello":"x","route":1}' });
    assert.deepEqual(answer, { ok: true, status: 200, body: { hello: 'x', route: 1 } });
    const base64 = Buffer.from('{"a":1}').toString('base64');
    assert.deepEqual(readLambdaResult({ statusCode: 201, body: base64, isBase64Encoded: true }), { ok: true, status: 201, body: { a: 1 } });
    assert.deepEqual(readLambdaResult({ statusCode: 204 }), { ok: true, status: 204, body: '' });
    assert.deepEqual(readLambdaResult({ statusCode: 500, body: 'oops' }), { ok: true, status: 500, body: 'oops' });
  });

  it('refuses what API Gateway could not map', () => {
    assert.equal(readLambdaResult(null).ok, false);
    assert.equal(readLambdaResult('text').ok, false);
    assert.equal(readLambdaResult({ statusCode: '200', body: '{}' }).ok, false);
    assert.equal(readLambdaResult({ statusCode: 200, body: { a: 1 } }).ok, false);
  });
});

describe('reading the COLDSTART lines of a Lambda file', () => {
  const ready = {
    v: 2,
    target: 'lambda',
    timeOrigin: 1,
    marks: { start: 1, imported: 2, startup: 3 },
    cpu: { start: 1, imported: 2, startup: 3 },
    rss: 1,
    heapUsed: 1,
    runtime: 'node v20.20.2',
    pid: 1,
  };
  it('reads the ready and after lines, ignores other lines', () => {
    assert.deepEqual(readLambdaLine(`COLDSTART ${JSON.stringify(ready)}`), ready);
    const after = readLambdaLine('COLDSTART {"v":2,"after":"firstResponse","cpu":5,"rss":6}');
    assert.deepEqual(after, { v: 2, after: 'firstResponse', cpu: 5, rss: 6 });
    assert.equal(readLambdaLine('a banner'), undefined);
  });

  it('throws, saying what is wrong, on a malformed line', () => {
    assert.throws(() => readLambdaLine('COLDSTART {oops'), /not JSON/);
    assert.throws(() => readLambdaLine(`COLDSTART ${JSON.stringify({ ...ready, v: 1 })}`), /not a v2 line/);
    assert.throws(() => readLambdaLine(`COLDSTART ${JSON.stringify({ ...ready, marks: { start: 1 } })}`), /malformed lambda ready line/);
    assert.throws(() => readLambdaLine(`COLDSTART ${JSON.stringify({ ...ready, target: 'server' })}`), /malformed lambda ready line/);
    assert.throws(() => readLambdaLine('COLDSTART {"v":2,"after":"firstResponse","cpu":"5","rss":6}'), /after line/);
  });
});
