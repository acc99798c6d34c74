/**
 * The Lambda side of the route contract: the event a Lambda file is invoked with and how its result
 * is read. The event is what an API Gateway HTTP API sends a Lambda proxy integration for
 * `POST /route-<i>` with a JSON body, in the payload format the framework's adapter is deployed with
 * (each Lambda generator's `eventFormat`): 2.0 by default (`rawPath`, `requestContext.http`), or 1.0,
 * the REST API's shape that an HTTP API also sends with `PayloadFormatVersion: "1.0"` (`path`,
 * `httpMethod`, `multiValueHeaders`), for a binding that reads only that. `$default` stage; the
 * route is `POST /{proxy+}`, as lambda:package deploys it. Everything in it is fixed but the request
 * id and the request time, which the caller may pin.
 */
import { randomUUID } from 'node:crypto';
import { routePath, type RouteRequest } from './contract.ts';
import { DEFAULT_EVENT_FORMAT, type EventFormat } from './types.ts';

/** The made-up API the events come from (an API id is 10 lowercase letters or digits). */
export const API_ID = 'coldstart0';
export const API_DOMAIN = `${API_ID}.execute-api.us-east-1.amazonaws.com`;
export const USER_AGENT = 'coldstart';

export interface HttpApiEventV2 {
  version: '2.0';
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  headers: Record<string, string>;
  requestContext: {
    accountId: string;
    apiId: string;
    domainName: string;
    domainPrefix: string;
    http: { method: string; path: string; protocol: string; sourceIp: string; userAgent: string };
    requestId: string;
    routeKey: string;
    stage: string;
    time: string;
    timeEpoch: number;
  };
  /** absent for a request without a body, as API Gateway sends it */
  body?: string;
  isBase64Encoded: boolean;
}

export { DEFAULT_EVENT_FORMAT, type EventFormat };

/** A payload format 1.0 event (REST API proxy shape, `version: "1.0"` as an HTTP API sends it). */
export interface HttpApiEventV1 {
  version: '1.0';
  resource: string;
  path: string;
  httpMethod: string;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  queryStringParameters: null;
  multiValueQueryStringParameters: null;
  requestContext: {
    accountId: string;
    apiId: string;
    domainName: string;
    domainPrefix: string;
    extendedRequestId: string;
    httpMethod: string;
    identity: { sourceIp: string; userAgent: string };
    path: string;
    protocol: string;
    requestId: string;
    requestTime: string;
    requestTimeEpoch: number;
    resourceId: string;
    resourcePath: string;
    stage: string;
  };
  pathParameters: { proxy: string };
  stageVariables: null;
  /** null for a request without a body, as API Gateway sends it */
  body: string | null;
  isBase64Encoded: boolean;
}

export type LambdaHttpEvent = HttpApiEventV2 | HttpApiEventV1;

export interface EventOptions {
  /** API Gateway's request id (default: a random UUID) */
  requestId?: string;
  /** the request time in ms since the epoch (default: now) */
  timeEpoch?: number;
  /** the payload format (default 2.0) */
  format?: EventFormat;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** API Gateway's `requestContext.time`: `12/Mar/2020:19:03:58 +0000` (UTC). */
export function apiGatewayTime(epochMs: number): string {
  const d = new Date(epochMs);
  const date = `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}`;
  return `${date}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

/** The headers API Gateway passes for a request with the JSON text `text` (none: no content headers). */
function requestHeaders(text: string | undefined): Record<string, string> {
  return {
    accept: 'application/json',
    ...(text === undefined ? {} : { 'content-length': String(Buffer.byteLength(text)), 'content-type': 'application/json' }),
    host: API_DOMAIN,
    'user-agent': USER_AGENT,
    'x-forwarded-for': '127.0.0.1',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
  };
}

/**
 * A payload format 1.0 event for `<method> <path>` (POST by default) carrying `body` as JSON, from the
 * route `POST /{proxy+}`; a request without a body (`undefined`) has a null body and no content headers.
 */
export function restApiEvent(path: string, body: unknown, options: EventOptions = {}, method = 'POST'): HttpApiEventV1 {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const timeEpoch = options.timeEpoch ?? Date.now();
  const headers = requestHeaders(text);
  const requestId = options.requestId ?? randomUUID();
  return {
    version: '1.0',
    resource: '/{proxy+}',
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: {
      accountId: '123456789012',
      apiId: API_ID,
      domainName: API_DOMAIN,
      domainPrefix: API_ID,
      extendedRequestId: requestId,
      httpMethod: method,
      identity: { sourceIp: '127.0.0.1', userAgent: USER_AGENT },
      path,
      protocol: 'HTTP/1.1',
      requestId,
      requestTime: apiGatewayTime(timeEpoch),
      requestTimeEpoch: timeEpoch,
      resourceId: 'POST /{proxy+}',
      resourcePath: '/{proxy+}',
      stage: '$default',
    },
    pathParameters: { proxy: path.replace(/^\//, '') },
    stageVariables: null,
    body: text ?? null,
    isBase64Encoded: false,
  };
}

/**
 * An HTTP API (payload 2.0) event for `<method> <path>` (POST by default) carrying `body` as JSON;
 * a request without a body (`undefined`, a GET) has no body and no content headers.
 */
export function httpApiEvent(path: string, body: unknown, options: EventOptions = {}, method = 'POST'): HttpApiEventV2 {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const timeEpoch = options.timeEpoch ?? Date.now();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: requestHeaders(text),
    requestContext: {
      accountId: '123456789012',
      apiId: API_ID,
      domainName: API_DOMAIN,
      domainPrefix: API_ID,
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: USER_AGENT },
      requestId: options.requestId ?? randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: apiGatewayTime(timeEpoch),
      timeEpoch,
    },
    ...(text === undefined ? {} : { body: text }),
    isBase64Encoded: false,
  };
}

/** The event for `<method> <path>` (POST by default) in the given payload format (default 2.0). */
export function lambdaEvent(path: string, body: unknown, options: EventOptions = {}, method = 'POST'): LambdaHttpEvent {
  return (options.format ?? DEFAULT_EVENT_FORMAT) === '1.0'
    ? restApiEvent(path, body, options, method)
    : httpApiEvent(path, body, options, method);
}

/** The event of one request of the runner to a route (routes.ts), in the runner's method and path. */
export function requestEvent(request: RouteRequest, options: EventOptions = {}): LambdaHttpEvent {
  return lambdaEvent(request.path, request.body, options, request.method);
}

/** The event for route i of the contract. */
export function routeEvent(i: number, body: unknown, options: EventOptions = {}): LambdaHttpEvent {
  return lambdaEvent(routePath(i), body, options);
}

export type LambdaAnswer = { ok: true; status: number; body: unknown } | { ok: false; reason: string };

/**
 * Read a handler's result as API Gateway would: an object with a numeric `statusCode` and a string
 * `body` (base64 when `isBase64Encoded`), parsed as JSON when it is JSON (else kept as text).
 */
export function readLambdaResult(result: unknown): LambdaAnswer {
  if (result === null || typeof result !== 'object') {
    return { ok: false, reason: `the result is not an object: ${String(result).slice(0, 100)}` };
  }
  const { statusCode, body, isBase64Encoded } = result as Record<string, unknown>;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode)) return { ok: false, reason: 'the result has no integer statusCode' };
  if (body !== undefined && typeof body !== 'string') return { ok: false, reason: 'the result body is not a string' };
  const text = body === undefined ? '' : isBase64Encoded === true ? Buffer.from(body, 'base64').toString('utf8') : body;
  try {
    return { ok: true, status: statusCode, body: JSON.parse(text) as unknown };
  } catch {
    return { ok: true, status: statusCode, body: text };
  }
}
