import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { RESTIFY_NODE_LIMIT, RESTIFY_NO_GROUPS, RESTIFY_VALIDATION, restifyApp } from '../server/restify.ts';
import { SERVERLESS_HTTP } from './_adapters.ts';

/**
 * restify on Lambda with serverless-http, which lists restify among the frameworks it supports
 * (marked experimental) and hands each event to the server's request handler, without a socket.
 * The server target's app, wrapped by it.
 */
const restify: FrameworkGenerator = {
  name: 'restify',
  target: 'lambda',
  packages: ['restify', SERVERLESS_HTTP, 'zod'],
  adapter: SERVERLESS_HTTP,
  validation: RESTIFY_VALIDATION,
  noEagerInit:
    'no eager form: restify adds each route to its router as the file registers it, already in INIT;' +
    ' neither restify nor serverless-http documents an initialisation step',
  unsupportedShapes: { nested: RESTIFY_NO_GROUPS },
  nodeLimit: RESTIFY_NODE_LIMIT,
  generate(input: GenerateInput): string {
    const app = restifyApp(input);
    return `${lambdaFileHeader('restify', input.variant, input.routes)}
${app.requires}
const serverless = require('serverless-http');${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
exports.handler = serverless(server);
`;
  },
};

export default restify;
