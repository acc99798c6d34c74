/**
 * meta.json v2: a run writes `version: 2` and a typed `spec`; a v1 meta.json (no version, a flat
 * `options`) is upgraded when read into the same spec a new run writes for the same options (the
 * golden run folder is v1 on disk and stays so); a version newer than the tool's is one line, exit 2.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../metrics/core/errors.ts';
import { META_VERSION } from '../../metrics/core/meta.ts';
import { readMeta } from '../../metrics/store/meta-file.ts';
import { upgradeV1Options } from '../../metrics/core/meta-spec.ts';
import { fixture, tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

const GOLDEN = fixture('golden-run');

describe('meta.json versions', () => {
  it('the golden run folder is v1 on disk: no version, a flat options object', () => {
    const raw = JSON.parse(readFileSync(path.join(GOLDEN, 'meta.json'), 'utf8')) as Record<string, unknown>;
    assert.equal('version' in raw, false);
    assert.equal(typeof raw.options, 'object');
  });

  it('a v1 meta.json upgrades to the spec a new run writes for the same options', async () => {
    const out = path.join(tempDir(), 'run');
    // the golden run's command line; --first-hits 0: the run predates first hits (v1 wrote none when 0)
    const args = ['run', '--frameworks', 'fastify,node-http,hono', '--routes', '1,10,100', '--samples', '5', '--build', 'plain,bundle'];
    const result = await mainInProcess([...args, '--first-hits', '0', '--out', out, '--debug-mode']);
    assert.equal(result.code, 0, result.stderr);
    const written = JSON.parse(readFileSync(path.join(out, 'meta.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(written.version, META_VERSION);
    assert.equal('options' in written, false, 'a v2 meta.json has a spec, not options');
    const upgraded = readMeta(GOLDEN)!;
    assert.equal(upgraded.version, META_VERSION);
    assert.deepEqual(upgraded.spec, readMeta(out)!.spec);
    assert.deepEqual(upgraded.spec.cost, { memoryMB: 1024, architecture: 'x86_64' }, "v1's arch x86 is the architecture x86_64");
  });

  it("v1's other sources upgrade too: the user's apps, and REPORT lines imported (their method in words, no sampling)", () => {
    const apps = upgradeV1Options({
      apps: [{ name: 'shop', kind: 'server', file: '/srv/shop.js', env: ['SECRET'] }, { name: 'broken' }],
      samples: 3,
      measures: ['time', 'instructions'],
      countSamples: 2,
      countFlags: ['--predictable'],
      jobs: 2,
      shard: '1/2',
    });
    assert.deepEqual(apps.source, { kind: 'apps', apps: [{ name: 'shop', kind: 'server', file: '/srv/shop.js', env: ['SECRET'] }] });
    assert.deepEqual(apps.cells.measures, ['time', 'instructions']);
    assert.deepEqual(
      [apps.sampling?.countSamples, apps.sampling?.jobs, apps.sampling?.shard, apps.countFlags],
      [2, 2, '1/2', ['--predictable']],
    );
    const imported = upgradeV1Options({
      source: 'CloudWatch REPORT lines (imported)',
      files: ['a.log'],
      importedAt: '2026-01-01T00:00:00.000Z',
      frameworks: ['hono'],
      routes: [10],
      variants: ['validated'],
      targets: ['aws-lambda'],
      memorySizesMB: [512],
      samples: '3 cold starts imported',
      warmup: 'none',
      order: 'as invoked on AWS',
      architecture: 'arm64',
      arch: 'arm64',
    });
    assert.equal(imported.sampling, undefined);
    assert.equal(imported.source.kind, 'imported');
    assert.equal(imported.source.samples, '3 cold starts imported');
    assert.deepEqual([imported.cells.targets, imported.cells.memories, imported.cost], [['aws-lambda'], [512], { architecture: 'arm64' }]);
  });

  it('a version newer than this tool reads is a usage error naming the file, and report exits 2 with one line', async () => {
    const dir = tempDir();
    cpSync(GOLDEN, dir, { recursive: true });
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ ...meta, version: META_VERSION + 1 }));
    assert.throws(
      () => readMeta(dir),
      (error) =>
        error instanceof UsageError && /meta\.json is meta\.json version 3; this coldstart reads versions 1 to 2/.test(error.message),
    );
    const result = await mainInProcess(['report', dir]);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /^coldstart: .*meta\.json is meta\.json version 3; .*update coldstart/);
  });

  it('a version that is no number is refused the same way', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ version: 'two', tool: 'coldstart' }));
    assert.throws(() => readMeta(dir), /meta\.json version "two"; this coldstart reads versions 1 to 2/);
  });
});
