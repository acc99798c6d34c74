/**
 * The hello-world reference function, on purpose outside the registry (it is no framework and
 * follows no route contract): exactly the handler maxday/lambda-perf deploys every day,
 * `exports.handler = () => ({statusCode: 200})`, after the Lambda probe. A run with Lambda cells
 * measures it under each of their settings, so the report can set it beside the same function's
 * real cold starts (metrics/calibration/lambda-reference.ts) and derive what Lambda adds.
 */
import { lambdaFileHeader } from './lambda-probe.ts';
import type { FrameworkGenerator } from './types.ts';
import { REFERENCE_FRAMEWORK } from '../metrics/core/lambda-platform.ts';

export const referenceGenerator: FrameworkGenerator = {
  name: REFERENCE_FRAMEWORK,
  target: 'lambda',
  packages: [],
  adapter: 'none',
  validation: 'none: the reference answers every event with statusCode 200 and no body',
  neverValidates: true,
  // the answer is lambda-perf's: a 200 without a body
  contract: { accepts: (status) => status === 200 },
  generate: ({ variant }) => `${lambdaFileHeader(REFERENCE_FRAMEWORK, variant, 1)}
__csMark('imported');
__csMark('startup');
exports.handler = () => {
  return {
    statusCode: 200
  };
};
`,
};
