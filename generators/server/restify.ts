import type { AppParts } from '../app.ts';
import type { FrameworkGenerator, GenerateInput, NodeLimit } from '../types.ts';
import { fileHeader } from '../probe.ts';
import { patternOf, type RouteRow } from '../routes.ts';
import { ZOD_USER } from '../schema-idioms.ts';
import { answerOf, renderRoutes, shapedInput, userSupport } from '../shape-render.ts';

/**
 * restify as its users write it: `restify.plugins.bodyParser()` and one `server.post` per route
 * with a `next`-style handler; restify has no schema validation of its own, so in `validated`
 * each route gets a small body-validation handler around its own Zod schema, built at startup,
 * that answers 400 when `safeParse` fails.
 */

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

/** restify's registration function of each method (`del` for DELETE). */
const RESTIFY_VERBS = { GET: 'get', POST: 'post', PUT: 'put', DELETE: 'del' } as const;

/**
 * Every shape but nested (restify has no grouping of its own): the small
 * schema per route, the user schema once (`UserSchema`).
 */
export function restifyApp(input: GenerateInput): AppParts {
  const { table, schema, validated } = shapedInput(input);
  const user = schema === 'user';
  const line = (row: RouteRow, owner: string) => {
    const answer = answerOf(row, schema, 'req.body', 'req.params');
    const handler = `function route${row.i}(req, res, next) { res.send(200, ${answer}); return next(); }`;
    const check = validated && row.body ? `validateBody(${user ? 'UserSchema' : 'z.object({ name: z.string() })'}), ` : '';
    return `${owner}.${RESTIFY_VERBS[row.method]}('${patternOf(row)}', ${check}${handler});`;
  };
  const shared = validated && user ? `\n${ZOD_USER}` : '';
  return {
    requires: `const restify = require('restify');`,
    validation: validated ? `\nconst { z } = require('zod');` : '',
    build: `const server = restify.createServer();
server.use(restify.plugins.bodyParser());${validated ? `\n${VALIDATE_BODY}` : ''}${shared}${userSupport(schema)}
${renderRoutes(table, 'server', line)}`,
  };
}

/**
 * restify cannot load on Node 24: every release through 11.x depends on spdy, whose http-deceiver calls
 * `process.binding('http_parser')` at load, a binding Node 24 removed (Node 22 only warns, DEP0111).
 * Its cells on Node 24 (the nodejs24.x line, or --runtime node24) are unsupported at plan time.
 */
export const RESTIFY_NODE_LIMIT: NodeLimit = {
  package: 'restify',
  throughMajor: 11,
  fromNodeMajor: 24,
  reason:
    "restify (11.x and older) loads http-deceiver through spdy, which calls process.binding('http_parser'), " +
    "removed in Node 24 (the module fails in INIT: 'No such module: http_parser')",
};

export const RESTIFY_NO_GROUPS = 'restify has no route grouping of its own (no routers, plugins or prefixes)';

export const RESTIFY_VALIDATION = 'Zod schema per route (z.object, built at startup), safeParse in a route handler, 400 on failure';

const restify: FrameworkGenerator = {
  name: 'restify',
  target: 'server',
  packages: ['restify', 'zod'],
  nodeLimit: RESTIFY_NODE_LIMIT,
  validation: RESTIFY_VALIDATION,
  unsupportedShapes: { nested: RESTIFY_NO_GROUPS },
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
