import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { compileWithTypes, MION_COMPILER } from '../typescript.ts';
import { MION_CONTRACT, MION_UNSUPPORTED, MION_VALIDATION, mionInstallHint, mionRoutes, withoutUseStrict } from '../server/mion.ts';
import { DEFAULT_SCHEMA, type Schema } from '../../metrics/core/dimensions.ts';

const PACKAGES = ['@mionkit/router', '@mionkit/aws'];

/**
 * mion on Lambda with its own binding, @mionkit/aws 0.7.2: the same typed routes as the server
 * target, dispatched by its `awsLambdaHandler`. Like @mionkit/http it is not on this registry, so
 * this file is generated only where it was installed by hand. That version reads the route from
 * `event.path` and the headers from `event.headers`: the payload 1.0 format, which its cells get
 * (eventFormat) and lambda:package deploys it with.
 */
export function mionLambdaSource(routes: number, schema: Schema = DEFAULT_SCHEMA): string {
  return `import {initRouter, registerRoutes} from '@mionkit/router';
import {awsLambdaHandler} from '@mionkit/aws';

declare const __csMark: (name: string) => void;

__csMark('imported');
${mionRoutes(routes, schema)}
__csMark('startup');
export const handler = awsLambdaHandler;
`;
}

/**
 * Why mion has no eager form: its router init, `initRouter()` then `registerRoutes(routes)`, is
 * synchronous and the lazy file already calls it at its top level (in INIT). @mionkit/aws 0.7.2
 * exports only `awsLambdaHandler` and its options (no init of its own), and mion documents no further
 * step: each route's validator and serializer compile on its first call (LazyFunctionReflection).
 */
const MION_NO_EAGER =
  "no eager form: mion's router init (initRouter, registerRoutes) is synchronous and already runs in INIT; " +
  "@mionkit/aws 0.7.2 has no init step, and a route's validator and serializer compile on its first call";

const mion: FrameworkGenerator = {
  name: 'mion',
  target: 'lambda',
  packages: PACKAGES,
  adapter: '@mionkit/aws',
  eventFormat: '1.0',
  validation: MION_VALIDATION,
  noEagerInit: MION_NO_EAGER,
  alwaysValidates: true,
  installHint: mionInstallHint(PACKAGES),
  contract: MION_CONTRACT,
  unsupportedShapes: MION_UNSUPPORTED,
  generate({ routes, variant, schema }: GenerateInput): string {
    const compiled = compileWithTypes(mionLambdaSource(routes, schema), MION_COMPILER);
    return `${lambdaFileHeader('mion', variant, routes)}\n${withoutUseStrict(compiled)}`;
  },
};

export default mion;
