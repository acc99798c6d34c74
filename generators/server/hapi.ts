import type { AppParts } from '../app.ts';
import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { fileHeader } from '../probe.ts';
import { patternOf, type RouteRow } from '../routes.ts';
import { JOI_USER } from '../schema-idioms.ts';
import { answerOf, renderRoutes, shapedInput, userSupport } from '../shape-render.ts';

/**
 * hapi as its users write it: one `server.route` per route; in `validated` each route carries
 * hapi's built-in payload validation (`options.validate.payload`) with a joi schema of its own,
 * built at startup, after `server.validator(Joi)` (hapi answers 400 on failure).
 */

/**
 * Every shape (flat with the small schema is the classic file): the small schema per route (its own Joi object), the user schema
 * once (`UserSchema`, Joi); the nested shape registers each group as a hapi plugin with
 * `routes.prefix`. A plugin's `register` runs synchronously inside `server.register`, so the routes
 * exist before the server starts (the server target also waits for `registered`).
 */
export function hapiApp(input: GenerateInput, options: string): AppParts {
  const { table, schema, validated } = shapedInput(input);
  const user = schema === 'user';
  const line = (row: RouteRow, owner: string) => {
    const handler = `handler: function route${row.i}(request) { return ${answerOf(row, schema, 'request.payload', 'request.params')}; }`;
    const payload = user ? 'UserSchema' : 'Joi.object({ name: Joi.string().required() })';
    const check = validated && row.body ? `options: { validate: { payload: ${payload} } }, ` : '';
    return `${owner}.route({ method: '${row.method}', path: '${patternOf(row, (name) => `{${name}}`)}', ${check}${handler} });`;
  };
  const groups = {
    open: (g: number) => `registered.push(server.register({ name: 'group${g}', register(server) {`,
    owner: () => '  server',
    close: (g: number) => `} }, { routes: { prefix: '/group-${g}' } }));`,
  };
  const nested = table.some((row) => row.group !== undefined);
  const shared = validated && user ? `\n${JOI_USER}` : '';
  return {
    requires: `const Hapi = require('@hapi/hapi');`,
    validation: validated ? `\nconst Joi = require('joi');` : '',
    build: `const server = Hapi.server(${options});${validated ? `\nserver.validator(Joi);` : ''}${shared}${userSupport(schema)}
${nested ? 'const registered = [];\n' : ''}${renderRoutes(table, 'server', line, groups)}`,
  };
}

/** The statement that starts a hapi server once every plugin of the nested shape is registered. */
export function hapiStart(input: GenerateInput): string {
  const start = 'server.start().then(() => __csReady(server.listener), __csFail);';
  return shapedInput(input).shape === 'nested' ? `Promise.all(registered).then(() => ${start.slice(0, -1)}, __csFail);` : start;
}

export const HAPI_VALIDATION =
  "hapi's route validation (options.validate.payload) with a joi schema per route, via server.validator(Joi) (400 on failure)";

const hapi: FrameworkGenerator = {
  name: 'hapi',
  target: 'server',
  packages: ['@hapi/hapi', 'joi'],
  validation: HAPI_VALIDATION,
  generate(input: GenerateInput): string {
    const app = hapiApp(input, '{ host: __csHost, port: __csPort }');
    return `${fileHeader('hapi', input.variant, input.routes)}
${app.requires}${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
${hapiStart(input)}
`;
  },
};

export default hapi;
