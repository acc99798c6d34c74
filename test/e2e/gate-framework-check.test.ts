/**
 * `gate --framework-from`'s check before anything is exported (pipeline/gate-framework.ts checkFrameworkFrom), on a
 * git repository a test writes: the package named by HEAD's package.json at the folder given, which every framework
 * named must load; a folder outside the repository, no package.json, one that is not JSON, names no package, is
 * over the bound, or names a package the cells do not load (a hostile name: control characters, 10,000 characters)
 * is one line, a UsageError, with the name cut and made printable.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { UsageError } from '../../metrics/core/errors.ts';
import { checkFrameworkFrom } from '../../metrics/pipeline/gate-framework.ts';
import { tempDir } from '../support/helpers.ts';
import { git } from '../support/gate.ts';

describe('gate --framework-from: the package checked at HEAD', () => {
  let repo = '';
  const packages: Record<string, string> = {
    'pkg/fastify': JSON.stringify({ name: 'fastify', version: '5.0.0' }),
    'pkg/hono-adapter': JSON.stringify({ name: '@hono/node-server', version: '1.0.0' }),
    'pkg/hostile': JSON.stringify({ name: `evil\u001b]0;pwned\u0007\n${'x'.repeat(10_000)}`, version: '1.0.0' }),
    'pkg/not-json': '{ "name": ',
    'pkg/nameless': JSON.stringify({ version: '1.0.0' }),
    'pkg/huge': JSON.stringify({ name: 'fastify', version: '5.0.0', description: 'y'.repeat(1_100_000) }),
  };

  before(() => {
    repo = path.join(tempDir('coldstart-gate-framework-check-'), 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    for (const [dir, text] of Object.entries(packages)) {
      mkdirSync(path.join(repo, dir), { recursive: true });
      writeFileSync(path.join(repo, dir, 'package.json'), text);
    }
    mkdirSync(path.join(repo, 'empty'));
    writeFileSync(path.join(repo, 'empty', 'README'), 'no package here\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'packages');
  });

  const check = (from: string, frameworks = ['fastify'], cwd = repo) => checkFrameworkFrom({ frameworks, routes: [1], from }, repo, cwd);

  it("takes the package's folder and name from HEAD, for a framework that loads it", async () => {
    assert.deepEqual(await check('pkg/fastify'), { rel: path.join('pkg', 'fastify'), name: 'fastify' });
    assert.deepEqual(await check('.', ['hono'], path.join(repo, 'pkg', 'hono-adapter')), {
      rel: path.join('pkg', 'hono-adapter'),
      name: '@hono/node-server',
    });
  });

  it('refuses each bad case in one printable line', async () => {
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => check('..'), /^--framework-from \.\. is outside the repository$/],
      [() => check('empty'), /^--framework-from empty: HEAD has no package\.json there$/],
      [() => check('pkg/not-json'), /: its package\.json at HEAD is not JSON$/],
      [() => check('pkg/nameless'), /: its package\.json at HEAD names no package$/],
      [() => check('pkg/huge'), /: its package\.json at HEAD is over 1048576 bytes$/],
      [() => check('pkg/fastify', ['express']), /^--framework-from: express's cells do not load fastify \(they load express/],
      [() => check('pkg/fastify', ['no-such']), /^-f no-such: not a framework coldstart generates \(/],
      [() => check('pkg/hostile'), /^--framework-from: fastify's cells do not load evil/],
    ];
    for (const [run, message] of cases) {
      const error = await run().then(
        () => assert.fail(`accepted: ${String(message)}`),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof UsageError, String(error));
      assert.match(error.message, message);
      assert.ok(!/\p{Cc}/u.test(error.message), `no control character: ${JSON.stringify(error.message.slice(0, 80))}`);
      assert.ok(error.message.length < 400, `bounded: ${error.message.length}`);
    }
  });
});
