import type { Contract, FrameworkGenerator, GenerateInput } from '../types.ts';
import { eachRoute, fileHeader } from '../probe.ts';
import { TS_USER } from '../schema-idioms.ts';
import { userSupport } from '../shape-render.ts';
import { compileWithTypes, MION_COMPILER } from '../typescript.ts';
import { DEFAULT_SCHEMA, type Schema } from '../../metrics/core/dimensions.ts';

/**
 * mion as its users write it: an RPC router whose route ids are the paths (`POST /route-7`), the
 * body an array of the route's parameters (`{"route-7": ["ada"]}`), the answer under the route id.
 * Its routes are typed TypeScript functions: mion reads their parameter and return types at
 * runtime (@deepkit/type 1.0.1-alpha.97) to validate and serialize, and refuses a route without
 * them ("No valid runtime type for function"). So the app is written in TypeScript and compiled
 * with the matching type compiler (generators/typescript.ts); the probe stays plain JS on top.
 *
 * mion always validates: `plain` is the same code as `validated` (alwaysValidates). With the user
 * schema a route's one parameter is the User type (declared once per file), its answer the updated
 * User beside hello and route: mion validates the body against the type (dates as ISO strings,
 * the payment methods' discriminated union) and serializes the answer from the return type.
 *
 * Route annotations use no imported types, and the app never imports @deepkit/type (it would
 * resolve to the project's 1.0.19, not the alpha.97 mion loads).
 */
function route(i: number, schema: Schema): string {
  if (schema !== 'user') return `  'route-${i}': (ctx, name: string): {hello: string; route: number} => ({hello: name, route: ${i}}),`;
  const answer = `{hello: user.username, route: ${i}, user: updateUser(user)}`;
  return `  'route-${i}': (ctx, user: User): {hello: string; route: number; user: User} => (${answer}),`;
}

/** The routes both targets register: the object of N typed routes, then the router set up with it. */
export function mionRoutes(routes: number, schema: Schema = DEFAULT_SCHEMA): string {
  const user =
    schema === 'user'
      ? `${TS_USER}${userSupport(schema).replace('function updateUser(user)', 'function updateUser(user: User): User')}\n`
      : '';
  return `${user}const routes = {
${eachRoute(routes, (i) => route(i, schema))}
};
initRouter();
registerRoutes(routes);`;
}

export const MION_VALIDATION = 'always: parameters and return value validated from the compiled TypeScript types (plain is the same code)';

/** Where mion's packages come from; also the install hint of the Lambda target, which adds @mionkit/aws. */
export function mionInstallHint(packages: string[]): string {
  const names = packages.join(', ').replace(/, ([^,]*)$/, ' and $1');
  return (
    `mion is not on this registry: build ${names} 0.7.2 (with @mionkit/core, runtype and reflection) ` +
    'from their public source and npm install --no-save the tarballs'
  );
}

/** The app's TypeScript source; the probe's globals are declared so they read as typed. */
export function mionSource(routes: number, schema: Schema = DEFAULT_SCHEMA): string {
  return `import {initRouter, registerRoutes} from '@mionkit/router';
import {setNodeHttpOpts, startNodeServer} from '@mionkit/http';

declare const __csHost: string;
declare const __csPort: number;
declare const __csMark: (name: string) => void;
declare const __csReady: (server: unknown) => void;
declare const __csFail: (error: unknown) => void;

__csMark('imported');
${mionRoutes(routes, schema)}
__csMark('startup');

// @mionkit/http 0.7.2 calls server.listen(httpOptions.port, callback) with no host (all
// interfaces). node's listen also takes an options object in that first place, so passing
// {host, port} as the "port" binds 127.0.0.1 without patching anything (its type says number).
setNodeHttpOpts({port: {host: __csHost, port: __csPort} as unknown as number});
// startNodeServer prints a banner with console.log before listening: stdout is the probe's.
const log = console.log;
console.log = () => undefined;
let started: Promise<unknown>;
try {
  started = startNodeServer();
} finally {
  console.log = log;
}
started.then((server) => __csReady(server), __csFail);
`;
}

/**
 * mion's RPC request shape: the body is `{"route-<i>": [params]}` (`[name]`, or `[user]` for the user
 * schema), an empty parameter list is invalid.
 */
export const MION_CONTRACT: Partial<Contract> = {
  validBody: (i, name) => ({ [`route-${i}`]: [name] }),
  invalidBody: (i) => ({ [`route-${i}`]: [] }),
  envelope: (i, payload) => ({ [`route-${i}`]: [payload] }),
};

/**
 * The shapes mion is not written in: it is RPC (a route is an id answered by POST: no path
 * parameters, no methods), and its nested route objects name one route, not a prefix
 * (@mionkit/core 0.7.2 joins the keys with '-': `{'group-0': {'route-3': …}}` is `/group-0-route-3`).
 */
export const MION_UNSUPPORTED = {
  params: 'mion is RPC: a route is an id answered by POST, with no path parameters',
  rest: 'mion is RPC: a route is an id answered by POST, with no HTTP methods per resource',
  nested: 'mion is RPC: nested route objects join their keys into one route id (/group-0-route-3), with no group path prefix',
} as const;

/** The compiled output starts with its own "use strict": the header already has one. */
export function withoutUseStrict(js: string): string {
  return js.replace(/^"use strict";\r?\n/, '');
}

const mion: FrameworkGenerator = {
  name: 'mion',
  target: 'server',
  packages: ['@mionkit/router', '@mionkit/http'],
  validation: MION_VALIDATION,
  alwaysValidates: true,
  installHint: mionInstallHint(['@mionkit/router', '@mionkit/http']),
  contract: MION_CONTRACT,
  unsupportedShapes: MION_UNSUPPORTED,
  generate({ routes, variant, schema }: GenerateInput): string {
    const compiled = compileWithTypes(mionSource(routes, schema), MION_COMPILER);
    return `${fileHeader('mion', variant, routes)}\n${withoutUseStrict(compiled)}`;
  },
};

export default mion;
