import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { eachRoute, fileHeader } from '../probe.ts';

/**
 * hono as its users write it on node: `new Hono()` (its default SmartRouter), one `app.post` per
 * route, served by @hono/node-server; in `validated` each route carries `zValidator('json', …)`
 * from @hono/zod-validator with its own Zod schema, built at startup (400 on failure).
 */
function route(i: number, validated: boolean): string {
  if (!validated) {
    return `app.post('/route-${i}', async function route${i}(c) { const body = await c.req.json(); return c.json({ hello: body.name, route: ${i} }); });`;
  }
  return (
    `app.post('/route-${i}', zValidator('json', z.object({ name: z.string() })), ` +
    `function route${i}(c) { return c.json({ hello: c.req.valid('json').name, route: ${i} }); });`
  );
}

const hono: FrameworkGenerator = {
  name: 'hono',
  description: 'hono with its default router, served by @hono/node-server',
  packages: ['hono', '@hono/node-server', '@hono/zod-validator', 'zod'],
  validation: "zValidator('json', schema) from @hono/zod-validator, a Zod schema per route (400 on failure)",
  generate({ routes, variant }: GenerateInput): string {
    const validated = variant === 'validated';
    const requires = validated ? `\nconst { zValidator } = require('@hono/zod-validator');\nconst { z } = require('zod');` : '';
    return `${fileHeader('hono', variant, routes)}
const { Hono } = require('hono');
const { serve } = require('@hono/node-server');${requires}
__csMark('imported');
const app = new Hono();
${eachRoute(routes, (i) => route(i, validated))}
__csMark('startup');
const server = serve({ fetch: app.fetch, hostname: __csHost, port: __csPort }, () => __csReady(server));
server.on('error', __csFail);
`;
  },
};

export default hono;
