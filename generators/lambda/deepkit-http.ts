import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import type { ShapeOptions } from '../write.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { compileWithTypes, DEEPKIT_COMPILER } from '../typescript.ts';
import { DEEPKIT_VALIDATION, deepkitRoutes } from '../server/deepkit.ts';
import { withoutUseStrict } from '../server/mion.ts';
import { H4AD } from './_adapters.ts';
import { DEEPKIT_HANDLER, DEEPKIT_NO_EAGER, DEEPKIT_LAMBDA_TYPE_PACKAGES, deepkitLambdaImports } from './deepkit.ts';
import type { Variant } from '../../metrics/core/dimensions.ts';

/**
 * deepkit's lighter setup on Lambda: `App` with `HttpModule` alone and the same typed routes as
 * the server target, its HttpKernel handed each event by @h4ad/serverless-adapter's
 * HttpDeepkitFramework (the server target wraps the same kernel in a node http.Server).
 */
export function deepkitHttpLambdaSource(routes: number, variant: Variant, shaped: ShapeOptions = {}): string {
  return `import {App} from '@deepkit/app';
import {HttpBody, HttpKernel, HttpModule, HttpRouterRegistry} from '@deepkit/http';
${deepkitLambdaImports()}

__csMark('imported');
const app = new App({imports: [new HttpModule()]});
${deepkitRoutes(routes, variant, shaped)}
__csMark('startup');
${DEEPKIT_HANDLER}
`;
}

const deepkitHttp: FrameworkGenerator = {
  name: 'deepkit-http',
  target: 'lambda',
  packages: ['@deepkit/http', '@deepkit/app', '@deepkit/type', H4AD],
  adapter: H4AD,
  validation: DEEPKIT_VALIDATION,
  noEagerInit: DEEPKIT_NO_EAGER,
  generate({ routes, variant, shape, schema }: GenerateInput): string {
    const source = deepkitHttpLambdaSource(routes, variant, { shape, schema });
    const compiled = compileWithTypes(source, DEEPKIT_COMPILER, { typePackages: DEEPKIT_LAMBDA_TYPE_PACKAGES });
    return `${lambdaFileHeader('deepkit-http', variant, routes)}\n${withoutUseStrict(compiled)}`;
  },
};

export default deepkitHttp;
