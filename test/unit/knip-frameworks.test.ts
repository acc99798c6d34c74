/**
 * A framework is its registry entry: knip's list of framework packages (knip.ts) and docs/guide/frameworks.md's
 * registry table are written from the generators, so adding one needs no edit to either (issue 48).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { knipSettings } from '../../knip.ts';
import { frameworkPackages, knipFrameworkPatterns, registryTable } from '../../generators/packages.ts';
import { FRAMEWORKS_PAGE, withRegistryTable } from '../../metrics/tools/help-md.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

test("knip ignores every framework package the checkout installs, from the registry's list", async () => {
  const patterns = (await knipSettings()).ignoreDependencies.map((p) => new RegExp(`^${p}$`));
  const packages = await frameworkPackages();
  assert.ok(packages.includes('fastify') && packages.includes('@fastify/aws-lambda'), packages.join(', '));
  const installed = packages.filter((pkg) => pkg in manifest.devDependencies);
  assert.ok(installed.length >= 10);
  for (const pkg of installed)
    assert.ok(
      patterns.some((p) => p.test(pkg)),
      `${pkg} is not ignored`,
    );
  // nothing the project's own code imports is hidden: zod is a dependency of the tool, not only of the frameworks
  assert.ok(!patterns.some((p) => p.test('zod')), 'zod stays checked');
});

test('a new framework package (a stub) is ignored by the list it is in, with no edit to knip.ts', () => {
  const devDependencies = [...Object.keys(manifest.devDependencies), 'polka', '@stubs/adapter', '@stubs/peer'];
  const before = knipFrameworkPatterns(['fastify'], devDependencies);
  const after = knipFrameworkPatterns(['fastify', 'polka', '@stubs/adapter'], devDependencies);
  assert.deepEqual(before, ['fastify']);
  assert.deepEqual(after, ['@stubs/.*', 'fastify', 'polka']);
  // a registry package the checkout does not install (mion, built from source) needs no pattern
  assert.deepEqual(knipFrameworkPatterns(['@mionkit/router'], devDependencies), []);
});

test("docs/guide/frameworks.md's registry table is the registry's (npm run docs:cli writes it)", async () => {
  const page = readFileSync(path.join(ROOT, FRAMEWORKS_PAGE), 'utf8');
  const table = await registryTable();
  assert.equal(withRegistryTable(page, table), page, `${FRAMEWORKS_PAGE} is stale: npm run docs:cli`);
  for (const name of ['node-http', 'fastify', 'mion', 'deepkit-http']) assert.match(table, new RegExp(`^\\| \`${name}\` \\|`, 'm'));
});
