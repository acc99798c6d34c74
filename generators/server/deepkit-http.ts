import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import type { ShapeOptions } from '../write.ts';
import { fileHeader } from '../probe.ts';
import { compileWithTypes, DEEPKIT_COMPILER } from '../typescript.ts';
import { DEEPKIT_TYPE_PACKAGES, DEEPKIT_VALIDATION, deepkitRoutes, PROBE_DECLARATIONS } from './deepkit.ts';
import { withoutUseStrict } from './mion.ts';
import type { Variant } from '../../metrics/core/dimensions.ts';

/**
 * deepkit's lighter setup: `App` with `HttpModule` alone (no FrameworkModule), the same typed
 * routes as `deepkit`, served by a node http.Server that hands requests to deepkit's HttpKernel.
 * Compiled with @deepkit/type-compiler 1.0.19 like `deepkit`; the router and body parsers are
 * built on the first request here too.
 */
export function deepkitHttpSource(routes: number, variant: Variant, shaped: ShapeOptions = {}): string {
  return `import {Server} from 'http';
import {App} from '@deepkit/app';
import {HttpBody, HttpKernel, HttpModule, HttpRequest, HttpResponse, HttpRouterRegistry} from '@deepkit/http';

${PROBE_DECLARATIONS}

__csMark('imported');
const app = new App({imports: [new HttpModule()]});
${deepkitRoutes(routes, variant, shaped)}
__csMark('startup');

const kernel = app.get(HttpKernel);
const server = new Server(
  {IncomingMessage: HttpRequest, ServerResponse: HttpResponse} as any,
  (request: any, response: any) => kernel.handleRequest(request, response),
);
server.on('error', __csFail);
server.listen(__csPort, __csHost, () => __csReady(server));
`;
}

const deepkitHttp: FrameworkGenerator = {
  name: 'deepkit-http',
  target: 'server',
  packages: ['@deepkit/http', '@deepkit/app', '@deepkit/type'],
  validation: DEEPKIT_VALIDATION,
  generate({ routes, variant, shape, schema }: GenerateInput): string {
    const compiled = compileWithTypes(deepkitHttpSource(routes, variant, { shape, schema }), DEEPKIT_COMPILER, {
      typePackages: DEEPKIT_TYPE_PACKAGES,
    });
    return `${fileHeader('deepkit-http', variant, routes)}\n${withoutUseStrict(compiled)}`;
  },
};

export default deepkitHttp;
