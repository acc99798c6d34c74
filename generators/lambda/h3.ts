import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { lambdaFileHeader } from '../lambda-probe.ts';
import { H3_VALIDATION, h3App } from '../server/h3.ts';

/**
 * h3 v2 on Lambda: an H3 app is a fetch handler, and h3 serves through srvx (its `serve` is
 * srvx's), whose `srvx/aws-lambda` adapter turns each event into a web Request for `app.fetch`.
 * srvx is made by h3's authors; the server target's app, wrapped by it.
 */
const h3: FrameworkGenerator = {
  name: 'h3',
  target: 'lambda',
  packages: ['h3', 'srvx', 'zod'],
  adapter: 'srvx/aws-lambda',
  validation: H3_VALIDATION,
  noEagerInit:
    'no eager form: h3 adds each route to its rou3 tree as the file registers it, already in INIT;' +
    ' neither h3 nor srvx/aws-lambda documents an initialisation step',
  generate(input: GenerateInput): string {
    const app = h3App(input);
    return `${lambdaFileHeader('h3', input.variant, input.routes)}
${app.requires}
const { toLambdaHandler } = require('srvx/aws-lambda');${app.validation}
__csMark('imported');
${app.build}
__csMark('startup');
exports.handler = toLambdaHandler({ fetch: app.fetch });
`;
  },
};

export default h3;
