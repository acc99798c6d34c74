import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { eachRoute, fileHeader } from '../probe.ts';

/**
 * restify as its users write it: `restify.plugins.bodyParser()` and one `server.post` per route
 * with a `next`-style handler; restify has no schema validation of its own, so in `validated`
 * each route gets a small body-validation handler around its own Zod schema, built at startup,
 * that answers 400 when `safeParse` fails.
 */
function route(i: number, validated: boolean): string {
  const handler = `function route${i}(req, res, next) { res.send(200, { hello: req.body.name, route: ${i} }); return next(); }`;
  if (!validated) return `server.post('/route-${i}', ${handler});`;
  return `server.post('/route-${i}', validateBody(z.object({ name: z.string() })), ${handler});`;
}

const VALIDATE_BODY = `function validateBody(schema) {
  return function validate(req, res, next) {
    const result = schema.safeParse(req.body);
    if (!result.success) {
      res.send(400, { error: 'invalid body', issues: result.error.issues });
      return next(false);
    }
    req.body = result.data;
    return next();
  };
}`;

const restify: FrameworkGenerator = {
  name: 'restify',
  description: 'restify 11 with its own router (find-my-way) and bodyParser plugin',
  packages: ['restify', 'zod'],
  validation: 'Zod schema per route (z.object, built at startup), safeParse in a route handler, 400 on failure',
  generate({ routes, variant }: GenerateInput): string {
    const validated = variant === 'validated';
    return `${fileHeader('restify', variant, routes)}
const restify = require('restify');${validated ? `\nconst { z } = require('zod');` : ''}
__csMark('imported');
const server = restify.createServer();
server.use(restify.plugins.bodyParser());${validated ? `\n${VALIDATE_BODY}` : ''}
${eachRoute(routes, (i) => route(i, validated))}
__csMark('startup');
server.on('error', __csFail);
server.listen(__csPort, __csHost, () => __csReady(server.server));
`;
  },
};

export default restify;
