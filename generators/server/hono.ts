import type { AppParts } from '../app.ts';
import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { fileHeader } from '../probe.ts';
import { patternOf, type RouteRow } from '../routes.ts';
import { ZOD_USER } from '../schema-idioms.ts';
import { answerOf, renderRoutes, shapedInput, userSupport, verb } from '../shape-render.ts';

/**
 * hono as its users write it on node: `new Hono()` (its default SmartRouter), one `app.post` per
 * route, served by @hono/node-server; in `validated` each route carries `zValidator('json', …)`
 * from @hono/zod-validator with its own Zod schema, built at startup (400 on failure).
 */

/**
 * Every shape (flat with the small schema is the classic file): the small schema per route, the user schema once (`UserSchema`);
 * the nested shape registers each group on its own Hono, mounted with `app.route(prefix, group)`.
 */
export function honoApp(input: GenerateInput): AppParts {
  const { table, schema, validated } = shapedInput(input);
  const user = schema === 'user';
  const line = (row: RouteRow, owner: string) => {
    const answer = (body: string) => answerOf(row, schema, body, 'c.req.param()');
    let handler: string;
    if (!row.body) handler = `function route${row.i}(c) { return c.json(${answer('')}); }`;
    else if (validated) handler = `function route${row.i}(c) { return c.json(${answer(`c.req.valid('json')`)}); }`;
    else handler = `async function route${row.i}(c) { const body = await c.req.json(); return c.json(${answer('body')}); }`;
    const check = validated && row.body ? `zValidator('json', ${user ? 'UserSchema' : 'z.object({ name: z.string() })'}), ` : '';
    return `${owner}.${verb(row)}('${patternOf(row)}', ${check}${handler});`;
  };
  const groups = {
    open: (g: number) => `const group${g} = new Hono();`,
    owner: (g: number) => `group${g}`,
    close: (g: number) => `app.route('/group-${g}', group${g});`,
  };
  return {
    requires: `const { Hono } = require('hono');`,
    validation: validated ? `\nconst { zValidator } = require('@hono/zod-validator');\nconst { z } = require('zod');` : '',
    build: `const app = new Hono();${validated && user ? `\n${ZOD_USER}` : ''}${userSupport(schema)}
${renderRoutes(table, 'app', line, groups)}`,
  };
}

export const HONO_VALIDATION = "zValidator('json', schema) from @hono/zod-validator, a Zod schema per route (400 on failure)";

const hono: FrameworkGenerator = {
  name: 'hono',
  target: 'server',
  packages: ['hono', '@hono/node-server', '@hono/zod-validator', 'zod'],
  validation: HONO_VALIDATION,
  generate(input: GenerateInput): string {
    const app = honoApp(input);
    return `${fileHeader('hono', input.variant, input.routes)}
${app.requires}
const { serve } = require('@hono/node-server');${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
const server = serve({ fetch: app.fetch, hostname: __csHost, port: __csPort }, () => __csReady(server));
server.on('error', __csFail);
`;
  },
};

export default hono;
