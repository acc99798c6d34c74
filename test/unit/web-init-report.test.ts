/** lambda:import's reading of Web Functions' platform.initReport (metrics/cloud/web-init-report.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseWebInitLine, parseWebInitReports, MAX_WEB_LOG_LINE } from '../../metrics/cloud/web-init-report.ts';

const log = readFileSync(new URL('../fixtures/web-functions/system-log.jsonl', import.meta.url), 'utf8');

test('both spellings of the INIT duration are read, one report per environment', () => {
  const parsed = parseWebInitReports(log);
  const fastify = parsed.reports.filter((r) => r.functionName === 'coldstart-web-fastify-1000-plain');
  assert.deepEqual(
    fastify.map((r) => [r.instanceId, r.initMs, r.field]),
    [
      ['env-a', 508.7, 'durationMs'],
      ['env-b', 531.2, 'initDurationMs'],
    ],
  );
  assert.equal(fastify[0]!.timestamp, '2026-09-25T11:12:31.402Z');
});

test('a failed INIT is kept with its status, error type and duration', () => {
  const { reports } = parseWebInitReports(log);
  const failed = reports.find((r) => r.status !== 'success');
  assert.deepEqual(
    { status: failed?.status, errorType: failed?.errorType, initMs: failed?.initMs },
    { status: 'timeout', errorType: 'Runtime.InitTimeout', initMs: 10000 },
  );
});

test('broken initReports are issues with their reason, other events and lines are skipped', () => {
  const parsed = parseWebInitReports(log);
  assert.equal(parsed.reports.length, 3);
  assert.equal(parsed.issueCount, 4);
  assert.match(parsed.issues.join('\n'), /metrics\.durationMs "fast" is not a duration/);
  assert.match(parsed.issues.join('\n'), /durationMs and metrics\.initDurationMs differ \(120\.5, 99\.1\)/);
  assert.match(parsed.issues.join('\n'), /without a functionName/);
  assert.match(parsed.issues.join('\n'), /not JSON/);
});

test('input is bounded: an overlong line is an issue, not parsed', () => {
  const line = `{"type":"platform.initReport","pad":"${'x'.repeat(MAX_WEB_LOG_LINE)}"}`;
  const item = parseWebInitLine(line);
  assert.equal(typeof item, 'string');
  assert.match(item as string, /characters \(at most/);
  assert.equal(parseWebInitLine('{"type":"platform.report"}'), undefined);
});
