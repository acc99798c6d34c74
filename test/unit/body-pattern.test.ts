/**
 * `--expect-body` runs on RE2 (re2js), whose matching time is linear in the body: a pattern that makes
 * JavaScript's backtracking RegExp take exponential time (`^(a+)+$` on `aaaa…b`) is answered at once
 * (the test asserts that it completes and what it answers, never a time: with RegExp it would not end).
 * What RE2 cannot express is refused before any sample (measure-usage.test.ts: exit 2, one line).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodyMatches, parseBodyPattern } from '../../metrics/core/app.ts';
import type { AppExpectation } from '../../metrics/core/app.ts';
import { answerProblem } from '../../metrics/measure/app-answer.ts';
import { UsageError } from '../../metrics/core/errors.ts';

describe('--expect-body: a linear-time engine', () => {
  it('answers a catastrophic-backtracking pattern on a long body', () => {
    // 100,000 a's then a b: a backtracking engine tries every way of splitting the a's among the groups
    const body = `${'a'.repeat(100_000)}b`;
    assert.equal(bodyMatches('^(a+)+$', body), false);
    assert.equal(bodyMatches('^(a|aa)+$', body), false);
    assert.equal(bodyMatches('^(a|a?)+b$', body), true);
    const expect: AppExpectation = { status: 200, bodyPattern: '^(a+)+$' };
    assert.match(answerProblem('GET /', expect, 200, body) ?? '', /its body does not match \/\^\(a\+\)\+\$\//);
  });

  it('matches anywhere in the body, as RegExp.test did for the patterns users give', () => {
    const body = '{"ok": true, "greeting":"hello coldstart"}';
    for (const pattern of ['"ok":\\s*true', '"greeting":"hello coldstart"', '^\\{', '\\}$', '(?i)HELLO'])
      assert.equal(bodyMatches(pattern, body), true, pattern);
    for (const pattern of ['"ok":false', '^"ok"', 'hello$']) assert.equal(bodyMatches(pattern, body), false, pattern);
    assert.equal(answerProblem('GET /', { status: 200, bodyPattern: '"ok":\\s*true' }, 200, body), undefined);
  });

  it('refuses what RE2 cannot run, naming the construct', () => {
    for (const [pattern, reason] of [
      ['(a)\\1', /invalid escape sequence: `\\1`/],
      ['a(?=b)', /unsupported Perl syntax: `\(\?=`/],
      ['a(?!b)', /unsupported Perl syntax: `\(\?!`/],
      ['(?<=a)b', /invalid named capture/],
    ] as const) {
      assert.throws(
        () => parseBodyPattern(pattern),
        (error: unknown) => error instanceof UsageError && reason.test(error.message) && !error.message.includes('\n'),
        pattern,
      );
    }
    assert.equal(parseBodyPattern('^(a+)+$'), '^(a+)+$');
  });
});
