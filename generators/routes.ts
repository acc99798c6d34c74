/**
 * The route table: what the N routes of a generated file are, as data. It is built once per
 * (shape, N) and read by every framework's generator (to write the routes in its own idiom) and by
 * the runner (to send each route the request it expects and check the answer). A route's answer is
 * `{ hello, route, …params }`: `hello` is the body's name (`username` for the user schema) on a
 * route that takes a body, `route` its own number, then every path parameter echoed back.
 *
 * Shapes:
 * - `flat`: `POST /route-<i>` (the files as they always were);
 * - `params`: `POST /users-<i>/:id` (even i) and `POST /orgs-<i>/:org/items/:item` (odd i): N static
 *   prefixes, one or two parameters, the handler answering from them;
 * - `nested`: `POST /group-<g>/route-<i>`, GROUP_SIZE routes per group, registered through the
 *   framework's own grouping (plugins with a prefix, routers, sub-apps);
 * - `rest`: resources `/items-<r>` with five routes each (GET list, GET one, POST, PUT, DELETE).
 */
import seedrandom from 'seedrandom';
import type { Shape } from '../metrics/core/dimensions.ts';

/** Routes per group in the `nested` shape, and per resource in `rest` (one per method). */
export const GROUP_SIZE = 10;
export const REST_METHODS = ['GET', 'GET', 'POST', 'PUT', 'DELETE'] as const;

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A path segment: literal text, or a parameter (`:name`). */
export type Segment = { text: string } | { param: string };

export interface RouteRow {
  /** the route's number, 0 … N-1: what its answer says in `route` */
  i: number;
  method: Method;
  /** the group the route is registered in (nested shape only) */
  group?: number;
  /** the path below the group's prefix (the whole path when there is no group) */
  segments: Segment[];
  /** true when the route takes a JSON body (and validates it) */
  body: boolean;
}

export function groupPrefix(group: number): string {
  return `/group-${group}`;
}

function flatRow(i: number): RouteRow {
  return { i, method: 'POST', segments: [{ text: `route-${i}` }], body: true };
}

function paramsRow(i: number): RouteRow {
  const segments: Segment[] =
    i % 2 === 0
      ? [{ text: `users-${i}` }, { param: 'id' }]
      : [{ text: `orgs-${i}` }, { param: 'org' }, { text: 'items' }, { param: 'item' }];
  return { i, method: 'POST', segments, body: true };
}

function nestedRow(i: number): RouteRow {
  return { i, method: 'POST', group: Math.floor(i / GROUP_SIZE), segments: [{ text: `route-${i}` }], body: true };
}

function restRow(i: number): RouteRow {
  const op = i % REST_METHODS.length;
  const method = REST_METHODS[op]!;
  const resource = { text: `items-${Math.floor(i / REST_METHODS.length)}` };
  const one = op === 1 || op === 3 || op === 4;
  return { i, method, segments: one ? [resource, { param: 'id' }] : [resource], body: method === 'POST' || method === 'PUT' };
}

const ROWS: Record<Shape, (i: number) => RouteRow> = { flat: flatRow, params: paramsRow, nested: nestedRow, rest: restRow };

/** The N routes of a shape, in order. */
export function routeTable(shape: Shape, routes: number): RouteRow[] {
  return Array.from({ length: routes }, (_, i) => ROWS[shape](i));
}

/** The route's parameter names, in path order. */
export function paramsOf(row: RouteRow): string[] {
  return row.segments.flatMap((s) => ('param' in s ? [s.param] : []));
}

/** The path below the group in a framework's syntax: `:id` by default, `{id}` for hapi. */
export function patternOf(row: RouteRow, param: (name: string) => string = (name) => `:${name}`): string {
  return '/' + row.segments.map((s) => ('param' in s ? param(s.param) : s.text)).join('/');
}

/** The value the runner sends for a parameter of route i: `id7`, `org7`, `item7`. */
export function paramValue(name: string, i: number): string {
  return `${name}${i}`;
}

/** The concrete path the runner requests, group prefix included. */
export function requestPath(row: RouteRow): string {
  const below = '/' + row.segments.map((s) => ('param' in s ? paramValue(s.param, row.i) : s.text)).join('/');
  return row.group === undefined ? below : groupPrefix(row.group) + below;
}

/**
 * The routes a sample's first hits go to after its timed first request (to the last route): K
 * distinct routes spread over the others, one drawn (seeded by N and K) from each of K equal
 * stretches of 0 … N-2, in table order. The same N and K always give the same list.
 */
export function firstHitRoutes(routes: number, hits: number): number[] {
  const others = routes - 1;
  const k = Math.min(Math.max(0, Math.floor(hits)), others);
  if (k === 0) return [];
  const random = seedrandom(`coldstart first hits ${routes} ${k}`);
  const picked: number[] = [];
  for (let j = 0; j < k; j++) {
    const from = Math.floor((j * others) / k);
    const to = Math.floor(((j + 1) * others) / k);
    picked.push(from + Math.floor(random() * (to - from)));
  }
  return picked;
}
