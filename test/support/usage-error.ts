/** A usage error as the CLI must give it, from a real process or from main() in-process: exit 2, one line, no stack. */
import assert from 'node:assert/strict';

export function assertUsageError(code: number | null, stderr: string, message: RegExp): void {
  assert.equal(code, 2, stderr);
  assert.match(stderr, message);
  assert.equal(stderr.trim().split('\n').length, 1, `one line: ${stderr}`);
  assert.match(stderr, /^coldstart: /);
  assert.doesNotMatch(stderr, /\n\s+at /);
}
