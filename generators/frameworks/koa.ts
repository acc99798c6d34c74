import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { eachRoute, fileHeader } from '../probe.ts';

/**
 * koa as its users write it: @koa/bodyparser for the body and an @koa/router with one
 * `router.post` per route; in `validated` each route gets a small body-validation middleware
 * around its own Zod schema, built at startup, that answers 400 when `safeParse` fails.
 */
function route(i: number, validated: boolean): string {
  const handler = `async function route${i}(ctx) { ctx.body = { hello: ctx.request.body.name, route: ${i} }; }`;
  if (!validated) return `router.post('/route-${i}', ${handler});`;
  return `router.post('/route-${i}', validateBody(z.object({ name: z.string() })), ${handler});`;
}

const VALIDATE_BODY = `function validateBody(schema) {
  return async function validate(ctx, next) {
    const result = schema.safeParse(ctx.request.body);
    if (!result.success) {
      ctx.status = 400;
      ctx.body = { error: 'invalid body', issues: result.error.issues };
      return;
    }
    ctx.request.body = result.data;
    await next();
  };
}`;

const koa: FrameworkGenerator = {
  name: 'koa',
  description: 'koa with @koa/router and @koa/bodyparser',
  packages: ['koa', '@koa/router', '@koa/bodyparser', 'zod'],
  validation: 'Zod schema per route (z.object, built at startup), safeParse in a middleware, 400 on failure',
  generate({ routes, variant }: GenerateInput): string {
    const validated = variant === 'validated';
    return `${fileHeader('koa', variant, routes)}
const Koa = require('koa');
const Router = require('@koa/router');
const { bodyParser } = require('@koa/bodyparser');${validated ? `\nconst { z } = require('zod');` : ''}
__csMark('imported');
const app = new Koa();
const router = new Router();${validated ? `\n${VALIDATE_BODY}` : ''}
${eachRoute(routes, (i) => route(i, validated))}
app.use(bodyParser());
app.use(router.routes());
app.use(router.allowedMethods());
__csMark('startup');
const server = app.listen(__csPort, __csHost, () => __csReady(server));
server.on('error', __csFail);
`;
  },
};

export default koa;
