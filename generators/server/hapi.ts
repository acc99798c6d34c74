import type { AppParts } from '../app.ts';
import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { eachRoute, fileHeader } from '../probe.ts';

/**
 * hapi as its users write it: one `server.route` per route; in `validated` each route carries
 * hapi's built-in payload validation (`options.validate.payload`) with a joi schema of its own,
 * built at startup, after `server.validator(Joi)` (hapi answers 400 on failure).
 */
function route(i: number, validated: boolean): string {
  const handler = `handler: function route${i}(request) { return { hello: request.payload.name, route: ${i} }; }`;
  if (!validated) return `server.route({ method: 'POST', path: '/route-${i}', ${handler} });`;
  return (
    `server.route({ method: 'POST', path: '/route-${i}', ` +
    `options: { validate: { payload: Joi.object({ name: Joi.string().required() }) } }, ${handler} });`
  );
}

/**
 * The app both targets build: `server`, a hapi server with its N routes. `options` is the source
 * of the argument to `Hapi.server` ('' for none: a server that never listens).
 */
export function hapiApp({ routes, variant }: GenerateInput, options: string): AppParts {
  const validated = variant === 'validated';
  return {
    requires: `const Hapi = require('@hapi/hapi');`,
    validation: validated ? `\nconst Joi = require('joi');` : '',
    build: `const server = Hapi.server(${options});${validated ? `\nserver.validator(Joi);` : ''}
${eachRoute(routes, (i) => route(i, validated))}`,
  };
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
server.start().then(() => __csReady(server.listener), __csFail);
`;
  },
};

export default hapi;
