import type { AppParts } from '../app.ts';
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

/** The app both targets build: `app`, a fastify instance with its N routes. */
export function fastifyApp({ routes, variant }: GenerateInput): AppParts {
  return {
    requires: `const Fastify = require('fastify');`,
    validation: '',
    build: `const app = Fastify({ logger: false });
${eachRoute(routes, (i) => route(i, variant === 'validated'))}`,
  };
}

export const FASTIFY_VALIDATION = 'JSON schema for body and response per route (ajv + fast-json-stringify)';

const fastify: FrameworkGenerator = {
  name: 'fastify',
  target: 'server',
  packages: ['fastify'],
  validation: FASTIFY_VALIDATION,
  generate(input: GenerateInput): string {
    const app = fastifyApp(input);
    return `${fileHeader('fastify', input.variant, input.routes)}
${app.requires}
__csMark('imported');
${app.build}
__csMark('startup');
app.listen({ host: __csHost, port: __csPort }).then(() => __csReady(app.server), __csFail);
`;
  },
};

export default fastify;
