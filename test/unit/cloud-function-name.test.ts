import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadGenerators } from '../../generators/registry.ts';
import {
  functionInFileName,
  functionName,
  FunctionNameError,
  functionOfLogGroup,
  MAX_FUNCTION_NAME,
  parseFunctionName,
} from '../../metrics/core/function-name.ts';
import { VARIANTS } from '../../metrics/core/dimensions.ts';

describe('Lambda function names', () => {
  it('round-trips every registered framework, variant and a spread of route counts', async () => {
    const generators = await loadGenerators();
    assert.ok(generators.length >= 10);
    for (const { name: framework } of generators) {
      for (const variant of VARIANTS) {
        for (const routes of [1, 10, 100, 1000, 100_000]) {
          const cell = { framework, variant, routes };
          const name = functionName(cell);
          assert.match(name, /^[A-Za-z0-9_-]{1,64}$/, `${name} is a valid Lambda function name`);
          assert.deepEqual(parseFunctionName(name), cell);
        }
      }
    }
  });

  it('an eager function ends in -eager and parses back to init eager; a lazy one keeps the name it always had', () => {
    const eager = functionName({ framework: 'fastify', variant: 'validated', routes: 1000, init: 'eager' });
    assert.equal(eager, 'coldstart-fastify-1000-validated-eager');
    assert.deepEqual(parseFunctionName(eager), { framework: 'fastify', variant: 'validated', routes: 1000, init: 'eager' });
    assert.equal(functionName({ framework: 'fastify', variant: 'validated', routes: 1000 }), 'coldstart-fastify-1000-validated');
    assert.deepEqual(parseFunctionName('coldstart-fastify-1000-validated'), { framework: 'fastify', variant: 'validated', routes: 1000 });
    assert.equal(parseFunctionName('coldstart-fastify-1000-validated-lazy'), undefined);
    assert.equal(functionInFileName('2026-11-27-coldstart-hapi-10-plain-eager.log'), 'coldstart-hapi-10-plain-eager');
  });

  it('splits a framework name with dashes from the route count and variant', () => {
    assert.equal(functionName({ framework: 'deepkit-http', variant: 'plain', routes: 1000 }), 'coldstart-deepkit-http-1000-plain');
    assert.deepEqual(parseFunctionName('coldstart-deepkit-http-1000-plain'), { framework: 'deepkit-http', variant: 'plain', routes: 1000 });
    assert.deepEqual(parseFunctionName('coldstart-h3-2-2-validated'), { framework: 'h3-2', variant: 'validated', routes: 2 });
  });

  it('rejects names it would not have made', () => {
    for (const name of [
      'coldstart-fastify-0100-validated',
      'coldstart-fastify-0-validated',
      'coldstart-fastify-100-Validated',
      'coldstart-fastify-100',
      'coldstart--100-plain',
      'coldstart-fastify--100-plain',
      'other-fastify-100-plain',
      'coldstart-fastify-100-plain-extra',
      'my-api',
    ]) {
      assert.equal(parseFunctionName(name), undefined, name);
    }
  });

  it('refuses cells that cannot be named within Lambda rules', () => {
    assert.throws(() => functionName({ framework: 'Fastify', variant: 'plain', routes: 1 }), FunctionNameError);
    assert.throws(() => functionName({ framework: 'fastify', variant: 'plain', routes: 0 }), FunctionNameError);
    assert.throws(() => functionName({ framework: 'a'.repeat(MAX_FUNCTION_NAME), variant: 'plain', routes: 1 }), /longer than Lambda's 64/);
  });

  it('finds the function of a log group, with or without the account id Insights puts before it', () => {
    assert.equal(functionOfLogGroup('/aws/lambda/coldstart-hono-1-plain'), 'coldstart-hono-1-plain');
    assert.equal(functionOfLogGroup('123456789012:/aws/lambda/coldstart-hono-1-plain'), 'coldstart-hono-1-plain');
    assert.equal(functionOfLogGroup('/aws/apigateway/welcome'), undefined);
  });

  it('finds a function name inside a file name', () => {
    assert.equal(functionInFileName('coldstart-fastify-100-validated.log'), 'coldstart-fastify-100-validated');
    assert.equal(functionInFileName('2025-08-01-coldstart-deepkit-http-10-plain-arm64.csv'), 'coldstart-deepkit-http-10-plain');
    assert.equal(functionInFileName('report-lines.txt'), undefined);
  });
});
