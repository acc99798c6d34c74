/**
 * meta.json names no folder of this machine (run folders are committed under results/published/):
 * a Lambda run's starts record NODE_PATH's client and handler folders from `<project>/…` (the client
 * from `<runtimes>/…` where COLDSTART_RUNTIMES_DIR moves .runtimes/; Lambda's own /opt paths as they
 * are). In-process with the fake deps (--debug-mode): the launches are planned as a real run's. A
 * `measure` run's handlers, task root and --cwd (`<cwd>/…`): test/e2e/meta-paths-measure.test.ts (it
 * installs the runtime line it plans for).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../metrics/core/paths.ts';
import { pathRecorder, recordedPaths } from '../../metrics/core/recorded-paths.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';
import { metaText, type Starts } from '../support/recorded-starts.ts';

describe('meta.json names no folder of this machine', () => {
  it("a Lambda run under the client's start: NODE_PATH from <project>/…, Lambda's /opt as it is", async () => {
    const out = path.join(tempDir(), 'run');
    // node-http has no eager form (--init's other value: an unsupported cell has no start to record)
    const args = ['run', '--target', 'lambda', '--lambda-bootstrap', 'ric', '--init', 'lazy', '--frameworks', 'node-http', '--routes', '1'];
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

  it("the Runtime Interface Client's folder in the machine's cache is <ric> (NODE_PATH, the client's index.mjs)", () => {
    const ric = '/home/me/.cache/coldstart/ric/4.0.2-napi-linux-x64/node_modules/aws-lambda-ric';
    const record = pathRecorder({ project: '/srv/coldstart', ric });
    assert.equal(record(`/opt/nodejs/node_modules:${ric}/node_modules:${ric}`), '/opt/nodejs/node_modules:<ric>/node_modules:<ric>');
    assert.equal(record(`${ric}/index.mjs`), '<ric>/index.mjs');
  });

  it('reaches every string of a JSON value, keys too', () => {
    const value = { a: ['/srv/coldstart/x', 1, null, { '/srv/coldstart/k': true }] };
    assert.deepEqual(recordedPaths(value, record), { a: ['<project>/x', 1, null, { '<project>/k': true }] });
  });
});
