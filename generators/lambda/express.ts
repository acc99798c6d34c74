import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { EXPRESS_VALIDATION, expressApp } from '../server/express.ts';
import { SERVERLESS_HTTP } from './_adapters.ts';

/**
 * express on Lambda: the server target's app wrapped by serverless-http, which turns each event
 * into a node request/response pair and runs the app on it without a socket (why serverless-http
 * rather than @codegenie/serverless-express: see _adapters.ts).
 */
const express: FrameworkGenerator = {
  name: 'express',
  target: 'lambda',
  packages: ['express', SERVERLESS_HTTP, 'zod'],
  adapter: SERVERLESS_HTTP,
  validation: EXPRESS_VALIDATION,
  noEagerInit:
    'no eager form: express adds each route to its router as the file registers it, already in INIT;' +
    ' neither express nor serverless-http documents an initialisation step',
  generate(input: GenerateInput): string {
    const app = expressApp(input);
    return `${lambdaFileHeader('express', input.variant, input.routes)}
${app.requires}
const serverless = require('serverless-http');${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
exports.handler = serverless(app);
`;
  },
};

export default express;
