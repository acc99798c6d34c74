/**
 * meta.json names no folder of this machine, for a `measure` run: its handlers, task root and --cwd
 * are recorded from `<cwd>/…`, the client from `<project>/…` (or `<runtimes>/…`). In-process with the
 * fake deps (--debug-mode), but in the e2e layer: planning a handler's cells installs its Lambda
 * runtime line (npm) when .runtimes/ lacks it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readMeta } from '../../metrics/store/meta-file.ts';
import { PROJECT_ROOT } from '../../metrics/core/paths.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';
import { metaText, type Starts } from '../support/recorded-starts.ts';

describe('meta.json of a measure run names no folder of this machine', () => {
  it('a measure run: its handler, task root, --cwd and command line from <cwd>/…', async () => {
    const apps = tempDir('coldstart-apps-');
    mkdirSync(path.join(apps, 'src'));
    writeFileSync(path.join(apps, 'src', 'index.mjs'), 'export const handler = async () => ({ statusCode: 200, body: "ok" });\n');
    writeFileSync(path.join(apps, 'event.json'), '{}');
    const out = path.join(apps, 'run');
    const args = ['measure', '--handler', path.join(apps, 'src', 'index.handler'), '--event', path.join(apps, 'event.json')];
    const result = await mainInProcess([...args, '--cwd', apps, '--samples', '1', '--warmup', '0', '--out', out, '--debug-mode']);
    assert.equal(result.code, 0, result.stderr);
    const text = metaText(out);
    assert.ok(!text.includes(apps), `meta.json holds the apps' folder ${apps}`);
    assert.ok(!text.includes(PROJECT_ROOT), `meta.json holds the project's path ${PROJECT_ROOT}`);
    const meta = readMeta(out)!;
    assert.equal(meta.spec.source.kind, 'apps');
    const [app] = meta.spec.source.apps;
    assert.deepEqual([app?.file, app?.taskRoot, app?.handler, app?.cwd], ['<cwd>/src/index.mjs', '<cwd>', 'src/index.handler', '<cwd>']);
    const starts = Object.values((JSON.parse(text) as Starts).lambda.starts);
    // the handler's task root last (the reference beside it: its generated folder); the client in the machine's
    // cache, recorded as <ric> (core/recorded-paths.ts)
    const parts = starts.map((start) => start.env!.NODE_PATH!.split(':'));
    assert.ok(
      parts.some((p) => p.at(-1) === '<cwd>'),
      JSON.stringify(parts),
    );
    for (const p of parts) {
      assert.match(p[2]!, /^<ric>\/node_modules$/);
      for (const part of p) assert.match(part, /^(\/opt\/|<(project|runtimes|cwd|ric)>)/);
    }
    assert.match(readFileSync(path.join(out, 'summary.md'), 'utf8'), /handler `src\/index\.handler` in `<cwd>`/);
  });
});
