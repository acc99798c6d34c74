import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { eachRoute, fileHeader } from '../probe.ts';

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

export const NODE_HTTP_VALIDATION = 'hand-written typeof check of name';

const nodeHttp: FrameworkGenerator = {
  name: 'node-http',
  target: 'server',
  packages: [],
  validation: NODE_HTTP_VALIDATION,
  generate({ routes, variant }: GenerateInput): string {
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
