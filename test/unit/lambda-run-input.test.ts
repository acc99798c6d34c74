/**
 * lambda:run's input: which one a command line names (inputKindOf: one, never none or two, no flag of
 * another input), and meta.json's record of it read back (parseMetaSpec keeps the three kinds and drops
 * anything else, so a hand-edited or old meta.json still reads).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMetaSpec } from '../../metrics/core/meta-spec.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { inputKindOf, type GivenInputs } from '../../metrics/pipeline/lambda-run-inputs.ts';

const none: GivenInputs = { handler: {}, generated: {} };

describe('inputKindOf', () => {
  it('names the one input given', () => {
    assert.equal(inputKindOf({ ...none, packageDir: 'pkg' }), 'package');
    assert.equal(inputKindOf({ ...none, handler: { '--handler': true, '--event': true, '--cwd': true, '--name': true } }), 'handler');
    assert.equal(inputKindOf({ ...none, generated: { '--frameworks': true, '--routes': undefined } }), 'generated');
    assert.equal(inputKindOf({ ...none, generated: { '--init': true } }), 'generated');
  });

  it('refuses none, two, and a handler flag beside another input', () => {
    const refused = (given: GivenInputs, message: RegExp) =>
      assert.throws(
        () => inputKindOf(given),
        (error: unknown) => error instanceof UsageError && message.test(error.message),
      );
    refused(none, /^lambda:run needs one input/);
    refused({ ...none, packageDir: 'pkg', handler: { '--handler': true } }, /got a package folder \(pkg\) and --handler/);
    refused(
      { packageDir: 'pkg', handler: {}, generated: { '--routes': true } },
      /got a package folder \(pkg\) and generated cells \(--routes\)/,
    );
    refused({ handler: { '--handler': true }, generated: { '--variant': true } }, /got --handler and generated cells \(--variant\)/);
    refused({ ...none, packageDir: 'pkg', handler: { '--event': true } }, /^--event is for --handler only, not for a package folder$/);
    refused(
      { handler: { '--cwd': true, '--name': true }, generated: { '--frameworks': true } },
      /^--cwd, --name are for --handler only, not for generated cells$/,
    );
  });
});

describe("meta.json's lambda:run input", () => {
  const source = (input: unknown) =>
    parseMetaSpec({ source: { kind: 'imported', files: [], importedAt: 'x', samples: 's', warmup: 'w', order: 'o', input } }).source;

  it('keeps each kind with its fields', () => {
    for (const input of [
      { kind: 'package', folder: 'pkg' },
      { kind: 'handler', handlers: ['src/index.mjs (main, as orders)'], event: 'event.json' },
      { kind: 'generated', frameworks: ['fastify', 'hono'], routes: [1, 1000], variants: ['validated'], inits: ['lazy'] },
    ]) {
      assert.deepEqual((source(input) as { input?: unknown }).input, input);
    }
  });

  it('drops what is none of them, and an absent one stays absent', () => {
    for (const input of [undefined, null, 'pkg', { kind: 'package' }, { kind: 'other', folder: 'x' }, { kind: 'handler', handlers: [] }]) {
      assert.ok(!('input' in source(input)), JSON.stringify(input));
    }
  });
});
