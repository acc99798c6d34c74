import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { eachRoute, fileHeader } from '../probe.ts';

/**
 * fastify as its users write it: one `app.post` per route; in `validated` each route carries a
 * JSON schema for the body and the 200 response, compiled by fastify's own ajv and
 * fast-json-stringify when the app becomes ready.
 */
function route(i: number, validated: boolean): string {
  const handler = `async function route${i}(request) { return { hello: request.body.name, route: ${i} }; }`;
  if (!validated) return `app.post('/route-${i}', ${handler});`;
  const schema =
    `{ schema: { body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } }, ` +
    `response: { 200: { type: 'object', properties: { hello: { type: 'string' }, route: { type: 'integer' } } } } } }`;
  return `app.post('/route-${i}', ${schema}, ${handler});`;
}

const fastify: FrameworkGenerator = {
  name: 'fastify',
  description: 'fastify with its own router',
  packages: ['fastify'],
  validation: 'JSON schema for body and response per route (ajv + fast-json-stringify)',
  generate({ routes, variant }: GenerateInput): string {
    return `${fileHeader('fastify', variant, routes)}
const Fastify = require('fastify');
__csMark('imported');
const app = Fastify({ logger: false });
${eachRoute(routes, (i) => route(i, variant === 'validated'))}
__csMark('startup');
app.listen({ host: __csHost, port: __csPort }).then(() => __csReady(app.server), __csFail);
`;
  },
};

export default fastify;
