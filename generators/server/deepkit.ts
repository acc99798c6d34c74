import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { fileHeader } from '../probe.ts';
import { compileWithTypes, DEEPKIT_COMPILER } from '../typescript.ts';
import { withoutUseStrict } from './mion.ts';
import { patternOf, type RouteRow } from '../routes.ts';
import { TS_USER } from '../schema-idioms.ts';
import { answerOf, renderRoutes, shapedInput, userSupport, verb } from '../shape-render.ts';
import type { ShapeOptions } from '../write.ts';
import type { Variant } from '../../metrics/core/dimensions.ts';

/**
 * deepkit as its users write it: an `App` with `FrameworkModule` (its own http server), one
 * `router.post` per route on `HttpRouterRegistry`, the body declared as `HttpBody<{name: string}>`.
 * deepkit reads that type at runtime, so the app is TypeScript compiled with @deepkit/type-compiler
 * 1.0.19 (generators/typescript.ts); a plain JS handler would carry no type and deepkit would
 * silently skip validation. The probe stays plain JS on top.
 *
 * deepkit builds its router and body parsers on the FIRST request (growing faster than linearly
 * with N): that is what firstResponse shows, so nothing here warms it up.
 */

/**
 * Every shape (flat with the small schema is the classic file): path parameters are the handler's parameters by name, the body
 * `HttpBody<{name: string}>` or `HttpBody<User>` (the User type once per file); the nested shape
 * gives each route its group's `baseUrl` (what deepkit's controllers and `router.forOptions` set;
 * forOptions itself cannot be used: @deepkit/http 1.0.19's convertOptions drops its defaults, so its
 * routes lose the prefix).
 */
function deepkitShapedRoutes(input: GenerateInput): string {
  const { table, schema, validated } = shapedInput(input);
  const user = schema === 'user';
  const bodyType = validated ? (user ? 'User' : '{name: string}') : 'any';
  const line = (row: RouteRow, owner: string) => {
    const args = [
      ...row.segments.flatMap((s) => ('param' in s ? [`${s.param}: string`] : [])),
      ...(row.body ? [`body: HttpBody<${bodyType}>`] : []),
    ];
    const params = `{${row.segments.flatMap((s) => ('param' in s ? [s.param] : [])).join(', ')}}`;
    const path = row.group === undefined ? `'${patternOf(row)}'` : `{...${owner}, path: '${patternOf(row)}'}`;
    return `router.${verb(row)}(${path}, (${args.join(', ')}) => (${answerOf(row, schema, 'body', params)}));`;
  };
  const groups = {
    open: (g: number) => `const group${g} = {baseUrl: '/group-${g}'};`,
    owner: (g: number) => `group${g}`,
    close: () => '',
  };
  const update = user ? userSupport(schema).replace('function updateUser(user)', 'function updateUser(user: any)') : '';
  return `${user ? `${TS_USER}\n` : ''}const router = app.get(HttpRouterRegistry);${update}
${renderRoutes(table, 'router', line, groups).replace(/\n\n/g, '\n')}`;
}

/** The routes every deepkit app of both targets registers, on the `app` built before them. */
export function deepkitRoutes(routes: number, variant: Variant, shaped: ShapeOptions = {}): string {
  return deepkitShapedRoutes({ routes, variant, ...shaped });
}

export const DEEPKIT_VALIDATION =
  'HttpBody<{name: string}> read from the compiled TypeScript type (400 on failure); plain: HttpBody<any>, parsed but not checked';

/** The probe's globals, declared so the TypeScript reads them as typed (declarations emit nothing). */
export const PROBE_DECLARATIONS = `declare const __csHost: string;
declare const __csPort: number;
declare const __csMark: (name: string) => void;
declare const __csReady: (server: unknown) => void;
declare const __csFail: (error: unknown) => void;`;

export function deepkitSource(routes: number, variant: Variant, shaped: ShapeOptions = {}): string {
  return `import {App} from '@deepkit/app';
import {ApplicationServer, FrameworkModule} from '@deepkit/framework';
import {HttpBody, HttpRouterRegistry} from '@deepkit/http';

${PROBE_DECLARATIONS}

__csMark('imported');
const app = new App({
  imports: [new FrameworkModule({host: __csHost, port: __csPort, logStartup: false, httpLog: false})],
});
${deepkitRoutes(routes, variant, shaped)}
__csMark('startup');

// A listen error reaches deepkit's rpc WebSocketServer (attached to the http.Server inside start())
// before any listener of ours, and it re-emits it with no 'error' listener: an uncaught exception.
// Until the server is ready, that is a failed start.
process.once('uncaughtException', __csFail);
function ready(server: import('http').Server): void {
  process.removeListener('uncaughtException', __csFail);
  __csReady(server);
}
// ApplicationServer.start() resolves once its worker has called listen(), not once it is bound:
// the ready signal is the node http.Server's own.
const appServer = app.get(ApplicationServer);
appServer
  .start()
  .then(() => {
    const server = (appServer.getHttpWorker() as unknown as {server: import('http').Server}).server;
    server.on('error', __csFail);
    if (server.listening) ready(server);
    else server.once('listening', () => ready(server));
  })
  .catch(__csFail);
`;
}

/** The packages whose types the compiled source reads (their versions enter the compile cache key). */
export const DEEPKIT_TYPE_PACKAGES = ['@deepkit/http', '@deepkit/app', '@deepkit/framework', '@deepkit/type'];

const deepkit: FrameworkGenerator = {
  name: 'deepkit',
  target: 'server',
  packages: ['@deepkit/framework', '@deepkit/app', '@deepkit/http', '@deepkit/type', '@deepkit/filesystem'],
  validation: DEEPKIT_VALIDATION,
  generate({ routes, variant, shape, schema }: GenerateInput): string {
    const compiled = compileWithTypes(deepkitSource(routes, variant, { shape, schema }), DEEPKIT_COMPILER, {
      typePackages: DEEPKIT_TYPE_PACKAGES,
    });
    return `${fileHeader('deepkit', variant, routes)}\n${withoutUseStrict(compiled)}`;
  },
};

export default deepkit;
