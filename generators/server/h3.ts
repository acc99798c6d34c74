import type { AppParts } from '../app.ts';
import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { fileHeader } from '../probe.ts';
import { patternOf, type RouteRow } from '../routes.ts';
import { ZOD_USER } from '../schema-idioms.ts';
import { answerOf, renderRoutes, shapedInput, userSupport, verb } from '../shape-render.ts';

/**
 * h3 v2 as its users write it: `new H3()`, one `app.post` per route returning an object, served
 * with h3's own `serve()` (srvx on node:http; `ready()` resolves once it listens). In `validated`
 * each route has its own Zod schema, built at startup, passed to `readValidatedBody`, which
 * validates through Standard Schema and throws a 400 HTTPError on failure.
 */

/**
 * Every shape (flat with the small schema is the classic file): the small schema per route (its own `bodyN` as in the classic
 * files), the user schema once (`UserSchema`); the nested shape registers each group on its own
 * H3, mounted with `app.mount(prefix, group)`.
 */
export function h3App(input: GenerateInput, names: string[] = []): AppParts {
  const { table, schema, validated } = shapedInput(input);
  const user = schema === 'user';
  const line = (row: RouteRow, owner: string) => {
    const answer = answerOf(row, schema, 'body', 'event.context.params');
    const read = !row.body
      ? ''
      : validated
        ? `const body = await readValidatedBody(event, ${user ? 'UserSchema' : `body${row.i}`}); `
        : 'const body = await readBody(event); ';
    const own = validated && row.body && !user ? `const body${row.i} = z.object({ name: z.string() });\n` : '';
    return `${own}${owner}.${verb(row)}('${patternOf(row)}', async function route${row.i}(event) { ${read}return ${answer}; });`;
  };
  const groups = {
    open: (g: number) => `const group${g} = new H3();`,
    owner: (g: number) => `group${g}`,
    close: (g: number) => `app.mount('/group-${g}', group${g});`,
  };
  const imports = ['H3', ...names, validated ? 'readValidatedBody' : 'readBody'].join(', ');
  return {
    requires: `const { ${imports} } = require('h3');`,
    validation: validated ? `\nconst { z } = require('zod');` : '',
    build: `const app = new H3();${validated && user ? `\n${ZOD_USER}` : ''}${userSupport(schema)}
${renderRoutes(table, 'app', line, groups)}`,
  };
}

export const H3_VALIDATION =
  'Zod schema per route (z.object, built at startup) through readValidatedBody (Standard Schema), 400 on failure';

const h3: FrameworkGenerator = {
  name: 'h3',
  target: 'server',
  packages: ['h3', 'zod'],
  validation: H3_VALIDATION,
  generate(input: GenerateInput): string {
    const app = h3App(input, ['serve']);
    return `${fileHeader('h3', input.variant, input.routes)}
${app.requires}${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
const server = serve(app, { hostname: __csHost, port: __csPort, silent: true, gracefulShutdown: false });
server.ready().then(() => __csReady(server.node.server), __csFail);
`;
  },
};

export default h3;
