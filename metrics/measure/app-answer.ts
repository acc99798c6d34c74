/**
 * How the user's own app is asked and judged (`measure`): a free port for it, the HTTP request the
 * user described, and the check of an answer against the expected status and body pattern. Both
 * targets use it for app cells; generated cells keep their route contract.
 */
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { readLambdaResult } from '../../generators/lambda-event.ts';
import { ANSWERS_DIFFERENTLY, bodyMatches, type AppExpectation, type AppRequest, type AppSpec } from '../core/app.ts';
import { oneLine } from './text.ts';
import { SampleFailure } from './targets/target.ts';

/** A free TCP port on 127.0.0.1 (the kernel's pick, released at once; the app is told it in PORT). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = address !== null && typeof address === 'object' ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Where the runner connects to a server that listens on `address`: loopback for the wildcard addresses. */
export function connectHost(address: string | undefined): string {
  if (address === undefined || address === '' || address === '::' || address === '0.0.0.0') return '127.0.0.1';
  return address;
}

export interface HttpAnswer {
  status: number;
  body: string;
  /** runner clock (performance.now) when the request was sent */
  sentAt: number;
  /** runner clock (performance.now) when the whole answer had arrived */
  at: number;
}

/** The most of an answer's body the runner reads: a longer one is a failed sample, never held in memory. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * One HTTP request on a fresh connection, bounded in time and size: the whole exchange (connect,
 * headers, every byte of the body) must end within `timeoutMs`, whatever the server sends or how
 * slowly, and a body beyond MAX_ANSWER_BYTES ends it at that byte. Either is a SampleFailure naming
 * the request, as is a network failure.
 */
export function httpRequest(
  target: { host: string; port: number },
  request: { method: string; path: string; body?: string; contentType?: string },
  timeoutMs: number,
  maxBytes = MAX_ANSWER_BYTES,
): Promise<HttpAnswer> {
  const what = `${request.method} ${request.path}`;
  const headers: Record<string, string | number> = { connection: 'close' };
  if (request.body !== undefined) {
    headers['content-type'] = request.contentType ?? 'application/json';
    headers['content-length'] = Buffer.byteLength(request.body);
  }
  return new Promise((resolve, reject) => {
    const sentAt = performance.now();
    const fail = (reason: string) => outgoing.destroy(new SampleFailure(`${what}: ${reason}`));
    const outgoing = http.request(
      { host: target.host, port: target.port, path: request.path, method: request.method, agent: false, headers },
      (response) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > maxBytes) fail(`the answer's body passed ${maxBytes} bytes: not read further`);
          else chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(deadline);
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), sentAt, at: performance.now() });
        });
        response.on('error', (error) => reject(error instanceof SampleFailure ? error : new SampleFailure(`${what}: ${error.message}`)));
      },
    );
    // the whole exchange, not the socket's idle time: a body that never ends is ended here
    const deadline = setTimeout(() => fail(`no whole answer in time (${Math.round(timeoutMs)} ms)`), Math.max(1, timeoutMs));
    outgoing.on('close', () => clearTimeout(deadline));
    outgoing.on('error', (error) => {
      clearTimeout(deadline);
      reject(error instanceof SampleFailure ? error : new SampleFailure(`${what}: ${error.message}`));
    });
    outgoing.end(request.body);
  });
}

/** What a server's 404 on its first request says: the app has no such route, and how to name one it has. */
export const NOT_FOUND_HINT = "the app has no such route: name one it answers with --request, e.g. --request 'GET /health'";

/** Why an answer is not the expected one, or undefined when it is; `notFound`: what a 404 not expected adds. */
export function answerProblem(what: string, expect: AppExpectation, status: number, body: string, notFound?: string): string | undefined {
  if (status !== expect.status) {
    const hint = status === 404 && notFound ? ` (${notFound})` : '';
    return `${what} answered ${status}, expected ${expect.status}${hint}: ${oneLine(body, 160)}`;
  }
  if (expect.bodyPattern !== undefined && !bodyMatches(expect.bodyPattern, body)) {
    return `${what} answered ${status} but its body does not match /${expect.bodyPattern}/: ${oneLine(body, 160)}`;
  }
  return undefined;
}

/**
 * Why a build answers otherwise than the app's plain build, or undefined. The plain build's first
 * answer is the reference (recorded here); a bundle answered before it is not checked (the plain
 * build comes first in every round of an interleaved or sequential run).
 */
export function sameAnswerProblem(app: Pick<AppSpec, 'sameAs'>, status: number, body: string): string | undefined {
  const same = app.sameAs;
  if (!same) return undefined;
  const reference = same.reference.answer;
  if (same.base) {
    same.reference.answer ??= { status, body };
    return undefined;
  }
  if (!reference) return undefined;
  if (status !== reference.status) return `${ANSWERS_DIFFERENTLY}: status ${status}, the plain build's ${reference.status}`;
  if (body !== reference.body) {
    return `${ANSWERS_DIFFERENTLY}: body ${oneLine(body, 120)}, the plain build's ${oneLine(reference.body, 120)}`;
  }
  return undefined;
}

/**
 * A Lambda handler's result as the app's answer: an API Gateway / Function URL shaped result (an
 * object with statusCode) gives its status and body text; any other result counts as status 200
 * with its JSON as the body (a handler that is not behind HTTP).
 */
export function lambdaAnswer(result: unknown): { status: number; body: string } {
  if (result !== null && typeof result === 'object' && 'statusCode' in result) {
    const read = readLambdaResult(result);
    if (!read.ok) throw new SampleFailure(`the handler's result is not an HTTP answer: ${read.reason}`);
    const { body, isBase64Encoded } = result as { body?: string; isBase64Encoded?: unknown };
    const text = body === undefined ? '' : isBase64Encoded === true ? Buffer.from(body, 'base64').toString('utf8') : body;
    return { status: read.status, body: text };
  }
  return { status: 200, body: result === undefined ? '' : JSON.stringify(result) };
}

/** The describable request of a server app (`GET /`, `POST /orders`). */
export function requestText(request: AppRequest | undefined): string {
  return request ? `${request.method} ${request.path}` : 'the request';
}
