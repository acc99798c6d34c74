import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { KOA_VALIDATION, koaApp } from '../server/koa.ts';
import { SERVERLESS_HTTP } from './_adapters.ts';

/** koa on Lambda: the server target's app (body parser, router, N routes) wrapped by serverless-http. */
const koa: FrameworkGenerator = {
  name: 'koa',
  target: 'lambda',
  packages: ['koa', '@koa/router', '@koa/bodyparser', SERVERLESS_HTTP, 'zod'],
  adapter: SERVERLESS_HTTP,
  validation: KOA_VALIDATION,
  noEagerInit:
    "no eager form: serverless-http composes koa's middleware (app.callback()) when the file wraps the app, already in INIT;" +
    ' neither koa, @koa/router nor serverless-http documents a further step',
  generate(input: GenerateInput): string {
    const app = koaApp(input);
    return `${lambdaFileHeader('koa', input.variant, input.routes)}
${app.requires}
const serverless = require('serverless-http');${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
exports.handler = serverless(app);
`;
  },
};

export default koa;
