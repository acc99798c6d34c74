/**
 * The least-privilege IAM policy docs/guide/lambda-run.md gives covers every AWS call lambda:run and
 * lambda:clean make: each `…Command` named in metrics/cloud/lambda-api.ts and logs-api.ts, mapped to
 * its IAM action through the SDK package that exports it, and the waiters' GetFunction. The logs
 * actions are granted on the run's log groups only, but for the listing lambda:clean makes (DescribeLogGroups).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as iam from '@aws-sdk/client-iam';
import * as lambda from '@aws-sdk/client-lambda';
import * as logs from '@aws-sdk/client-cloudwatch-logs';
import { ROOT } from '../support/in-process.ts';

interface Statement {
  Sid: string;
  Action: string | string[];
  Resource: string | string[];
}

function documentedPolicy(): Statement[] {
  const page = readFileSync(path.join(ROOT, 'docs', 'guide', 'lambda-run.md'), 'utf8');
  const section = page.slice(page.indexOf('## The IAM policy it needs'));
  const json = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  assert.ok(json, 'the policy block');
  return (JSON.parse(json) as { Statement: Statement[] }).Statement;
}

const list = (value: string | string[]) => (Array.isArray(value) ? value : [value]);

/** The IAM actions of the calls a source file names. */
function actionsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, 'metrics', 'cloud', file), 'utf8');
  const names = new Set([...text.matchAll(/\b([A-Z][A-Za-z]+)Command\b/g)].map((m) => m[1]!));
  return [...names].map((name) => {
    const command = `${name}Command`;
    if (command in lambda) return name === 'Invoke' ? 'lambda:InvokeFunction' : `lambda:${name}`;
    if (command in iam) return `iam:${name}`;
    assert.ok(command in logs, `${command} of ${file} is in none of the SDK clients`);
    return `logs:${name}`;
  });
}

describe("lambda:run's documented IAM policy", () => {
  it('allows every call the code makes', () => {
    const statements = documentedPolicy();
    const allowed = new Set(statements.flatMap((s) => list(s.Action)));
    const used = [...actionsOf('lambda-api.ts'), ...actionsOf('logs-api.ts'), 'lambda:GetFunction'];
    assert.ok(used.includes('logs:FilterLogEvents') && used.includes('logs:DeleteLogGroup') && used.includes('lambda:InvokeFunction'));
    assert.deepEqual(
      used.filter((action) => !allowed.has(action)),
      [],
    );
  });

  it('grants the logs actions on the log groups of the run’s functions only; the listing alone on log-group:*', () => {
    const logStatements = documentedPolicy().filter((s) => list(s.Action).some((a) => a.startsWith('logs:')));
    assert.ok(logStatements.length > 0);
    for (const s of logStatements) {
      // AWS authorizes DescribeLogGroups only on the wildcard ARN (it reads names, not events); it stands alone
      const resource = list(s.Action).includes('logs:DescribeLogGroups')
        ? 'arn:aws:logs:REGION:ACCOUNT:log-group:*'
        : 'arn:aws:logs:REGION:ACCOUNT:log-group:/aws/lambda/coldstart-*';
      if (resource.endsWith(':*')) assert.deepEqual(list(s.Action), ['logs:DescribeLogGroups']);
      assert.deepEqual(list(s.Resource), [resource]);
    }
  });
});
