/**
 * The few Lambda (and IAM) calls lambda:run and lambda:clean make, behind one small interface, and
 * their implementation with AWS's SDK for JavaScript v3. The clients take everything from the SDK's
 * own defaults: credentials from its default chain (environment, shared files, SSO, the instance's
 * role; never read, held or written by this tool), and the endpoint from the SDK's standard settings
 * (`AWS_ENDPOINT_URL_LAMBDA`, `AWS_ENDPOINT_URL_IAM`, `AWS_ENDPOINT_URL`), so any emulator of the
 * Lambda API can stand in for AWS. Throttling is retried by the SDK itself (adaptive retry mode, with
 * backoff, MAX_ATTEMPTS attempts); what is left of it is a quota error.
 *
 * Every error an AWS call ends with becomes one line and its documented exit code (awsFailure):
 * access denied (5), a quota or throttling past the retries (6), a function never Active (7).
 */
import {
  CreateFunctionCommand,
  DeleteFunctionCommand,
  GetFunctionCommand,
  GetFunctionConfigurationCommand,
  InvokeCommand,
  LambdaClient,
  ListFunctionsCommand,
  ListTagsCommand,
  UpdateFunctionConfigurationCommand,
  waitUntilFunctionActiveV2,
  waitUntilFunctionUpdatedV2,
  type FunctionConfiguration,
} from '@aws-sdk/client-lambda';
import {
  AttachRolePolicyCommand,
  CreateRoleCommand,
  DeleteRoleCommand,
  DetachRolePolicyCommand,
  IAMClient,
  ListRolesCommand,
  ListRoleTagsCommand,
} from '@aws-sdk/client-iam';
import { EXIT_AWS_ACCESS, EXIT_AWS_NEVER_ACTIVE, EXIT_AWS_QUOTA, ExitCodeError, UsageError } from '../core/errors.ts';
import { RUN_TAG } from '../core/function-name.ts';
import { AwsDeadlineError, bounded, CREATE_FUNCTION_DEADLINE_S } from './bounded-client.ts';
import type { Architecture } from '../core/lambda-platform.ts';

/** Attempts of one call, the first included, before throttling becomes a quota error. */
export const MAX_ATTEMPTS = 8;
/**
 * How long an invocation's answer may take to end, s: the function's own timeout (30 s), INIT's 10 s and room to spare.
 * An answer still streaming then is an endpoint that never ends it (exit 5), not a cold start to wait for.
 */
export const INVOKE_DEADLINE_S = 120;
/** Pages of one list call (50 functions or 100 roles a page) before its answer is taken as one that never ends. */
export const MAX_LIST_PAGES = 1000;
/** AWS's managed policy a created role gets (logs only), in the region's partition (China's and GovCloud's ARNs differ). */
export function basicExecutionPolicy(region: string): string {
  const partition = region.startsWith('cn-') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
  return `arn:${partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole`;
}

export interface NewFunction {
  name: string;
  zip: Uint8Array;
  role: string;
  runtime: string;
  architecture: Architecture;
  memory: number;
  handler: string;
  timeoutS: number;
  env: Record<string, string>;
  tags: Record<string, string>;
}

export interface Invocation {
  /** the log tail Lambda returned (X-Amz-Log-Result, decoded): the last 4 KB of the invocation's log */
  log: string;
  /** X-Amz-Function-Error (`Unhandled`) when the function failed */
  functionError?: string;
  /** the answer's x-amzn-RequestId: the invocation's request id, the one its REPORT line names */
  requestId?: string;
}

export interface TaggedFunction {
  name: string;
  arn: string;
  runId: string;
}

export interface TaggedRole {
  name: string;
  runId: string;
}

/** What lambda:run and lambda:clean ask of AWS. */
export interface LambdaApi {
  createFunction(fn: NewFunction): Promise<void>;
  /** Until the function is Active (after create) or its last update Successful; ExitCodeError 7 past `timeoutS` or when Failed. */
  waitReady(name: string, after: 'create' | 'update', timeoutS: number, signal?: AbortSignal): Promise<void>;
  updateConfiguration(name: string, memory: number, env: Record<string, string>): Promise<void>;
  invoke(name: string, payload: string, signal?: AbortSignal): Promise<Invocation>;
  /** Functions whose RUN_TAG is `runId` (any run's when undefined). */
  listTaggedFunctions(runId?: string): Promise<TaggedFunction[]>;
  deleteFunction(name: string): Promise<void>;
  /** GetFunction: false when Lambda has no function of that name (ResourceNotFoundException); any other error thrown. */
  functionExists(name: string): Promise<boolean>;
  /** The function's RUN_TAG (ListTags; undefined without one); ResourceNotFoundException when there is no such function. */
  runTagOf(name: string): Promise<string | undefined>;
  /** A role Lambda may assume, with the basic execution policy only, tagged; its ARN. */
  createRole(name: string, tags: Record<string, string>): Promise<string>;
  deleteRole(name: string): Promise<void>;
  listTaggedRoles(runId?: string): Promise<TaggedRole[]>;
}

const ACCESS = new Set([
  'AccessDeniedException',
  'AccessDenied',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'ExpiredTokenException',
  'ExpiredToken',
  'CredentialsProviderError',
]);
const QUOTA = new Set([
  'TooManyRequestsException',
  'ThrottlingException',
  'Throttling',
  'CodeStorageExceededException',
  'LimitExceededException',
  'LimitExceeded',
  'ServiceQuotaExceededException',
]);

/** An error's name and the first line of its message (at most 300 characters), as the one-line errors quote them. */
function nameAndLine(error: unknown, fallbackName: string): { name: string; message: string } {
  const name = (error as { name?: string }).name ?? fallbackName;
  const text = error instanceof Error ? error.message : (error as { message?: unknown }).message;
  return { name, message: (typeof text === 'string' ? text : String(error)).split('\n')[0]!.slice(0, 300) };
}

/** The one line and exit code of an AWS error; undefined when it is none of the documented ones. */
export function awsFailure(error: unknown, doing: string): ExitCodeError | undefined {
  if (error instanceof ExitCodeError) return error;
  const { name, message } = nameAndLine(error, '');
  if (ACCESS.has(name))
    return new ExitCodeError(`AWS refused ${doing}: ${name}: ${message} (the policy it needs: docs/guide/lambda-run.md)`, EXIT_AWS_ACCESS);
  if (QUOTA.has(name)) return new ExitCodeError(`an AWS quota or limit stopped ${doing}: ${name}: ${message}`, EXIT_AWS_QUOTA);
  if (name === 'TimeoutError' || name === 'WaiterTimeout')
    return new ExitCodeError(`${doing}: the function did not become ready in time (${message})`, EXIT_AWS_NEVER_ACTIVE);
  return undefined;
}

/**
 * What a call that cannot go on throws: a documented AWS error's line (awsFailure), else any other answer of an AWS
 * service (an SDK exception carries `$metadata`) as AWS refusing the call, exit 5, not a bug of the tool; else the error.
 */
export function awsStop(error: unknown, doing: string): unknown {
  const documented = awsFailure(error, doing);
  if (documented) return documented;
  if (typeof error !== 'object' || error === null || !('$metadata' in error)) return error;
  const { name, message } = nameAndLine(error, 'an error');
  return new ExitCodeError(`AWS refused ${doing}: ${name}: ${message}`, EXIT_AWS_ACCESS);
}

/**
 * CreateFunction's answer while a new role has not yet reached every IAM endpoint Lambda asks
 * (InvalidParameterValueException, "The role defined for the function cannot be assumed by Lambda."),
 * the same answer as for a role whose trust policy does not name lambda.amazonaws.com.
 */
export function isRoleNotAssumable(error: unknown): boolean {
  const name = (error as { name?: string }).name ?? '';
  const message = error instanceof Error ? error.message : String(error);
  return name === 'InvalidParameterValueException' && /cannot be assumed by Lambda/i.test(message);
}

function stateOf(config: FunctionConfiguration | undefined): string {
  const parts = [
    config?.State ? `State ${config.State}` : undefined,
    config?.StateReason ? `(${config.StateReason})` : undefined,
    config?.LastUpdateStatus ? `LastUpdateStatus ${config.LastUpdateStatus}` : undefined,
    config?.LastUpdateStatusReason ? `(${config.LastUpdateStatusReason})` : undefined,
  ];
  return parts.filter(Boolean).join(' ') || 'no state';
}

type LambdaCalls = Omit<LambdaApi, 'createRole' | 'deleteRole' | 'listTaggedRoles'>;
type IamCalls = Pick<LambdaApi, 'createRole' | 'deleteRole' | 'listTaggedRoles'>;

/**
 * The SDK's clients for one region (IAM's made only when used); `waitDelayS`: the waiters' first delay between polls
 * (1 s, AWS's own); `invokeDeadlineS`: how long an invocation's answer may take to end (INVOKE_DEADLINE_S).
 */
export function sdkLambdaApi(region: string, options: { waitDelayS?: number; invokeDeadlineS?: number } = {}): LambdaApi {
  const invokeDeadlineS = options.invokeDeadlineS ?? INVOKE_DEADLINE_S;
  // every call with a deadline and every answer with a byte cap (bounded-client.ts)
  const lambda = bounded(new LambdaClient({ region, maxAttempts: MAX_ATTEMPTS, retryMode: 'adaptive' }), {
    service: 'Lambda',
    deadlinesS: { Invoke: invokeDeadlineS, CreateFunction: CREATE_FUNCTION_DEADLINE_S },
  });
  let iamClient: IAMClient | undefined;
  const iam = () =>
    (iamClient ??= bounded(new IAMClient({ region, maxAttempts: MAX_ATTEMPTS, retryMode: 'adaptive' }), { service: 'IAM' }));
  return {
    ...lambdaCalls(lambda, options.waitDelayS ?? 1),
    ...iamCalls(iam, basicExecutionPolicy(region)),
  };
}

/**
 * The markers of a paged list call, checked: a marker seen before, or more than MAX_LIST_PAGES pages, is an answer
 * that never ends (exit 5), not a list to read on.
 */
function pageGuard(what: string): (marker: string | undefined) => string | undefined {
  const seen = new Set<string>();
  return (marker) => {
    if (marker === undefined) return undefined;
    if (seen.has(marker) || seen.size + 1 >= MAX_LIST_PAGES) {
      const why = seen.has(marker) ? 'a page marker it had given before' : `more than ${MAX_LIST_PAGES} pages`;
      throw new ExitCodeError(`AWS's list of ${what} does not end (${why}): stopped reading it`, EXIT_AWS_ACCESS);
    }
    seen.add(marker);
    return marker;
  };
}

/**
 * Invoke with LogType Tail; the whole exchange has a deadline (the client's, bounded-client.ts), not only an idle
 * socket: an answer that streams forever ends there.
 */
async function invokeBounded(lambda: LambdaClient, name: string, payload: string, signal?: AbortSignal) {
  try {
    return await lambda.send(
      new InvokeCommand({ FunctionName: name, LogType: 'Tail', Payload: new TextEncoder().encode(payload) }),
      signal ? { abortSignal: signal } : {},
    );
  } catch (error) {
    if (!(error instanceof AwsDeadlineError)) throw error;
    throw new ExitCodeError(
      `the answer to invoking ${name} did not end within ${error.deadlineS} s (the function's timeout is 30 s): stopped reading it`,
      EXIT_AWS_ACCESS,
    );
  }
}

function lambdaCalls(lambda: LambdaClient, minDelay: number): LambdaCalls {
  return {
    async createFunction(fn) {
      await lambda.send(
        new CreateFunctionCommand({
          FunctionName: fn.name,
          Role: fn.role,
          Runtime: fn.runtime as never,
          Architectures: [fn.architecture],
          MemorySize: fn.memory,
          Handler: fn.handler,
          Timeout: fn.timeoutS,
          Code: { ZipFile: fn.zip },
          Environment: { Variables: fn.env },
          Tags: fn.tags,
          Description: 'coldstart lambda:run (deleted at the end of the run; npm run lambda:clean removes leftovers)',
        }),
      );
    },

    async waitReady(name, after, timeoutS, signal) {
      const wait = after === 'create' ? waitUntilFunctionActiveV2 : waitUntilFunctionUpdatedV2;
      try {
        await wait(
          { client: lambda, maxWaitTime: timeoutS, minDelay, maxDelay: Math.max(minDelay, 5), ...(signal ? { abortSignal: signal } : {}) },
          { FunctionName: name },
        );
      } catch (error) {
        if (signal?.aborted) throw error;
        const failure = awsFailure(error, `waiting for ${name}`);
        if (failure && failure.exitCode !== EXIT_AWS_NEVER_ACTIVE) throw failure;
        // the waiter's error does not keep the last state: asked once more, to say it
        let state: FunctionConfiguration | undefined;
        try {
          state = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: name }));
        } catch {
          state = undefined;
        }
        const what = after === 'create' ? 'never became Active' : 'update never became Successful';
        throw new ExitCodeError(`function ${name} ${what} within ${timeoutS} s (${stateOf(state)})`, EXIT_AWS_NEVER_ACTIVE);
      }
    },

    async updateConfiguration(name, memory, env) {
      await lambda.send(
        new UpdateFunctionConfigurationCommand({ FunctionName: name, MemorySize: memory, Environment: { Variables: env } }),
      );
    },

    async invoke(name, payload, signal) {
      const answer = await invokeBounded(lambda, name, payload, signal);
      return {
        log: answer.LogResult ? Buffer.from(answer.LogResult, 'base64').toString('utf8') : '',
        ...(answer.FunctionError ? { functionError: answer.FunctionError } : {}),
        ...(answer.$metadata.requestId ? { requestId: answer.$metadata.requestId } : {}),
      };
    },

    listTaggedFunctions: (runId) => listTaggedFunctions(lambda, runId),

    async deleteFunction(name) {
      await lambda.send(new DeleteFunctionCommand({ FunctionName: name }));
    },

    async functionExists(name) {
      try {
        await lambda.send(new GetFunctionCommand({ FunctionName: name }));
        return true;
      } catch (error) {
        if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
        return false;
      }
    },

    async runTagOf(name) {
      // GetFunction's own Tags are left out without lambda:ListTags: asked for as lambda:clean asks, so a refusal is said
      const { FunctionArn } = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: name }));
      if (!FunctionArn) return undefined;
      const { Tags } = await lambda.send(new ListTagsCommand({ Resource: FunctionArn }));
      return Tags?.[RUN_TAG];
    },
  };
}

/** Functions whose RUN_TAG is `runId` (any run's when undefined): ListFunctions, then ListTags of each. */
async function listTaggedFunctions(lambda: LambdaClient, runId: string | undefined): Promise<TaggedFunction[]> {
  const found = new Map<string, TaggedFunction>();
  const next = pageGuard('functions');
  let marker: string | undefined;
  do {
    const page = await lambda.send(new ListFunctionsCommand({ ...(marker ? { Marker: marker } : {}), MaxItems: 50 }));
    for (const fn of page.Functions ?? []) {
      if (!fn.FunctionArn || !fn.FunctionName) continue;
      const { Tags } = await lambda.send(new ListTagsCommand({ Resource: fn.FunctionArn }));
      const tag = Tags?.[RUN_TAG];
      if (tag !== undefined && (runId === undefined || tag === runId))
        found.set(fn.FunctionArn, { name: fn.FunctionName, arn: fn.FunctionArn, runId: tag });
    }
    marker = next(page.NextMarker);
  } while (marker);
  return [...found.values()];
}

function iamCalls(iam: () => IAMClient, policy: string): IamCalls {
  return {
    async createRole(name, tags) {
      const trust = {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
      };
      const created = await iam().send(
        new CreateRoleCommand({
          RoleName: name,
          AssumeRolePolicyDocument: JSON.stringify(trust),
          Description: 'coldstart lambda:run: the functions of one run (logs only)',
          Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
        }),
      );
      await iam().send(new AttachRolePolicyCommand({ RoleName: name, PolicyArn: policy }));
      const arn = created.Role?.Arn;
      if (!arn) throw new UsageError(`IAM created role ${name} but returned no ARN`);
      return arn;
    },

    async deleteRole(name) {
      try {
        await iam().send(new DetachRolePolicyCommand({ RoleName: name, PolicyArn: policy }));
      } catch (error) {
        // a role whose policy was never attached (its attachment is what failed) is deleted all the same
        if ((error as { name?: string }).name !== 'NoSuchEntityException') throw error;
      }
      await iam().send(new DeleteRoleCommand({ RoleName: name }));
    },

    async listTaggedRoles(runId) {
      const found = new Map<string, TaggedRole>();
      const next = pageGuard('roles');
      let marker: string | undefined;
      do {
        const page = await iam().send(new ListRolesCommand({ PathPrefix: '/', ...(marker ? { Marker: marker } : {}) }));
        for (const role of page.Roles ?? []) {
          if (!role.RoleName?.startsWith('coldstart-')) continue;
          const { Tags } = await iam().send(new ListRoleTagsCommand({ RoleName: role.RoleName }));
          const tag = Tags?.find((t) => t.Key === RUN_TAG)?.Value;
          if (tag !== undefined && (runId === undefined || tag === runId)) found.set(role.RoleName, { name: role.RoleName, runId: tag });
        }
        marker = next(page.IsTruncated ? page.Marker : undefined);
      } while (marker);
      return [...found.values()];
    },
  };
}
