import type { AppParts } from '../app.ts';
import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { fileHeader } from '../probe.ts';
import { paramsOf, patternOf, type RouteRow } from '../routes.ts';
import { JSON_SCHEMA_USER } from '../schema-idioms.ts';
import { answerOf, renderRoutes, shapedInput, userSupport, verb } from '../shape-render.ts';
import type { Schema } from '../../metrics/core/dimensions.ts';

/**
 * fastify as its users write it: one `app.post` per route; in `validated` each route carries a
 * JSON schema for the body and the 200 response, compiled by fastify's own ajv and
 * fast-json-stringify when the app becomes ready.
 */

/** A shaped route's schema: the body (the one-field object, or the shared `User` by $ref) and the 200 response. */
function shapedSchema(row: RouteRow, schema: Schema): string {
  const answer = [
    ...(row.body ? [`hello: { type: 'string' }`] : []),
    `route: { type: 'integer' }`,
    ...paramsOf(row).map((p) => `${p}: { type: 'string' }`),
    ...(row.body && schema === 'user' ? [`user: { $ref: 'User#' }`] : []),
  ];
  const response = `response: { 200: { type: 'object', properties: { ${answer.join(', ')} } } }`;
  if (!row.body) return `{ schema: { ${response} } }`;
  const body = schema === 'user' ? `{ $ref: 'User#' }` : `{ type: 'object', required: ['name'], properties: { name: { type: 'string' } } }`;
  return `{ schema: { body: ${body}, ${response} } }`;
}

/**
 * Every shape (flat with the small schema is the classic file). The user schema is added once (`app.addSchema`, `$id: 'User'`)
 * and referenced by every route's body and response; the nested shape registers each group as a
 * plugin with its `prefix` (encapsulated: the plugin's `app` is its own instance).
 */
export function fastifyApp(input: GenerateInput): AppParts {
  const { table, schema, validated } = shapedInput(input);
  const line = (row: RouteRow, owner: string) => {
    const handler = `async function route${row.i}(request) { return ${answerOf(row, schema, 'request.body', 'request.params')}; }`;
    const options = validated ? `${shapedSchema(row, schema)}, ` : '';
    return `${owner}.${verb(row)}('${patternOf(row)}', ${options}${handler});`;
  };
  const groups = {
    open: (g: number) => `app.register(async function group${g}(app) {`,
    owner: () => '  app',
    close: (g: number) => `}, { prefix: '/group-${g}' });`,
  };
  const shared = validated && schema === 'user' ? `\napp.addSchema({ $id: 'User', ...${JSON_SCHEMA_USER} });` : '';
  return {
    requires: `const Fastify = require('fastify');`,
    validation: '',
    build: `const app = Fastify({ logger: false });${shared}${userSupport(schema)}
${renderRoutes(table, 'app', line, groups)}`,
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
