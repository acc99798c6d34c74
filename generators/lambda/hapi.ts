import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { EAGER_FILE_END, eagerLambdaFileHeader, lambdaFileHeader } from '../lambda-probe.ts';
import { HAPI_VALIDATION, hapiApp } from '../server/hapi.ts';
import { H4AD, H4AD_MODULES, h4adHandler } from './_adapters.ts';

const H4AD_REQUIRES = [...H4AD_MODULES, ['HapiFramework', '@h4ad/serverless-adapter/frameworks/hapi']]
  .map(([name, module]) => `const { ${name} } = require('${module}');`)
  .join('\n');

/**
 * hapi on Lambda with @h4ad/serverless-adapter's HapiFramework, which hands each event to the
 * server's request listener; the server is never started (no socket). The server target's app
 * without host and port, wrapped as that adapter's docs show. Lazy (the file as it always was): hapi
 * starts its caches and finalises its plugins on no call at all. Eager: `await server.initialize()`
 * at the top level of an ES module, hapi's own call for a server that is not to listen (its API
 * reference: it starts the caches and finalises plugin registration); the adapter documents no step.
 */
const hapi: FrameworkGenerator = {
  name: 'hapi',
  target: 'lambda',
  packages: ['@hapi/hapi', H4AD, 'joi'],
  adapter: H4AD,
  validation: HAPI_VALIDATION,
  eagerInit: { call: 'await server.initialize()', documented: "hapi's API reference, server.initialize()" },
  generate(input: GenerateInput): string {
    const app = hapiApp(input, '');
    if (input.init === 'eager') {
      return `${eagerLambdaFileHeader('hapi', input.variant, input.routes)}
${app.requires}
${H4AD_REQUIRES}${app.validation}
__csMark('imported');
${app.build}
await server.initialize();
__csMark('startup');
${h4adHandler('server', 'HapiFramework', 'export const handler =')}
${EAGER_FILE_END}`;
    }
    return `${lambdaFileHeader('hapi', input.variant, input.routes)}
${app.requires}
${H4AD_REQUIRES}${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
${h4adHandler('server', 'HapiFramework', 'exports.handler =')}
`;
  },
};

export default hapi;
