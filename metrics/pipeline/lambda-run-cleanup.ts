/**
 * What a lambda:run leaves behind and how it is removed: the functions, log groups and role it created,
 * deleted only when provably the run's own, and what could not be deleted named with the command that removes it;
 * and the pool the calls run in.
 */
import type { LambdaApi } from '../cloud/lambda-api.ts';
import { logGroupOf, type LogsApi } from '../cloud/logs-api.ts';
import { madeByRun, RUN_TAG } from '../core/function-name.ts';

/** What the run created and has not deleted yet. */
export interface Created {
  functions: string[];
  /** the log groups Lambda makes for them (`/aws/lambda/<function>`), deleted with them */
  logGroups: string[];
  role?: string;
}

export const errorName = (error: unknown) => (error as { name?: string }).name ?? 'error';
export const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

/**
 * Delete what the run created; what could not be deleted, named (a log group with the command that removes it). A
 * function is deleted only when it is provably this run's (madeByRun: its name and its tag): one of the run's names
 * that CreateFunction found taken is another's, and left with its log group.
 */
export async function cleanUp(
  api: LambdaApi,
  logs: LogsApi,
  created: Created,
  run: { region: string; runId: string },
  warn: (line: string) => void,
): Promise<string[]> {
  const { region } = run;
  const left: string[] = [];
  const drop = (name: string) => {
    created.functions.splice(created.functions.indexOf(name), 1);
    const group = created.logGroups.indexOf(logGroupOf(name));
    if (group >= 0) created.logGroups.splice(group, 1);
  };
  for (const name of [...created.functions]) {
    try {
      const tag = await api.runTagOf(name);
      if (!madeByRun(name, tag) || tag !== run.runId) {
        warn(`not deleted: function ${name} (tagged ${RUN_TAG} ${tag ?? '(none)'}): not made by run ${run.runId}`);
        drop(name);
        continue;
      }
      await api.deleteFunction(name);
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') {
        left.push(`function ${name} (${errorName(error)}: ${firstLine(error)})`);
        continue;
      }
    }
    created.functions.splice(created.functions.indexOf(name), 1);
  }
  // after the functions: a function still there could write to its group again
  for (const group of [...created.logGroups]) {
    try {
      await logs.deleteLogGroup(group);
    } catch (error) {
      left.push(
        `log group ${group} (${errorName(error)}: ${firstLine(error)}): ` +
          `aws logs delete-log-group --region ${region} --log-group-name ${group}`,
      );
      continue;
    }
    created.logGroups.splice(created.logGroups.indexOf(group), 1);
  }
  if (created.role) {
    try {
      await api.deleteRole(created.role);
      delete created.role;
    } catch (error) {
      left.push(`role ${created.role} (${errorName(error)}: ${firstLine(error)})`);
    }
  }
  if (left.length) warn(`left in the account after the run (${left.length}):`);
  for (const line of left) warn(`  ${line}`);
  return left;
}

/** Run `work` over `items`, `limit` at a time; the first error stops new items and is thrown once all running ones end. */
export async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>, stop: () => void): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (failures.length === 0 && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        if (failures.push(error) === 1) stop();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  // the first failure is the cause; the others are the workers it stopped
  if (failures.length) throw failures[0] as Error;
}
