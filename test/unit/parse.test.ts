/** The option parsers (metrics/core/parse.ts): every bad value is a UsageError naming the option. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseChoice,
  parseChoiceList,
  parseFrameworks,
  parseInteger,
  parseList,
  parseMemory,
  parsePrice,
  parseRatio,
  parseRoutes,
  parseSeconds,
  parseAllList,
} from '../../metrics/core/parse.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { BUILDS, COMPILE_CACHES } from '../../metrics/plan/levers.ts';
import { VARIANTS, RUNTIME_NAMES } from '../../metrics/core/dimensions.ts';

/** Throws a UsageError whose message matches. */
function rejects(parse: () => unknown, message: RegExp): void {
  assert.throws(parse, (error: unknown) => error instanceof UsageError && message.test(error.message) && !error.message.includes('\n'));
}

describe('lists', () => {
  it('split on commas and trim', () => {
    assert.deepEqual(parseList('--x', ' a, b ,c'), ['a', 'b', 'c']);
  });

  it('an empty item is an error, not something to skip', () => {
    rejects(() => parseList('--routes', '1,,2'), /^--routes: "1,,2" has an empty item$/);
    rejects(() => parseList('--routes', '1,'), /has an empty item/);
    rejects(() => parseList('--build', ','), /^--build: "," has an empty item$/);
    rejects(() => parseList('--build', ''), /^--build needs at least one value$/);
    rejects(() => parseList('--build', '  '), /^--build needs at least one value$/);
  });
});

describe('route counts', () => {
  it('sorted numerically and deduplicated', () => {
    assert.deepEqual(parseRoutes('100,1, 10,100'), [1, 10, 100]);
  });

  it('only integers from 1 to 100000', () => {
    for (const bad of ['0', '100001', '1.5', '-1', 'ten', '1e3'])
      rejects(() => parseRoutes(bad), new RegExp(`"${bad.replace('.', '\\.')}" is not a route count`));
    assert.deepEqual(parseRoutes('100000'), [100_000]);
  });
});

describe('numbers', () => {
  it('integers within their bounds', () => {
    assert.equal(parseInteger('--samples', 1, 10_000)('5'), 5);
    rejects(() => parseInteger('--samples', 1, 10_000)('0'), /^--samples: "0" is not an integer from 1 to 10000$/);
    rejects(() => parseInteger('--phases-at', 1)('x'), /^--phases-at: "x" is not an integer from 1 to up$/);
  });

  it('seconds: positive, fractions allowed', () => {
    assert.equal(parseSeconds('--timeout')('2.5'), 2.5);
    for (const bad of ['0', '-3', 'soon', '']) rejects(() => parseSeconds('--timeout')(bad), /is not a positive number of seconds/);
  });

  it("memory: Lambda's 128 to 10240 MB, whole MB", () => {
    assert.equal(parseMemory('--memory')('2048'), 2048);
    for (const bad of ['64', '10241', '1.5', 'big'])
      rejects(() => parseMemory('--memory')(bad), /^--memory: ".*" is not a memory size in MB from 128 to 10240$/);
  });

  it('price: a positive $ per GB-second below 1', () => {
    assert.equal(parsePrice('0.0000166667'), 0.0000166667);
    assert.equal(parsePrice('1.66667e-5'), 0.0000166667);
    for (const bad of ['abc', '0', '1', '-0.1']) rejects(() => parsePrice(bad), /^--price: ".*" is not a price in \$ per GB-second/);
  });

  it('ratio: at least 1', () => {
    assert.equal(parseRatio('1.10'), 1.1);
    for (const bad of ['0.9', 'lots', '']) rejects(() => parseRatio(bad), /^--fail-above: ".*" is not a ratio of at least 1/);
  });
});

describe('choices', () => {
  it('one of a list, naming the valid ones', () => {
    assert.equal(parseChoice('--order', ['a', 'b'])('b'), 'b');
    rejects(() => parseChoice('--order', ['a', 'b'])('c'), /^--order: "c" is not one of a, b$/);
  });

  it('lever lists: deduplicated in the order given (the first is the baseline)', () => {
    assert.deepEqual(parseChoiceList('--runtime', RUNTIME_NAMES)('node24, node,node24'), ['node24', 'node']);
    assert.deepEqual(parseChoiceList('--build', BUILDS)('bundle,plain'), ['bundle', 'plain']);
    assert.deepEqual(parseChoiceList('--compile-cache', COMPILE_CACHES)('off,warm'), ['off', 'warm']);
    rejects(() => parseChoiceList('--runtime', RUNTIME_NAMES)('node,deno'), /^--runtime: "deno" is not one of node, node22, node24, bun$/);
    rejects(() => parseChoiceList('--compile-cache', COMPILE_CACHES)(''), /^--compile-cache needs at least one value$/);
  });

  it('variants: all expands to every variant', () => {
    assert.deepEqual(parseAllList('--variant', VARIANTS)('all'), [...VARIANTS]);
    assert.deepEqual(parseAllList('--variant', VARIANTS)('plain,all'), ['plain', ...VARIANTS.filter((v) => v !== 'plain')]);
    rejects(() => parseAllList('--variant', VARIANTS)('typed'), /^--variant: "typed" is not one of validated, plain, all$/);
  });

  it('frameworks: all, or names (checked later against the registry)', () => {
    assert.equal(parseFrameworks(' all '), 'all');
    assert.deepEqual(parseFrameworks('fastify,hono,fastify'), ['fastify', 'hono']);
    rejects(() => parseFrameworks('fastify,'), /^--frameworks: "fastify," has an empty item$/);
  });
});
