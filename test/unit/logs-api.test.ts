/**
 * reportFromLogs (cloud/logs-api.ts): the REPORT line of one request id from a function's log group,
 * through a LogsApi that answers from a list: the documented filter pattern and log group, pages
 * followed, oversized and other requests' messages skipped, a group not there yet waited for, the
 * bounded wait given up with its reason, and an error that is not a miss thrown.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LOGS_MAX_MESSAGE,
  LOGS_MAX_PAGES,
  logGroupOf,
  reportFilterPattern,
  reportFromLogs,
  type FilterRequest,
  type LogsApi,
  type LogsPage,
} from '../../metrics/cloud/logs-api.ts';

const ID = '0f3c2a5e-1111-4a4a-9b9b-123456789abc';
const REPORT =
  `REPORT RequestId: ${ID}\tDuration: 3.21 ms\tBilled Duration: 250 ms\tMemory Size: 1024 MB\t` +
  'Max Memory Used: 61 MB\tInit Duration: 246.5 ms\t';

function api(answer: (request: FilterRequest, call: number) => LogsPage): LogsApi & { requests: FilterRequest[] } {
  const requests: FilterRequest[] = [];
  return {
    requests,
    filter(request) {
      requests.push(request);
      return Promise.resolve().then(() => answer(request, requests.length));
    },
    deleteLogGroup: () => Promise.resolve(true),
    listLogGroups: () => Promise.resolve({ names: [], complete: true }),
  };
}

const wait = { invokedAt: 1_800_000_000_000, waitS: 5, firstDelayMs: 5 };

describe('reportFromLogs', () => {
  it('asks the function log group with the exact-phrase pattern and follows pages to the REPORT line', async () => {
    const logs = api((request, call) =>
      call < 3
        ? { events: [{ timestamp: 1, message: `START RequestId: ${ID} Version: $LATEST\n` }], nextToken: `t${call}` }
        : { events: [{ timestamp: 42, message: `${REPORT}\n` }] },
    );
    const found = await reportFromLogs(logs, 'coldstart-hono-1-validated-ab', ID, wait);
    assert.deepEqual(found, { ok: true, timestamp: 42, message: REPORT.trimEnd(), attempts: 1 });
    assert.equal(logs.requests.length, 3);
    assert.equal(logs.requests[0]!.logGroup, '/aws/lambda/coldstart-hono-1-validated-ab');
    assert.equal(logs.requests[0]!.filterPattern, `"REPORT RequestId: ${ID}"`);
    assert.equal(logs.requests[0]!.startTime, wait.invokedAt - 15 * 60 * 1000);
    assert.deepEqual(
      logs.requests.map((r) => r.nextToken),
      [undefined, 't1', 't2'],
    );
    assert.equal(logGroupOf('f'), '/aws/lambda/f');
    assert.equal(reportFilterPattern('x'), '"REPORT RequestId: x"');
  });

  it('skips a message over LOGS_MAX_MESSAGE and another request’s REPORT; reads at most LOGS_MAX_PAGES pages an attempt', async () => {
    const other = REPORT.replace(ID, 'ffffffff-0000-0000-0000-000000000000');
    const logs = api(() => ({
      events: [
        { timestamp: 1, message: `${REPORT}${'x'.repeat(LOGS_MAX_MESSAGE)}` },
        { timestamp: 2, message: other },
      ],
      nextToken: 'more',
    }));
    const found = await reportFromLogs(logs, 'f', ID, { ...wait, waitS: 0 });
    assert.equal(found.ok, false);
    assert.equal(logs.requests.length, LOGS_MAX_PAGES);
  });

  it('waits with backoff while the log group is not there yet or the line has not arrived', async () => {
    const missing = Object.assign(new Error('The specified log group does not exist.'), { name: 'ResourceNotFoundException' });
    const logs = api((_, call) => {
      if (call === 1) throw missing;
      return call < 4 ? { events: [] } : { events: [{ timestamp: 7, message: REPORT }] };
    });
    const found = await reportFromLogs(logs, 'f', ID, wait);
    assert.equal(found.ok && found.attempts, 4);
  });

  it('gives up after the bounded wait with the reason, and throws what is not a miss', async () => {
    const logs = api(() => ({ events: [] }));
    const found = await reportFromLogs(logs, 'f', ID, { ...wait, waitS: 0.05 });
    assert.ok(!found.ok);
    assert.match(found.reason, /^not found in CloudWatch Logs after \d+ attempt\(s\) over 0 s$/);
    assert.ok(logs.requests.length >= 1 && logs.requests.length < 10, `${logs.requests.length} requests`);
    const denied = Object.assign(new Error('not authorized to perform: logs:FilterLogEvents'), { name: 'AccessDeniedException' });
    await assert.rejects(
      reportFromLogs(
        api(() => {
          throw denied;
        }),
        'f',
        ID,
        wait,
      ),
      denied,
    );
  });
});
