import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { FASTIFY_VALIDATION, fastifyApp } from '../server/fastify.ts';

/**
 * fastify on Lambda as its docs show it: the server target's app, wrapped by @fastify/aws-lambda,
 * which injects each event into fastify (light-my-request, no socket). fastify becomes ready
 * (compiles its routes and schemas) on the first event: the adapter's README calls `app.ready()`
 * at the top level only in an ES module, as advice for provisioned concurrency, so it is not here.
 */
const fastify: FrameworkGenerator = {
  name: 'fastify',
  target: 'lambda',
  packages: ['fastify', '@fastify/aws-lambda'],
  adapter: '@fastify/aws-lambda',
  validation: FASTIFY_VALIDATION,
  generate(input: GenerateInput): string {
    const app = fastifyApp(input);
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
