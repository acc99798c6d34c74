import type { AppParts } from '../app.ts';
import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { fileHeader } from '../probe.ts';
import { patternOf, type RouteRow } from '../routes.ts';
import { ZOD_USER } from '../schema-idioms.ts';
import { answerOf, renderRoutes, shapedInput, userSupport, verb } from '../shape-render.ts';

/**
 * koa as its users write it: @koa/bodyparser for the body and an @koa/router with one
 * `router.post` per route; in `validated` each route gets a small body-validation middleware
 * around its own Zod schema, built at startup, that answers 400 when `safeParse` fails.
 */

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

/**
 * Every shape (flat with the small schema is the classic file): the small schema per route, the user schema once (`UserSchema`);
 * the nested shape registers each group on its own router, nested into the main one with
 * `router.use(prefix, group.routes())` (@koa/router's nested routers).
 */
export function koaApp(input: GenerateInput): AppParts {
  const { table, schema, validated } = shapedInput(input);
  const user = schema === 'user';
  const line = (row: RouteRow, owner: string) => {
    const handler = `async function route${row.i}(ctx) { ctx.body = ${answerOf(row, schema, 'ctx.request.body', 'ctx.params')}; }`;
    const check = validated && row.body ? `validateBody(${user ? 'UserSchema' : 'z.object({ name: z.string() })'}), ` : '';
    return `${owner}.${verb(row)}('${patternOf(row)}', ${check}${handler});`;
  };
  const groups = {
    open: (g: number) => `const group${g} = new Router();`,
    owner: (g: number) => `group${g}`,
    close: (g: number) => `router.use('/group-${g}', group${g}.routes());`,
  };
  return {
    requires: `const Koa = require('koa');
const Router = require('@koa/router');
const { bodyParser } = require('@koa/bodyparser');`,
    validation: validated ? `\nconst { z } = require('zod');` : '',
    build: `const app = new Koa();
const router = new Router();${validated ? `\n${VALIDATE_BODY}` : ''}${validated && user ? `\n${ZOD_USER}` : ''}${userSupport(schema)}
${renderRoutes(table, 'router', line, groups)}
app.use(bodyParser());
app.use(router.routes());
app.use(router.allowedMethods());`,
  };
}

export const KOA_VALIDATION = 'Zod schema per route (z.object, built at startup), safeParse in a middleware, 400 on failure';

const koa: FrameworkGenerator = {
  name: 'koa',
  target: 'server',
  packages: ['koa', '@koa/router', '@koa/bodyparser', 'zod'],
  validation: KOA_VALIDATION,
  generate(input: GenerateInput): string {
    const app = koaApp(input);
    return `${fileHeader('koa', input.variant, input.routes)}
${app.requires}${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
const server = app.listen(__csPort, __csHost, () => __csReady(server));
server.on('error', __csFail);
`;
  },
};

export default koa;
