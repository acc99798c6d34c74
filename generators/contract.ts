import { DEFAULT_EVENT_FORMAT, type Contract, type FrameworkGenerator } from './types.ts';
import { paramsOf, paramValue, requestPath, type Method, type RouteRow } from './routes.ts';
import { expectedDisplayName, invalidUserBody, userBody } from './user-model.ts';
import type { Schema } from '../metrics/core/dimensions.ts';

/** The name the runner sends; fixed so that answers are comparable and deterministic. */
export const PROBE_NAME = 'coldstart';

export const defaultContract: Contract = {
  eventFormat: DEFAULT_EVENT_FORMAT,
  validBody: (_i, name) => ({ name }),
  invalidBody: () => ({}),
};

export function contractOf(generator: Pick<FrameworkGenerator, 'contract'> & Partial<Pick<FrameworkGenerator, 'eventFormat'>>): Contract {
  return { ...defaultContract, ...generator.contract, eventFormat: generator.eventFormat ?? DEFAULT_EVENT_FORMAT };
}

export function routePath(i: number): string {
  return `/route-${i}`;
}

/** One request of the runner to one route of a table. */
export interface RouteRequest {
  method: Method;
  path: string;
  /** the JSON body; undefined for a route that takes none */
  body: unknown;
}

/** The body of a User request to route i: in the framework's envelope when it has one. */
function userRequestBody(contract: Contract, i: number, user: Record<string, unknown>): unknown {
  return contract.envelope ? contract.envelope(i, user) : user;
}

/** The valid request to a route: its method and concrete path, and the schema's body when it takes one. */
export function validRequest(row: RouteRow, schema: Schema, contract: Contract, name: string): RouteRequest {
  const body = !row.body
    ? undefined
    : schema === 'user'
      ? userRequestBody(contract, row.i, userBody(name))
      : contract.validBody(row.i, name);
  return { method: row.method, path: requestPath(row), body };
}

/** The request a validating route must answer with 4xx; undefined for a route that takes no body. */
export function invalidRequest(row: RouteRow, schema: Schema, contract: Contract, name: string): RouteRequest | undefined {
  if (!row.body) return undefined;
  const body = schema === 'user' ? userRequestBody(contract, row.i, invalidUserBody(name)) : contract.invalidBody(row.i);
  return { method: row.method, path: requestPath(row), body };
}

/** What the answer to a valid request must contain: dotted path → value. */
export function expectedAnswer(row: RouteRow, schema: Schema, name: string): [string, unknown][] {
  const pairs: [string, unknown][] = [];
  if (row.body) pairs.push(['hello', name]);
  pairs.push(['route', row.i]);
  for (const param of paramsOf(row)) pairs.push([param, paramValue(param, row.i)]);
  if (row.body && schema === 'user') {
    pairs.push(['user.username', name], ['user.profile.displayName', expectedDisplayName(userBody(name))]);
  }
  return pairs;
}

function at(value: unknown, dotted: string): unknown {
  let current = value;
  for (const key of dotted.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * Does `value` hold the expected answer? Some object in it, at any depth (RPC frameworks nest it
 * under the route id), must have every expected value at its path.
 */
export function answerMatches(value: unknown, expected: [string, unknown][], depth = 0): boolean {
  if (value === null || typeof value !== 'object' || depth > 4) return false;
  if (expected.every(([path, wanted]) => at(value, path) === wanted)) return true;
  return Object.values(value as Record<string, unknown>).some((inner) => answerMatches(inner, expected, depth + 1));
}

/**
 * Is `value` a correct answer from route i of the flat table for `name`? It must contain, at any
 * depth, an object with `hello === name` and `route === i`.
 */
export function isExpectedAnswer(value: unknown, i: number, name: string): boolean {
  return answerMatches(value, [
    ['hello', name],
    ['route', i],
  ]);
}
