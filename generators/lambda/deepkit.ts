import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import type { ShapeOptions } from '../write.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { compileWithTypes, DEEPKIT_COMPILER } from '../typescript.ts';
import { DEEPKIT_TYPE_PACKAGES, DEEPKIT_VALIDATION, deepkitRoutes } from '../server/deepkit.ts';
import { withoutUseStrict } from '../server/mion.ts';
import { H4AD, H4AD_MODULES, h4adHandler } from './_adapters.ts';
import type { Variant } from '../../metrics/core/dimensions.ts';

/** The imports and declarations both deepkit Lambda files start with (TypeScript, compiled with deepkit types). */
export function deepkitLambdaImports(): string {
  return [
    ...H4AD_MODULES.map(([name, module]) => `import {${name}} from '${module}';`),
    `import {HttpDeepkitFramework} from '@h4ad/serverless-adapter/frameworks/deepkit';`,
    '',
    'declare const __csMark: (name: string) => void;',
  ].join('\n');
}

/** The packages whose types a deepkit Lambda source may read: their versions enter the compile cache key. */
export const DEEPKIT_LAMBDA_TYPE_PACKAGES = [...DEEPKIT_TYPE_PACKAGES, H4AD];

/** The exported handler: the app's HttpKernel behind @h4ad/serverless-adapter's HttpDeepkitFramework. */
export const DEEPKIT_HANDLER = h4adHandler('app.get(HttpKernel)', 'HttpDeepkitFramework', 'export const handler =');

/**
 * Why deepkit has no eager form (both its Lambda files). Its documented bootstrap, the service
 * container (each module's process and postProcess, the bootstrap classes: deepkit's App docs,
 * "modules"), runs at `app.get(HttpKernel)`, which the lazy file already calls at its top level. What
 * the first event adds, HttpRouter compiling its route matcher on its first `resolveRequest`, has no
 * documented call in deepkit 1.0.19 nor on @h4ad/serverless-adapter's deepkit page.
 */
export const DEEPKIT_NO_EAGER =
  "no eager form: deepkit's documented bootstrap (the service container, at app.get(HttpKernel)) already runs in INIT; " +
  'deepkit 1.0.19 and @h4ad/serverless-adapter document no call that builds the router before the first request ' +
  '(HttpRouter compiles it on its first resolveRequest)';

/**
 * deepkit (App with FrameworkModule) on Lambda, as @h4ad/serverless-adapter's deepkit page shows
 * it: the same typed routes as the server target, the app's HttpKernel handed each event by
 * HttpDeepkitFramework; the application server is never started (no socket). The router and body
 * parsers are built on the first event, as on the server.
 */
export function deepkitLambdaSource(routes: number, variant: Variant, shaped: ShapeOptions = {}): string {
  return `import {App} from '@deepkit/app';
import {FrameworkModule} from '@deepkit/framework';
import {HttpBody, HttpKernel, HttpRouterRegistry} from '@deepkit/http';
${deepkitLambdaImports()}

__csMark('imported');
const app = new App({
  imports: [new FrameworkModule({logStartup: false, httpLog: false})],
});
${deepkitRoutes(routes, variant, shaped)}
__csMark('startup');
${DEEPKIT_HANDLER}
`;
}

const deepkit: FrameworkGenerator = {
  name: 'deepkit',
  target: 'lambda',
  packages: ['@deepkit/framework', '@deepkit/app', '@deepkit/http', '@deepkit/type', '@deepkit/filesystem', H4AD],
  adapter: H4AD,
  validation: DEEPKIT_VALIDATION,
  noEagerInit: DEEPKIT_NO_EAGER,
  generate({ routes, variant, shape, schema }: GenerateInput): string {
    const source = deepkitLambdaSource(routes, variant, { shape, schema });
    const compiled = compileWithTypes(source, DEEPKIT_COMPILER, { typePackages: DEEPKIT_LAMBDA_TYPE_PACKAGES });
    return `${lambdaFileHeader('deepkit', variant, routes)}\n${withoutUseStrict(compiled)}`;
  },
};

export default deepkit;
