import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { INVALID_BODY, NODE_HTTP_VALIDATION, nodeHttpRoutes, nodeHttpShaped } from '../server/node-http.ts';
import { isClassic } from '../shape-render.ts';

/** Every shape but the classic one: the server's segment tree, read from the event's method and rawPath. */
function shapedHandler(input: GenerateInput): string {
  const app = nodeHttpShaped(input);
  return `${lambdaFileHeader('node-http', input.variant, input.routes)}${app.requires}
__csMark('imported');
${app.build}
function answer(statusCode, value) {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}
__csMark('startup');
exports.handler = async function handler(event) {
  const http = event.requestContext && event.requestContext.http;
  const method = http ? http.method : event.httpMethod;
  const found = find(method, http ? event.rawPath : event.path);
  if (!found) return answer(404, { error: 'not found' });
  if (method === 'GET' || method === 'DELETE') return answer(200, found.handler(undefined, found.params));
  let body;
  try {
    body = JSON.parse(event.isBase64Encoded ? Buffer.from(event.body || '', 'base64').toString('utf8') : event.body);
  } catch {
    return answer(400, { error: 'invalid JSON' });
  }
  const valid = validate(body);
  if (valid === undefined) return answer(400, { error: 'invalid body' });
  return answer(200, found.handler(valid, found.params));
};
`;
}

/**
 * The floor on Lambda: no framework and no adapter, a handler of its own over the same route table
 * as the server target. It reads the payload 2.0 event (method, rawPath, body) and returns the
 * result object API Gateway expects.
 */
const nodeHttp: FrameworkGenerator = {
  name: 'node-http',
  target: 'lambda',
  packages: [],
  adapter: 'none',
  validation: NODE_HTTP_VALIDATION,
  noEagerInit: "no eager form: no framework, the file's own route table is built as it runs, already in INIT",
  generate(input: GenerateInput): string {
    if (!isClassic(input)) return shapedHandler(input);
    const { routes, variant } = input;
    const check = variant === 'validated' ? `\n  if (${INVALID_BODY}) return answer(400, { error: 'name must be a string' });` : '';
    return `${lambdaFileHeader('node-http', variant, routes)}
__csMark('imported');
${nodeHttpRoutes(routes)}
function answer(statusCode, value) {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}
__csMark('startup');
exports.handler = async function handler(event) {
  const http = event.requestContext && event.requestContext.http;
  const route = http && http.method === 'POST' ? routes.get(event.rawPath) : undefined;
  if (!route) return answer(404, { error: 'not found' });
  let body;
  try {
    body = JSON.parse(event.isBase64Encoded ? Buffer.from(event.body || '', 'base64').toString('utf8') : event.body);
  } catch {
    return answer(400, { error: 'invalid JSON' });
  }${check}
  return answer(200, route(body));
};
`;
  },
};

export default nodeHttp;
