/** `measure --levers` (issue 29): every build and compile cache, node and each pinned Node line installed, nothing installed for it. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { specOfArgv } from '../../metrics/cli/main.ts';
import { leverPreset } from '../../metrics/pipeline/lever-preset.ts';
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
});
