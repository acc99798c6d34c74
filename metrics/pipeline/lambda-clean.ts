/**
 * `lambda-clean` (npm run lambda:clean), the use case: every function lambda:run created (found by
 * its `coldstart:run` tag, one run's or every run's, *and* named as lambda:run names it: `coldstart-…-<run id>`,
 * the tag's run id: madeByRun) deleted with its log group (`/aws/lambda/<name>`,
 * made by Lambda and untagged: a group never made is not an error), and with `--roles` the roles it
 * created. The log group of a function that is already gone (a run killed between the two deletions,
 * or a function deleted by hand) has no tag to find it by: the log groups under `/aws/lambda/coldstart-`
 * are listed (bounded), and one is deleted only when its name is one lambda:run gives (a packaged
 * function's name, then the run id: runOfDeployedName) and Lambda answers that its function does not
 * exist; a group whose function exists is never touched (another run may be live). A dry run lists all of
 * it. A tag alone is no proof: a function that carries the tag under another name is listed ("not deleted: … not
 * named by coldstart") and left, with its log group. What cannot be deleted is named (a log group with its
 * `aws logs` command), and the command ends with exit 8.
 */
import { awsStop, sdkLambdaApi, type LambdaApi } from '../cloud/lambda-api.ts';
import { LOG_GROUPS_MAX_PAGES, LOG_GROUPS_PAGE_LIMIT, logGroupOf, sdkLogsApi, type LogsApi } from '../cloud/logs-api.ts';
import { EXIT_AWS_LEFT_BEHIND, ExitCodeError } from '../core/errors.ts';
import { FUNCTION_PREFIX, madeByRun, RUN_TAG, runOfDeployedName } from '../core/function-name.ts';

export interface LambdaCleanOptions {
  region: string;
  runId?: string;
  roles: boolean;
  dryRun: boolean;
}

export interface LambdaCleanDeps {
  /** the calls to AWS (default: the SDK's clients for the region) */
  api?: LambdaApi;
  /** the calls to CloudWatch Logs (default: the SDK's client for the region) */
  logs?: LogsApi;
  print: (line: string) => void;
  warn: (line: string) => void;
}

/** What every log group of a lambda:run function starts with: the only log groups lambda:clean lists. */
export const RUN_LOG_GROUP_PREFIX = logGroupOf(`${FUNCTION_PREFIX}-`);

const errorName = (error: unknown) => (error as { name?: string }).name ?? 'error';

/** The log groups under RUN_LOG_GROUP_PREFIX of `runId` (every run's when undefined) whose function no longer exists. */
async function groupsOfGoneFunctions(
  api: LambdaApi,
  names: string[],
  skip: Set<string>,
  runId: string | undefined,
): Promise<{ group: string; runId: string }[]> {
  const gone: { group: string; runId: string }[] = [];
  for (const group of names) {
    const fn = group.slice(logGroupOf('').length);
    const run = skip.has(fn) ? undefined : runOfDeployedName(fn, runId);
    if (!run) continue;
    let exists: boolean;
    try {
      exists = await api.functionExists(fn);
    } catch (error) {
      throw awsStop(error, `asking whether function ${fn} (of log group ${group}) still exists`);
    }
    if (!exists) gone.push({ group, runId: run.runId });
  }
  return gone;
}

/** The names of what was found; deleted unless a dry run. */
export async function cleanLambda(options: LambdaCleanOptions, deps: LambdaCleanDeps): Promise<string[]> {
  const { print, warn } = deps;
  const api = deps.api ?? sdkLambdaApi(options.region);
  const logs = deps.logs ?? sdkLogsApi(options.region);
  const which = options.runId ? `run ${options.runId}` : 'every run';
  let functions;
  let roles;
  let foreign;
  try {
    const tagged = await api.listTaggedFunctions(options.runId);
    // deleted only when its name is one lambda:run gives and its tag is that name's run
    functions = tagged.filter((f) => madeByRun(f.name, f.runId));
    foreign = tagged.filter((f) => !madeByRun(f.name, f.runId));
    roles = options.roles ? await api.listTaggedRoles(options.runId) : [];
  } catch (error) {
    throw awsStop(error, `listing the functions of ${which} in ${options.region}`);
  }
  let listed;
  try {
    listed = await logs.listLogGroups(RUN_LOG_GROUP_PREFIX);
  } catch (error) {
    throw awsStop(error, `listing the log groups under ${RUN_LOG_GROUP_PREFIX} in ${options.region}`);
  }
  if (!listed.complete) {
    warn(
      `more than ${LOG_GROUPS_MAX_PAGES * LOG_GROUPS_PAGE_LIMIT} log groups start with ${RUN_LOG_GROUP_PREFIX}: ` +
        'only the first were read; run lambda:clean again after this one',
    );
  }
  const existing = new Set(listed.names);
  for (const f of foreign) warn(`not deleted: function ${f.name} (tagged ${RUN_TAG} ${f.runId}): not named by coldstart`);
  const skip = new Set([...functions, ...foreign].map((f) => f.name));
  const gone = await groupsOfGoneFunctions(api, listed.names, skip, options.runId);
  const found = [
    ...functions.flatMap((f) => [
      `function ${f.name} (run ${f.runId})`,
      ...(existing.has(logGroupOf(f.name)) ? [`log group ${logGroupOf(f.name)} (its log group)`] : []),
    ]),
    ...gone.map((g) => `log group ${g.group} (run ${g.runId}; its function is gone)`),
    ...roles.map((r) => `role ${r.name} (run ${r.runId})`),
  ];
  print(`${found.length} resource(s) of ${which} in ${options.region}${found.length ? ':' : ''}`);
  for (const line of found) print(`  ${line}`);
  if (options.dryRun || found.length === 0) return found;
  const left: string[] = [];
  const deleteGroup = async (group: string) => {
    try {
      if (await logs.deleteLogGroup(group)) print(`deleted log group ${group}`);
    } catch (error) {
      left.push(`log group ${group} (${errorName(error)}): aws logs delete-log-group --region ${options.region} --log-group-name ${group}`);
    }
  };
  for (const fn of functions) {
    try {
      await api.deleteFunction(fn.name);
      print(`deleted function ${fn.name}`);
    } catch (error) {
      left.push(`function ${fn.name} (${errorName(error)})`);
    }
    await deleteGroup(logGroupOf(fn.name));
  }
  for (const { group } of gone) await deleteGroup(group);
  for (const role of roles) {
    try {
      await api.deleteRole(role.name);
      print(`deleted role ${role.name}`);
    } catch (error) {
      left.push(`role ${role.name} (${errorName(error)})`);
    }
  }
  for (const line of left) warn(`not deleted: ${line}`);
  if (left.length) throw new ExitCodeError(`${left.length} resource(s) could not be deleted`, EXIT_AWS_LEFT_BEHIND);
  return found;
}
