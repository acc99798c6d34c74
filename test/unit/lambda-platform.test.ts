/** The one architecture vocabulary: Lambda's names on every flag, `x86` accepted as the old name of x86_64. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../metrics/core/errors.ts';
import { ARCHITECTURE_CHOICES, parseArchitecture } from '../../metrics/core/lambda-platform.ts';

describe('parseArchitecture', () => {
  for (const [text, expected] of [
    ['x86_64', 'x86_64'],
    ['arm64', 'arm64'],
    ['x86', 'x86_64'],
    [' arm64 ', 'arm64'],
  ] as const) {
    it(`${JSON.stringify(text)} is ${expected}`, () => assert.equal(parseArchitecture('--arch', text), expected));
  }
  for (const text of ['mips', 'X86_64', 'aarch64', '']) {
    it(`${JSON.stringify(text)} is refused, naming the flag as typed`, () =>
      assert.throws(
        () => parseArchitecture('--architecture', text),
        (error: unknown) =>
          error instanceof UsageError &&
          error.message === `--architecture: "${text}" is not one of x86_64, arm64 (or x86, the old name of x86_64)`,
      ));
  }
  it('--help names the choices and the alias', () => assert.equal(ARCHITECTURE_CHOICES, 'x86_64 or arm64 (x86 = x86_64)'));
});
