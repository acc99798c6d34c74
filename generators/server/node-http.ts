import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { eachRoute, fileHeader } from '../probe.ts';
import { patternOf } from '../routes.ts';
import { ZOD_USER } from '../schema-idioms.ts';
import { answerOf, isClassic, shapedInput, userSupport } from '../shape-render.ts';

/**
 * The floor: a bare node:http server with a lookup table of its N paths, a hand-written JSON body
 * reader and, in `validated`, a hand-written check of `name`. Every framework is measured against it.
 */

/** The route table both targets build: `routes`, a Map from path to a function of the body. */
export function nodeHttpRoutes(routes: number): string {
  return `const routes = new Map([
${eachRoute(routes, (i) => `  ['/route-${i}', function route${i}(body) { return { hello: body.name, route: ${i} }; }],`)}
]);`;
}

/** The hand-written validation: true when the parsed `body` has no string `name`. */
export const INVALID_BODY = "body === null || typeof body !== 'object' || typeof body.name !== 'string'";

export const NODE_HTTP_VALIDATION = 'hand-written typeof check of name; user schema: one shared Zod schema, safeParse';

/**
 * The floor's router for every shape but the classic one: a segment tree built at startup from the
 * N patterns (a literal segment or one `:param` per level), `find` walking it per request. node:http
 * has no grouping of its own: nested routes are added with their full path.
 */
const SEGMENT_TREE = `function node() { return { children: new Map(), param: undefined, handlers: undefined }; }
const tree = node();
function add(method, pattern, handler) {
  let at = tree;
  for (const part of pattern.split('/').slice(1)) {
    if (part.startsWith(':')) {
      if (!at.param) at.param = { name: part.slice(1), next: node() };
      at = at.param.next;
    } else {
      if (!at.children.has(part)) at.children.set(part, node());
      at = at.children.get(part);
    }
  }
  if (!at.handlers) at.handlers = new Map();
  at.handlers.set(method, handler);
}
function find(method, path) {
  let at = tree;
  const params = {};
  for (const part of path.split('/').slice(1)) {
    const next = at.children.get(part);
    if (next) at = next;
    else if (at.param && part) {
      params[at.param.name] = decodeURIComponent(part);
      at = at.param.next;
    } else return undefined;
  }
  const handler = at.handlers && at.handlers.get(method);
  return handler && { handler, params };
}`;

/**
 * The shaped routes both targets build: the segment tree with the N routes added, and `validate`
 * (the body's check: the hand-written one for the small schema, the shared Zod User schema for
 * `user`, none in plain): it returns the body to use, or undefined when the body is invalid.
 */
export function nodeHttpShaped(input: GenerateInput): { requires: string; build: string } {
  const { table, schema, validated } = shapedInput(input);
  const user = schema === 'user';
  const check = !validated
    ? 'return body;'
    : user
      ? 'const result = UserSchema.safeParse(body); return result.success ? result.data : undefined;'
      : `return ${INVALID_BODY} ? undefined : body;`;
  const routes = eachRoute(table.length, (i) => {
    const row = table[i]!;
    const path = (row.group === undefined ? '' : `/group-${row.group}`) + patternOf(row);
    return `add('${row.method}', '${path}', function route${i}(body, params) { return ${answerOf(row, schema, 'body', 'params')}; });`;
  });
  return {
    requires: user && validated ? `\nconst { z } = require('zod');` : '',
    build: `${SEGMENT_TREE}${user && validated ? `\n${ZOD_USER}` : ''}${userSupport(schema)}
function validate(body) { ${check} }
${routes}`,
  };
}

function shapedServer(input: GenerateInput): string {
  const app = nodeHttpShaped(input);
  return `${fileHeader('node-http', input.variant, input.routes)}
const http = require('node:http');${app.requires}
__csMark('imported');
${app.build}
function send(res, status, value) {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
const server = http.createServer((req, res) => {
  const found = find(req.method, req.url.split('?')[0]);
  if (!found) return send(res, 404, { error: 'not found' });
  if (req.method === 'GET' || req.method === 'DELETE') return send(res, 200, found.handler(undefined, found.params));
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let body;
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { return send(res, 400, { error: 'invalid JSON' }); }
    const valid = validate(body);
    if (valid === undefined) return send(res, 400, { error: 'invalid body' });
    send(res, 200, found.handler(valid, found.params));
  });
});
__csMark('startup');
server.on('error', __csFail);
server.listen(__csPort, __csHost, () => __csReady(server));
`;
}

const nodeHttp: FrameworkGenerator = {
  name: 'node-http',
  target: 'server',
  packages: [],
  validation: NODE_HTTP_VALIDATION,
  generate(input: GenerateInput): string {
    if (!isClassic(input)) return shapedServer(input);
    const { routes, variant } = input;
    const check = variant === 'validated' ? `\n    if (${INVALID_BODY}) return send(res, 400, { error: 'name must be a string' });` : '';
    return `${fileHeader('node-http', variant, routes)}
const http = require('node:http');
__csMark('imported');
${nodeHttpRoutes(routes)}
function send(res, status, value) {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
const server = http.createServer((req, res) => {
  const handler = req.method === 'POST' ? routes.get(req.url) : undefined;
  if (!handler) return send(res, 404, { error: 'not found' });
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let body;
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { return send(res, 400, { error: 'invalid JSON' }); }${check}
    send(res, 200, handler(body));
  });
});
__csMark('startup');
server.on('error', __csFail);
server.listen(__csPort, __csHost, () => __csReady(server));
`;
  },
};

export default nodeHttp;
