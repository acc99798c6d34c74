import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { HONO_VALIDATION, honoApp } from '../server/hono.ts';

/**
 * hono on Lambda as its docs show it: the server target's app, its `fetch` called by `handle` from
 * hono/aws-lambda (part of hono), which turns each event into a web Request.
 */
const hono: FrameworkGenerator = {
  name: 'hono',
  target: 'lambda',
  packages: ['hono', '@hono/zod-validator', 'zod'],
  adapter: 'hono/aws-lambda',
  validation: HONO_VALIDATION,
  noEagerInit:
    "no eager form: hono's router builds its matcher on the first request (SmartRouter settles on a router then)," +
    ' and neither hono nor hono/aws-lambda documents a call that builds it in INIT',
  generate(input: GenerateInput): string {
    const app = honoApp(input);
    return `${lambdaFileHeader('hono', input.variant, input.routes)}
${app.requires}
const { handle } = require('hono/aws-lambda');${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
exports.handler = handle(app);
`;
  },
};

export default hono;
