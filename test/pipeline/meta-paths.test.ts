/**
 * meta.json names no folder of this machine (run folders are committed under results/published/):
 * a Lambda run's starts record NODE_PATH's client and handler folders from `<project>/…` (the client
 * from `<runtimes>/…` where COLDSTART_RUNTIMES_DIR moves .runtimes/; Lambda's own /opt paths as they
 * are), and a `measure` run records its handlers, task root and --cwd from `<cwd>/…`. In-process with
 * the fake deps (--debug-mode): the launches are planned as a real run's.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readMeta } from '../../metrics/core/meta.ts';
import { PROJECT_ROOT } from '../../metrics/core/paths.ts';
import { pathRecorder, recordedPaths } from '../../metrics/core/recorded-paths.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

interface Starts {
  lambda: { starts: Record<string, { env?: Record<string, string> }> };
}

function metaText(out: string): string {
  return readFileSync(path.join(out, 'meta.json'), 'utf8');
}

describe('meta.json names no folder of this machine', () => {
  it("a Lambda run under the client's start: NODE_PATH from <project>/…, Lambda's /opt as it is", async () => {
    const out = path.join(tempDir(), 'run');
    const args = ['run', '--target', 'lambda', '--lambda-bootstrap', 'ric', '--frameworks', 'node-http', '--routes', '1'];
    const result = await mainInProcess([...args, '--samples', '1', '--warmup', '0', '--out', out, '--debug-mode']);
    assert.equal(result.code, 0, result.stderr);
    const text = metaText(out);
    assert.ok(!text.includes(PROJECT_ROOT), `meta.json holds the project's path ${PROJECT_ROOT}`);
    const starts = Object.values((JSON.parse(text) as Starts).lambda.starts);
    assert.ok(starts.length > 0);
    for (const start of starts) {
      const parts = start.env!.NODE_PATH!.split(':');
      assert.deepEqual(parts.slice(0, 2), ['/opt/nodejs/node24/node_modules', '/opt/nodejs/node_modules']);
      assert.equal(parts.at(-1), '<project>/generated/lambda');
    }
  });

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
    // the handler's task root last (the reference beside it: its generated folder); the client under .runtimes/,
    // in the project or where COLDSTART_RUNTIMES_DIR moves it
    const parts = starts.map((start) => start.env!.NODE_PATH!.split(':'));
    assert.ok(
      parts.some((p) => p.at(-1) === '<cwd>'),
      JSON.stringify(parts),
    );
    for (const p of parts) {
      assert.match(p[2]!, /^(<project>\/\.runtimes|<runtimes>)\/aws-lambda-ric\//);
      for (const part of p) assert.match(part, /^(\/opt\/|<(project|runtimes|cwd)>)/);
    }
    assert.match(readFileSync(path.join(out, 'summary.md'), 'utf8'), /handler `src\/index\.handler` in `<cwd>`/);
  });
});

describe('pathRecorder', () => {
  const record = pathRecorder({ project: '/srv/coldstart', cwd: '/data/me/app' });

  it('writes paths under a root from its placeholder, wherever they stand in a text', () => {
    assert.equal(
      record('/opt/nodejs/node_modules:/srv/coldstart/.runtimes/x:/srv/coldstart'),
      '/opt/nodejs/node_modules:<project>/.runtimes/x:<project>',
    );
    assert.equal(record('npm run measure -- --cwd /data/me/app --out=/data/me/app/run'), 'npm run measure -- --cwd <cwd> --out=<cwd>/run');
  });

  it('keeps what is not under a root: a longer name, a path that only contains one, other absolute paths', () => {
    for (const text of ['/srv/coldstart2/x', '/x/srv/coldstart/y', '/var/runtime', '/sys/fs/cgroup/cpu', 'srv/coldstart/x'])
      assert.equal(record(text), text);
  });

  it('the innermost root names a path; the filesystem root is never one', () => {
    const inside = pathRecorder({ project: '/srv/coldstart', cwd: '/srv/coldstart/examples' });
    assert.equal(inside('/srv/coldstart/examples/a.js /srv/coldstart/b.js'), '<cwd>/a.js <project>/b.js');
    assert.equal(pathRecorder({ project: '/srv/coldstart', cwd: '/' })('/opt/x /srv/coldstart/y'), '/opt/x <project>/y');
  });

  it('reaches every string of a JSON value, keys too', () => {
    const value = { a: ['/srv/coldstart/x', 1, null, { '/srv/coldstart/k': true }] };
    assert.deepEqual(recordedPaths(value, record), { a: ['<project>/x', 1, null, { '<project>/k': true }] });
  });
});
