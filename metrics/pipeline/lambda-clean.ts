/**
 * `lambda-clean` (npm run lambda:clean), the use case: every function lambda:run created (found by
 * its `coldstart:run` tag, one run's or every run's) deleted with its log group (`/aws/lambda/<name>`,
 * made by Lambda and untagged: a group never made is not an error), and with `--roles` the roles it
 * created. What cannot be deleted is named (a log group with its `aws logs` command), and the command
 * ends with exit 8.
 */
import { awsStop, sdkLambdaApi, type LambdaApi } from '../cloud/lambda-api.ts';
import { logGroupOf, sdkLogsApi, type LogsApi } from '../cloud/logs-api.ts';
import { EXIT_AWS_LEFT_BEHIND, ExitCodeError } from '../core/errors.ts';

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

/** The names of what was found; deleted unless a dry run. */
export async function cleanLambda(options: LambdaCleanOptions, deps: LambdaCleanDeps): Promise<string[]> {
  const { print, warn } = deps;
  const api = deps.api ?? sdkLambdaApi(options.region);
  const logs = deps.logs ?? sdkLogsApi(options.region);
  const which = options.runId ? `run ${options.runId}` : 'every run';
  let functions;
  let roles;
  try {
    functions = await api.listTaggedFunctions(options.runId);
    roles = options.roles ? await api.listTaggedRoles(options.runId) : [];
  } catch (error) {
    throw awsStop(error, `listing the functions of ${which} in ${options.region}`);
  }
  const found = [...functions.map((f) => `function ${f.name} (run ${f.runId})`), ...roles.map((r) => `role ${r.name} (run ${r.runId})`)];
  print(`${found.length} resource(s) of ${which} in ${options.region}${found.length ? ':' : ''}`);
  for (const line of found) print(`  ${line}`);
  if (options.dryRun || found.length === 0) return found;
  const left: string[] = [];
  for (const fn of functions) {
    try {
      await api.deleteFunction(fn.name);
      print(`deleted function ${fn.name}`);
    } catch (error) {
      left.push(`function ${fn.name} (${(error as { name?: string }).name ?? 'error'})`);
    }
    const group = logGroupOf(fn.name);
    try {
      if (await logs.deleteLogGroup(group)) print(`deleted log group ${group}`);
    } catch (error) {
      const name = (error as { name?: string }).name ?? 'error';
      left.push(`log group ${group} (${name}): aws logs delete-log-group --region ${options.region} --log-group-name ${group}`);
    }
  }
  for (const role of roles) {
    try {
      await api.deleteRole(role.name);
      print(`deleted role ${role.name}`);
    } catch (error) {
      left.push(`role ${role.name} (${(error as { name?: string }).name ?? 'error'})`);
    }
  }
  for (const line of left) warn(`not deleted: ${line}`);
  if (left.length) throw new ExitCodeError(`${left.length} resource(s) could not be deleted`, EXIT_AWS_LEFT_BEHIND);
  return found;
}
