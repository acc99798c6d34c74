import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { INVALID_BODY, NODE_HTTP_VALIDATION, nodeHttpRoutes } from '../server/node-http.ts';

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
  generate({ routes, variant }: GenerateInput): string {
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
