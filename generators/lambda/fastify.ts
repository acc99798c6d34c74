import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { EAGER_FILE_END, eagerLambdaFileHeader, lambdaFileHeader } from '../lambda-probe.ts';
import { FASTIFY_VALIDATION, fastifyApp } from '../server/fastify.ts';

/**
 * fastify on Lambda as its docs show it: the server target's app, wrapped by @fastify/aws-lambda,
 * which injects each event into fastify (light-my-request, no socket). Lazy (the file as it always
 * was): fastify becomes ready (compiles its routes and schemas) on the first event. Eager: the
 * adapter's README, under "Lower cold start latency", exports the handler and then calls
 * `await app.ready()` at the top level of an ES module ("needs to be placed after awsLambdaFastify
 * call because of the decoration"), so that the work happens in INIT.
 */
const fastify: FrameworkGenerator = {
  name: 'fastify',
  target: 'lambda',
  packages: ['fastify', '@fastify/aws-lambda'],
  adapter: '@fastify/aws-lambda',
  validation: FASTIFY_VALIDATION,
  eagerInit: { call: 'await app.ready()', documented: '@fastify/aws-lambda README, "Lower cold start latency"' },
  generate(input: GenerateInput): string {
    const app = fastifyApp(input);
    if (input.init === 'eager') {
      return `${eagerLambdaFileHeader('fastify', input.variant, input.routes)}
${app.requires}
const awsLambdaFastify = require('@fastify/aws-lambda');${app.validation}
__csMark('imported');
${app.build}
export const handler = awsLambdaFastify(app);
await app.ready();
__csMark('startup');
${EAGER_FILE_END}`;
    }
    return `${lambdaFileHeader('fastify', input.variant, input.routes)}
${app.requires}
const awsLambdaFastify = require('@fastify/aws-lambda');${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
exports.handler = awsLambdaFastify(app);
`;
  },
};

export default fastify;
