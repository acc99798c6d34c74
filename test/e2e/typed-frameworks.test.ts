/**
 * The frameworks whose routes are TypeScript compiled with deepkit's type compiler (mion, deepkit,
 * deepkit-http): the compile step and its cache, what the compiled code carries, that the servers
 * bind 127.0.0.1, and what the CLI says when mion (not on this registry) is missing. The contract
 * test (generators.test.ts) covers their real runs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { deepkitSource, DEEPKIT_TYPE_PACKAGES } from '../../generators/server/deepkit.ts';
import { mionSource } from '../../generators/server/mion.ts';
import { PROTOCOL_PREFIX } from '../../generators/probe.ts';
import { loadGenerators, missingPackage, PROJECT_ROOT } from '../../generators/registry.ts';
import { compileKey, compileWithTypes, DEEPKIT_COMPILER, MION_COMPILER } from '../../generators/typescript.ts';
import { writeGenerated } from '../../generators/write.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { runCli as cli, tempDir } from '../support/helpers.ts';

const tmp = () => tempDir('coldstart-typed-');
const generators = await loadGenerators();
const byName = (name: string) => generators.find((g) => g.name === name)!;

describe('the type compile step', () => {
  it('caches by content: the first compile writes one file, later ones read it; a fresh compile gives the same bytes', () => {
    const cacheDir = tmp();
    const source = deepkitSource(3, 'validated');
    const first = compileWithTypes(source, DEEPKIT_COMPILER, { cacheDir, typePackages: DEEPKIT_TYPE_PACKAGES });
    const files = readdirSync(cacheDir);
    assert.deepEqual(files, [`${compileKey(source, DEEPKIT_COMPILER, DEEPKIT_TYPE_PACKAGES)}.js`]);
    assert.equal(compileWithTypes(source, DEEPKIT_COMPILER, { cache: false }), first, 'cached and fresh output are the same bytes');
    assert.equal(
      compileWithTypes(source, DEEPKIT_COMPILER, { cache: false, cachingHost: false }),
      first,
      'the caching host changes nothing in the output',
    );
    writeFileSync(path.join(cacheDir, files[0]!), '/* from the cache */');
    assert.equal(compileWithTypes(source, DEEPKIT_COMPILER, { cacheDir, typePackages: DEEPKIT_TYPE_PACKAGES }), '/* from the cache */');
  });

  it('the key changes with the source, the compiler and the type packages', () => {
    const source = deepkitSource(2, 'validated');
    const key = compileKey(source, DEEPKIT_COMPILER, DEEPKIT_TYPE_PACKAGES);
    assert.notEqual(compileKey(deepkitSource(3, 'validated'), DEEPKIT_COMPILER, DEEPKIT_TYPE_PACKAGES), key);
    assert.notEqual(compileKey(source, MION_COMPILER, DEEPKIT_TYPE_PACKAGES), key);
    assert.notEqual(compileKey(source, DEEPKIT_COMPILER, []), key);
    assert.equal(compileKey(source, DEEPKIT_COMPILER, DEEPKIT_TYPE_PACKAGES), key);
  });

  it('deepkit routes carry their body type (HttpBody) as runtime type data, and no machine path', () => {
    const js = compileWithTypes(deepkitSource(3, 'validated'), DEEPKIT_COMPILER, { cache: false });
    assert.equal(
      js.match(/__assignType\(\(body\) => \(\{ hello: body\.name, route: \d \}\), \[\(\) => __ΩHttpBody, 'name'/g)?.length,
      3,
      js,
    );
    assert.ok(!js.includes(PROJECT_ROOT), 'the project path does not leak into the output');
  });

  it('mion routes carry their parameter and return types (alpha.97 compiler), and no virtual path', () => {
    const js = compileWithTypes(mionSource(3), MION_COMPILER, { cache: false });
    assert.equal(
      js.match(/__assignType\(\(ctx, name\) => \(\{ hello: name, route: \d \}\), \['ctx', 'name', 'hello', 'route'/g)?.length,
      3,
      js,
    );
    assert.ok(!js.includes('virtual-mion-app') && !js.includes(PROJECT_ROOT));
    assert.ok(!/require\("@deepkit\/type"\)/.test(js), 'mion app code never loads @deepkit/type itself');
  });
});

/** Is something listening on `port`, and on which addresses (Linux /proc/net)? */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const found: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '0A' && local?.endsWith(`:${hexPort}`)) found.push(`${path.basename(table)} ${local.split(':')[0]}`);
    }
  }
  return found;
}

/** Run a generated file until its COLDSTART line, call `check` with the port, then stop it. */
async function whileRunning(file: string, check: (port: number) => void): Promise<void> {
  const child = spawn(process.execPath, [file], { cwd: tmp(), env: childEnvironment(process.env).env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => reject(new Error(`no ${PROTOCOL_PREFIX}line in 60 s: ${err}`)), 60_000);
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out
          .split('\n')
          .slice(0, -1)
          .find((l) => l.startsWith(PROTOCOL_PREFIX));
        if (line) {
          clearTimeout(timer);
          resolve((JSON.parse(line.slice(PROTOCOL_PREFIX.length)) as { port: number }).port);
        }
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before ready: ${err}`)));
    });
    check(port);
  } finally {
    child.kill('SIGKILL');
  }
}

describe('typed frameworks bind 127.0.0.1 only', () => {
  for (const name of ['mion', 'deepkit', 'deepkit-http']) {
    const generator = byName(name);
    const missing = missingPackage(generator);
    it(
      name,
      { skip: missing ? `${name}: skipped (${missing} not installed)` : process.platform !== 'linux' ? 'needs /proc/net' : false },
      async () => {
        const { file } = await writeGenerated(generator, 2, 'validated');
        await whileRunning(file, (port) =>
          assert.deepEqual(listeners(port), ['tcp 0100007F'], `listening on ${listeners(port).join(', ')}`),
        );
      },
    );
  }
});

const mionMissing = missingPackage(byName('mion'));

describe(
  'when mion is not installed (it is not on this registry)',
  { skip: mionMissing ? false : 'mion is installed: its skip messages are not tested' },
  () => {
    it('naming it is a one-line error, exit 2, saying how to install it (no machine path)', () => {
      const { status, stderr } = cli(['run', '--frameworks', 'mion', '--routes', '1']);
      assert.equal(status, 2, stderr);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
      assert.match(
        stderr,
        new RegExp(
          String.raw`mion needs @mionkit/router, which is not installed \(mion is not on this registry: ` +
            String.raw`build .*0\.7\.2.* npm install --no-save the tarballs\)`,
        ),
      );
      assert.doesNotMatch(stderr, /\/work\/|\.tgz/);
    });

    it('the default selection skips it with one line and goes on', () => {
      const { status, stderr } = cli(['generate', '--routes', '1']);
      assert.equal(status, 0, stderr);
      assert.equal(
        stderr
          .split('\n')
          .filter((line) => line.includes('mion'))
          .join('\n'),
        'mion: skipped (@mionkit/router not installed)',
      );
    });
  },
);
