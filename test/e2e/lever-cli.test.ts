/**
 * The levers through the command line: a runtime that cannot be installed is one line and exit 2
 * (the `--runtime`, `--build` and `--compile-cache` mistakes are test/unit/cli-usage.test.ts's, in-process),
 * and a real run over the lever product measures every cell and reports each lever.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { RunMeta } from '../../metrics/core/meta.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { compileCacheUnsupported } from '../../metrics/plan/runtimes.ts';
import { runCli, tempDir, type CliResult } from '../support/helpers.ts';

describe('lever options: one line, exit 2', () => {
  // the lever lists' usage errors (an unknown runtime, build or compile cache, a list of nothing): test/unit/cli-usage.test.ts
  let install: CliResult;
  before(() => {
    // no registry: the install of node24 fails fast, into a runtimes folder of its own
    const root = tempDir('coldstart-lever-cli-');
    const env = { ...process.env, COLDSTART_RUNTIMES_DIR: root, npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0' };
    install = runCli(['run', '--frameworks', 'node-http', '--routes', '1', '--runtime', 'node24', '--out', path.join(root, 'run')], {
      env,
    });
  });

  it('a runtime that cannot be installed: one error line after the progress, exit 2', () => {
    assert.equal(install.status, 2, install.stderr);
    const lines = install.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('coldstart:'));
    assert.equal(lines.length, 1, install.stderr);
    assert.match(lines[0]!, /^coldstart: --runtime node24: cannot install node-\w+-\w+@24\.\d+\.\d+: /);
    assert.doesNotMatch(install.stderr, /\n\s+at /);
  });
});

describe('a real run with levers', () => {
  const args = ['run', '--frameworks', 'node-http', '--routes', '1', '--samples', '1', '--warmup', '0'];
  let dir: string;
  let result: CliResult;
  before(() => {
    dir = path.join(tempDir('coldstart-lever-cli-'), 'run');
    result = runCli([...args, '--build', 'plain,bundle', '--compile-cache', 'off,cold', '--out', dir], { timeoutMs: 180_000 });
  });
  // the running node measures the compile cache only from 22.1
  const noCache = compileCacheUnsupported('node', process.version);

  it('runs every cell of the product and verifies the answers', () => {
    assert.equal(result.status, 0, result.stderr);
    const samples = readSamples(path.join(dir, 'samples.jsonl'));
    assert.equal(samples.length, 4, '1 framework × 1 N × 2 builds × 2 caches');
    assert.deepEqual(samples.map((s) => `${s.cell.build} ${s.cell.compileCache}`).sort(), [
      'bundle cold',
      'bundle off',
      'plain cold',
      'plain off',
    ]);
    for (const s of samples) {
      if (s.cell.compileCache === 'cold' && noCache) assert.equal(s.unsupported, noCache, JSON.stringify(s));
      else assert.equal(s.ok, true, s.error);
    }
    assert.ok(!result.stdout.includes('failed samples'), result.stdout);
  });

  it('meta.json records the lever lists and the runtime', () => {
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as RunMeta;
    assert.deepEqual(meta.spec.cells.builds, ['plain', 'bundle']);
    assert.deepEqual(meta.spec.cells.compileCaches, ['off', 'cold']);
    assert.deepEqual(meta.spec.cells.runtimes, ['node']);
    assert.equal(meta.runtimes.node, process.version);
    assert.deepEqual(meta.environment.passed, [
      'PATH',
      'HOME',
      'NODE_ENV=production',
      'NODE_COMPILE_CACHE (compile-cache cold/warm cells only)',
    ]);
  });

  it('levers.md has a table per lever, and summary.md says which helps', () => {
    const levers = readFileSync(path.join(dir, 'levers.md'), 'utf8');
    assert.match(levers, /## build: plain vs bundle \(ratio to plain\)/);
    assert.match(levers, /## compileCache: off vs cold/);
    assert.match(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /## Which lever helps/);
  });
});
