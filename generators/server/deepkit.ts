import type { FrameworkGenerator, GenerateInput, Variant } from '../types.ts';
import { eachRoute, fileHeader } from '../probe.ts';
import { compileWithTypes, DEEPKIT_COMPILER } from '../typescript.ts';
import { withoutUseStrict } from './mion.ts';

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

/** The body type of a route: validated `{name: string}` (400 without it); plain `any`, parsed but not checked. */
export function bodyType(variant: Variant): string {
  return variant === 'validated' ? '{name: string}' : 'any';
}

export function deepkitRoute(i: number, variant: Variant): string {
  return `router.post('/route-${i}', (body: HttpBody<${bodyType(variant)}>) => ({hello: body.name, route: ${i}}));`;
}

/** The routes every deepkit app of both targets registers, on the `app` built before them. */
export function deepkitRoutes(routes: number, variant: Variant): string {
  return `const router = app.get(HttpRouterRegistry);
${eachRoute(routes, (i) => deepkitRoute(i, variant))}`;
}

export const DEEPKIT_VALIDATION =
  'HttpBody<{name: string}> read from the compiled TypeScript type (400 on failure); plain: HttpBody<any>, parsed but not checked';

/** The probe's globals, declared so the TypeScript reads them as typed (declarations emit nothing). */
export const PROBE_DECLARATIONS = `declare const __csHost: string;
declare const __csPort: number;
declare const __csMark: (name: string) => void;
declare const __csReady: (server: unknown) => void;
declare const __csFail: (error: unknown) => void;`;

export function deepkitSource(routes: number, variant: Variant): string {
  return `import {App} from '@deepkit/app';
import {ApplicationServer, FrameworkModule} from '@deepkit/framework';
import {HttpBody, HttpRouterRegistry} from '@deepkit/http';

${PROBE_DECLARATIONS}

__csMark('imported');
const app = new App({
  imports: [new FrameworkModule({host: __csHost, port: __csPort, logStartup: false, httpLog: false})],
});
${deepkitRoutes(routes, variant)}
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
  generate({ routes, variant }: GenerateInput): string {
    const compiled = compileWithTypes(deepkitSource(routes, variant), DEEPKIT_COMPILER, { typePackages: DEEPKIT_TYPE_PACKAGES });
    return `${fileHeader('deepkit', variant, routes)}\n${withoutUseStrict(compiled)}`;
  },
};

export default deepkit;
