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

const hapi: FrameworkGenerator = {
  name: 'hapi',
  description: 'hapi with its own router and payload parsing',
  packages: ['@hapi/hapi', 'joi'],
  validation: "hapi's route validation (options.validate.payload) with a joi schema per route, via server.validator(Joi) (400 on failure)",
  generate({ routes, variant }: GenerateInput): string {
    const validated = variant === 'validated';
    return `${fileHeader('hapi', variant, routes)}
const Hapi = require('@hapi/hapi');${validated ? `\nconst Joi = require('joi');` : ''}
__csMark('imported');
const server = Hapi.server({ host: __csHost, port: __csPort });${validated ? `\nserver.validator(Joi);` : ''}
${eachRoute(routes, (i) => route(i, validated))}
__csMark('startup');
server.start().then(() => __csReady(server.listener), __csFail);
`;
  },
};

export default hapi;
