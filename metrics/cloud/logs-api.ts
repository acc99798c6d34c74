/**
 * The three CloudWatch Logs calls lambda:run and lambda:clean make, behind one small interface, and their
 * implementation with AWS's SDK for JavaScript v3 (`@aws-sdk/client-cloudwatch-logs`): every import of
 * that client is in this file. Like the Lambda client (lambda-api.ts), it takes its credentials from the
 * SDK's default chain and its endpoint from the SDK's standard settings
 * (`AWS_ENDPOINT_URL_CLOUDWATCH_LOGS`, `AWS_ENDPOINT_URL`).
 *
 * - **The REPORT fallback.** `Invoke` with `LogType: Tail` returns the last 4 KB of the invocation's
 *   log; a chatty handler pushes the REPORT line out of it. The same line is in the function's log
 *   group `/aws/lambda/<function>`: reportFromLogs asks FilterLogEvents for it with the filter pattern
 *   AWS documents for an exact phrase (`"REPORT RequestId: <id>"`, in double quotes), and since log
 *   events arrive seconds after the invocation, asks again with backoff until `waitS` has passed.
 *   Every answer is bounded before it is read: at most LOGS_PAGE_LIMIT events a page, LOGS_MAX_PAGES
 *   pages an attempt, and a message longer than LOGS_MAX_MESSAGE is skipped unread.
 * - **The log group.** Lambda creates `/aws/lambda/<function>` on the first invocation, untagged;
 *   deleteLogGroup removes it (a group never created is not an error). lambda:clean lists the groups under
 *   coldstart's prefix with listLogGroups (DescribeLogGroups, bounded like FilterLogEvents) to find those
 *   whose function is gone.
 */
import {
  CloudWatchLogsClient,
  DeleteLogGroupCommand,
  DescribeLogGroupsCommand,
  FilterLogEventsCommand,
  type FilterLogEventsCommandOutput,
} from '@aws-sdk/client-cloudwatch-logs';
import { EXIT_AWS_ACCESS, ExitCodeError } from '../core/errors.ts';
import { retryWithin } from './backoff.ts';
import { AwsDeadlineError, bounded } from './bounded-client.ts';
import { MAX_ATTEMPTS } from './lambda-api.ts';

/** Events asked for in one FilterLogEvents page: a request id has one REPORT line. */
export const LOGS_PAGE_LIMIT = 10;
/** Pages read in one attempt: FilterLogEvents may answer empty pages with a nextToken while it searches. */
export const LOGS_MAX_PAGES = 20;
/** The longest message read, characters: a REPORT line is about 200 (Lambda cuts an event at 256 KB). */
export const LOGS_MAX_MESSAGE = 4096;
/** Log groups asked for in one DescribeLogGroups page (its maximum). */
export const LOG_GROUPS_PAGE_LIMIT = 50;
/** DescribeLogGroups pages read by one listing: at most 1,000 log groups. */
export const LOG_GROUPS_MAX_PAGES = 20;
/** How far before the invocation the search starts, ms: the local clock may be behind AWS's. */
export const LOGS_CLOCK_SLACK_MS = 15 * 60 * 1000;

export interface LogEvent {
  timestamp: number;
  message: string;
}

export interface LogsPage {
  events: LogEvent[];
  nextToken?: string;
}

export interface FilterRequest {
  logGroup: string;
  filterPattern: string;
  /** ms since the epoch */
  startTime: number;
  nextToken?: string;
}

/** What lambda:run and lambda:clean ask of CloudWatch Logs. */
export interface LogsApi {
  /** One FilterLogEvents page (at most LOGS_PAGE_LIMIT events). */
  filter(request: FilterRequest, signal?: AbortSignal): Promise<LogsPage>;
  /** DeleteLogGroup; false when there was none (ResourceNotFoundException: never created, or gone). */
  deleteLogGroup(name: string): Promise<boolean>;
  /**
   * The names of the log groups that start with `prefix` (DescribeLogGroups' logGroupNamePrefix), at most
   * LOG_GROUPS_MAX_PAGES pages of LOG_GROUPS_PAGE_LIMIT; `complete` false when more pages were left unread.
   */
  listLogGroups(prefix: string): Promise<{ names: string[]; complete: boolean }>;
}

/** The log group Lambda writes a function's logs to (its default logging configuration, the one lambda:run keeps). */
export const logGroupOf = (functionName: string) => `/aws/lambda/${functionName}`;

/** The documented filter pattern for the REPORT line of one request: the exact phrase, in double quotes. */
export const reportFilterPattern = (requestId: string) => `"REPORT RequestId: ${requestId}"`;

/** How long one FilterLogEvents exchange may take, s, its retries included: an answer still coming then never ends. */
export const LOGS_CALL_DEADLINE_S = 60;

/** The SDK's client for one region, made on the first call; `callDeadlineS`: one call's deadline (LOGS_CALL_DEADLINE_S). */
export function sdkLogsApi(region: string, options: { callDeadlineS?: number } = {}): LogsApi {
  let client: CloudWatchLogsClient | undefined;
  const deadlineS = options.callDeadlineS ?? LOGS_CALL_DEADLINE_S;
  // every call with a deadline (FilterLogEvents: deadlineS) and every answer with a byte cap (bounded-client.ts)
  const logs = () =>
    (client ??= bounded(new CloudWatchLogsClient({ region, maxAttempts: MAX_ATTEMPTS, retryMode: 'adaptive' }), {
      service: 'CloudWatch Logs',
      deadlinesS: { FilterLogEvents: deadlineS },
    }));
  return {
    async filter(request, signal) {
      // the whole exchange has a deadline, not only an idle socket: an answer that never ends stops the run (exit 5)
      let answer: FilterLogEventsCommandOutput;
      try {
        answer = await logs().send(
          new FilterLogEventsCommand({
            logGroupName: request.logGroup,
            filterPattern: request.filterPattern,
            startTime: request.startTime,
            limit: LOGS_PAGE_LIMIT,
            ...(request.nextToken ? { nextToken: request.nextToken } : {}),
          }),
          signal ? { abortSignal: signal } : {},
        );
      } catch (error) {
        if (!(error instanceof AwsDeadlineError)) throw error;
        throw new ExitCodeError(
          `CloudWatch Logs' answer to FilterLogEvents on ${request.logGroup} did not end within ${error.deadlineS} s: stopped reading it`,
          EXIT_AWS_ACCESS,
        );
      }
      const events = (answer.events ?? [])
        .slice(0, LOGS_PAGE_LIMIT)
        .filter((e) => typeof e.message === 'string' && typeof e.timestamp === 'number')
        .map((e) => ({ timestamp: e.timestamp!, message: e.message! }));
      return { events, ...(answer.nextToken ? { nextToken: answer.nextToken } : {}) };
    },
    async listLogGroups(prefix) {
      const names: string[] = [];
      let nextToken: string | undefined;
      for (let page = 0; page < LOG_GROUPS_MAX_PAGES; page++) {
        const answer = await logs().send(
          new DescribeLogGroupsCommand({
            logGroupNamePrefix: prefix,
            limit: LOG_GROUPS_PAGE_LIMIT,
            ...(nextToken ? { nextToken } : {}),
          }),
        );
        for (const group of (answer.logGroups ?? []).slice(0, LOG_GROUPS_PAGE_LIMIT)) {
          // only what was asked for, whatever the answer holds
          if (typeof group.logGroupName === 'string' && group.logGroupName.startsWith(prefix)) names.push(group.logGroupName);
        }
        nextToken = answer.nextToken;
        if (!nextToken) return { names, complete: true };
      }
      return { names, complete: false };
    },
    async deleteLogGroup(name) {
      try {
        await logs().send(new DeleteLogGroupCommand({ logGroupName: name }));
        return true;
      } catch (error) {
        if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
        return false;
      }
    },
  };
}

export interface ReportWait {
  /** when the invocation was sent, ms since the epoch */
  invokedAt: number;
  /** how long to keep asking, s (0: ask once) */
  waitS: number;
  signal?: AbortSignal;
  /** the first delay between attempts, ms (doubled each time, at most 10 s: backoff.ts) */
  firstDelayMs?: number;
}

export type LogsReport = { ok: true; timestamp: number; message: string; attempts: number } | { ok: false; reason: string };

/** The REPORT line of `requestId` in the function's log group, asked for with backoff (backoff.ts) until `waitS` has passed. */
export async function reportFromLogs(api: LogsApi, functionName: string, requestId: string, wait: ReportWait): Promise<LogsReport> {
  const logGroup = logGroupOf(functionName);
  const request = { logGroup, filterPattern: reportFilterPattern(requestId), startTime: wait.invokedAt - LOGS_CLOCK_SLACK_MS };
  const prefix = `REPORT RequestId: ${requestId}`;
  const found = await retryWithin<LogEvent, string>(
    async () => {
      try {
        let nextToken: string | undefined;
        for (let page = 0; page < LOGS_MAX_PAGES; page++) {
          const answer = await api.filter({ ...request, ...(nextToken ? { nextToken } : {}) }, wait.signal);
          for (const event of answer.events) {
            if (event.message.length > LOGS_MAX_MESSAGE) continue;
            const message = event.message.replace(/\s+$/, '');
            if (message.startsWith(prefix)) return { done: true, value: { timestamp: event.timestamp, message } };
          }
          nextToken = answer.nextToken;
          if (!nextToken) break;
        }
        return { done: false, miss: 'not found' };
      } catch (error) {
        // the log group is made by Lambda with the first log event: not there yet is a miss like any other
        if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
        return { done: false, miss: `log group ${logGroup} not found` };
      }
    },
    {
      waitMs: wait.waitS * 1000,
      ...(wait.signal ? { signal: wait.signal } : {}),
      ...(wait.firstDelayMs ? { firstDelayMs: wait.firstDelayMs } : {}),
    },
  );
  if (found.ok) return { ok: true, ...found.value, attempts: found.attempts };
  return {
    ok: false,
    reason: `${found.miss} in CloudWatch Logs after ${found.attempts} attempt(s) over ${Math.round(found.elapsedMs / 1000)} s`,
  };
}
