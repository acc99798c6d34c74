import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { eachRoute, fileHeader } from '../probe.ts';

/**
 * h3 v2 as its users write it: `new H3()`, one `app.post` per route returning an object, served
 * with h3's own `serve()` (srvx on node:http; `ready()` resolves once it listens). In `validated`
 * each route has its own Zod schema, built at startup, passed to `readValidatedBody`, which
 * validates through Standard Schema and throws a 400 HTTPError on failure.
 */
function route(i: number, validated: boolean): string {
  if (!validated) {
    return `app.post('/route-${i}', async function route${i}(event) { const body = await readBody(event); return { hello: body.name, route: ${i} }; });`;
  }
  return (
    `const body${i} = z.object({ name: z.string() });\n` +
    `app.post('/route-${i}', async function route${i}(event) { const body = await readValidatedBody(event, body${i}); return { hello: body.name, route: ${i} }; });`
  );
}

const h3: FrameworkGenerator = {
  name: 'h3',
  description: "h3 v2 with its own router, served by its serve() (srvx on node:http)",
  packages: ['h3', 'zod'],
  validation: 'Zod schema per route (z.object, built at startup) through readValidatedBody (Standard Schema), 400 on failure',
  generate({ routes, variant }: GenerateInput): string {
    const validated = variant === 'validated';
    const requires = validated
      ? `const { H3, serve, readValidatedBody } = require('h3');\nconst { z } = require('zod');`
      : `const { H3, serve, readBody } = require('h3');`;
    return `${fileHeader('h3', variant, routes)}
${requires}
__csMark('imported');
const app = new H3();
${eachRoute(routes, (i) => route(i, validated))}
__csMark('startup');
const server = serve(app, { hostname: __csHost, port: __csPort, silent: true, gracefulShutdown: false });
server.ready().then(() => __csReady(server.node.server), __csFail);
`;
  },
};

export default h3;
