/**
 * The environment Lambda gives a function's process, for a child driven by the runner's Runtime API
 * (server.ts): only the documented names, none of the credentials.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_REGION } from '../../core/lambda-platform.ts';

export interface LambdaEnvironmentOptions {
  /** AWS_LAMBDA_FUNCTION_NAME */
  functionName: string;
  /** AWS_LAMBDA_FUNCTION_MEMORY_SIZE, in MB */
  memoryMb: number;
  /** _HANDLER, `<file name without .js>.handler` */
  handler: string;
  /** LAMBDA_TASK_ROOT, the folder holding the function's code */
  taskRoot: string;
  /** AWS_REGION and AWS_DEFAULT_REGION (default us-east-1) */
  region?: string;
  /** AWS_EXECUTION_ENV, e.g. `AWS_Lambda_nodejs20.x` (omitted when not given) */
  executionEnv?: string;
  /** AWS_LAMBDA_LOG_STREAM_NAME (default: Lambda's form, today's UTC date and a random instance id) */
  logStreamName?: string;
}

/** The names lambdaEnvironment sets (AWS_EXECUTION_ENV only when given), for meta.json. */
export const LAMBDA_ENVIRONMENT_NAMES = [
  'AWS_LAMBDA_RUNTIME_API',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_EXECUTION_ENV',
  '_HANDLER',
  'LAMBDA_TASK_ROOT',
  'LANG',
  'TZ',
] as const;

/** A log stream name as Lambda forms it: `2026/01/31/[$LATEST]` and 32 hex digits. */
export function logStreamName(now = new Date()): string {
  const date = now.toISOString().slice(0, 10).replaceAll('-', '/');
  return `${date}/[$LATEST]${randomBytes(16).toString('hex')}`;
}

/**
 * The variables Lambda documents for a function's environment, for a child driven by the Runtime
 * API at `runtimeApi`. Only documented names; none of the credentials. To be merged over the
 * child's clean environment. (AWS's runtime interface client, aws-lambda-ric, refuses to start an
 * invocation without AWS_LAMBDA_LOG_STREAM_NAME.)
 */
export function lambdaEnvironment(runtimeApi: string, options: LambdaEnvironmentOptions): Record<string, string> {
  const region = options.region ?? DEFAULT_REGION;
  return {
    AWS_LAMBDA_RUNTIME_API: runtimeApi,
    AWS_LAMBDA_FUNCTION_NAME: options.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${options.functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: options.logStreamName ?? logStreamName(),
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    ...(options.executionEnv !== undefined ? { AWS_EXECUTION_ENV: options.executionEnv } : {}),
    _HANDLER: options.handler,
    LAMBDA_TASK_ROOT: options.taskRoot,
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
  };
}
