/** `measure --levers` (issue 29): every build and compile cache, node and each pinned Node line installed, nothing installed for it. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { specOfArgv } from '../../metrics/cli/main.ts';
import { leverPreset } from '../../metrics/pipeline/lever-preset.ts';
import { mainInProcess } from '../support/main-in-process.ts';
import { installedBinary } from '../../metrics/plan/runtimes.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-preset-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('measure --levers', () => {
  it('every build (plain first, the startup snapshot last) and the compile cache off and warm', () => {
    const preset = leverPreset(dir);
    assert.deepEqual(preset.builds, ['plain', 'bundle', 'bundle-min', 'snapshot']);
    assert.deepEqual(preset.compileCaches, ['off', 'warm']);
  });

  it('node, and each pinned Node line only once it is installed', () => {
    assert.deepEqual(leverPreset(dir).runtimes, ['node']);
    const binary = installedBinary('node24', undefined, dir);
    mkdirSync(path.dirname(binary), { recursive: true });
    writeFileSync(binary, '');
    assert.deepEqual(leverPreset(dir).runtimes, ['node', 'node24']);
  });

  it("is measure's lever lists", async () => {
    const app = path.join(dir, 'app.js');
    writeFileSync(app, "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n");
    const spec = await specOfArgv(['measure', '--entry', app, '--levers']);
    assert.ok(spec);
    assert.deepEqual(spec.cells.builds, ['plain', 'bundle', 'bundle-min', 'snapshot']);
    assert.deepEqual(spec.cells.compileCaches, ['off', 'warm']);
    assert.equal(spec.cells.runtimes[0], 'node');
  });

  it('--levers build,cache tries those two levers only, and --no-snapshot leaves the snapshot build out (issue 51)', async () => {
    const app = path.join(dir, 'app.js');
    writeFileSync(app, "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n");
    const listed = await specOfArgv(['measure', '--entry', app, '--levers', 'build,cache', '--no-snapshot']);
    assert.ok(listed);
    assert.deepEqual(listed.cells.builds, ['plain', 'bundle', 'bundle-min']);
    assert.deepEqual(listed.cells.compileCaches, ['off', 'warm']);
    assert.deepEqual(listed.cells.runtimes, ['node'], 'the runtime lever is not tried: the node running coldstart');
    const noSnapshot = await specOfArgv(['measure', '--entry', app, '--levers', '--no-snapshot']);
    assert.deepEqual(noSnapshot?.cells.builds, ['plain', 'bundle', 'bundle-min']);
  });

  it('an unknown lever name, or --no-snapshot without --levers, is one line and exit 2', async () => {
    const app = path.join(dir, 'app.js');
    writeFileSync(app, "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n");
    const out = path.join(dir, 'never');
    const unknown = await mainInProcess(['measure', '--entry', app, '--levers', 'build,snap', '--out', out]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^coldstart: --levers: unknown lever "snap"; the levers are build, cache, runtime/);
    assert.equal(unknown.stderr.trim().split('\n').length, 1, unknown.stderr);
    const alone = await mainInProcess(['measure', '--entry', app, '--no-snapshot', '--out', out]);
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--no-snapshot goes with --levers/);
  });
});
