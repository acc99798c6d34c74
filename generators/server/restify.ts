import type { AppParts } from '../app.ts';
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

/** The app both targets build: `server`, a restify server with the body parser and N routes. */
export function restifyApp({ routes, variant }: GenerateInput): AppParts {
  const validated = variant === 'validated';
  return {
    requires: `const restify = require('restify');`,
    validation: validated ? `\nconst { z } = require('zod');` : '',
    build: `const server = restify.createServer();
server.use(restify.plugins.bodyParser());${validated ? `\n${VALIDATE_BODY}` : ''}
${eachRoute(routes, (i) => route(i, validated))}`,
  };
}

export const RESTIFY_VALIDATION = 'Zod schema per route (z.object, built at startup), safeParse in a route handler, 400 on failure';

const restify: FrameworkGenerator = {
  name: 'restify',
  target: 'server',
  packages: ['restify', 'zod'],
  validation: RESTIFY_VALIDATION,
  generate(input: GenerateInput): string {
    const app = restifyApp(input);
    return `${fileHeader('restify', input.variant, input.routes)}
${app.requires}${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
server.on('error', __csFail);
server.listen(__csPort, __csHost, () => __csReady(server.server));
`;
  },
};

export default restify;
