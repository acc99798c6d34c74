/**
 * The startup snapshot build (plan/snapshot.ts, issue 29): the wrapper's bytes and what they do (run
 * here against stand-ins of node:net and node:v8, as the snapshot builder would run them), the reason
 * a failed build is reported with, and which apps get no snapshot variant and why.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { oneLine } from '../../metrics/core/escape.ts';
import {
  buildSnapshot,
  SNAPSHOT_BUILD_PORT,
  SNAPSHOT_POSTLUDE,
  SNAPSHOT_PRELUDE,
  snapshotErrorLine,
  snapshotPaths,
  snapshotUnsupported,
  snapshotWrapper,
  type BuilderResult,
} from '../../metrics/plan/snapshot.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-snapshot-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const BUNDLE = `"use strict";
const net = require("node:net");
const s = new net.Server();
module.exports.ready = s.listen(Number(process.env.PORT), "127.0.0.1") === s;
const t = new net.Server();
t.listen({ port: 8080, host: "::" });
`;

/** Runs a wrapper as the builder would, with stand-ins of net, v8 and process; returns what it recorded. */
function runWrapper(text: string, resources: string[], env: Record<string, string | undefined>) {
  const listened: unknown[][] = [];
  class Server {
    listen(...args: unknown[]) {
      listened.push(args);
      return this;
    }
  }
  const original = Object.getOwnPropertyDescriptor(Server.prototype, 'listen')?.value as unknown;
  let main: (() => void) | undefined;
  const modules: Record<string, unknown> = {
    'node:net': { Server },
    'node:v8': { startupSnapshot: { setDeserializeMainFunction: (f: () => void) => (main = f) } },
  };
  const fakeProcess = { env, getActiveResourcesInfo: () => resources };
  // the wrapper is run as the builder runs it: a script with require (and here a stand-in of process)
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const script = new Function('require', 'process', '__filename', '__dirname', text) as (...args: unknown[]) => void;
  script((name: string) => modules[name], fakeProcess, '/x/w.js', '/x');
  return { listened, main, restored: Object.getOwnPropertyDescriptor(Server.prototype, 'listen')?.value === original, env };
}

describe('the snapshot wrapper', () => {
  it('is the bundle, unchanged, between fixed bytes: same bundle, same wrapper', () => {
    const text = snapshotWrapper(BUNDLE);
    assert.equal(text, `${SNAPSHOT_PRELUDE}${BUNDLE}${SNAPSHOT_POSTLUDE}`);
    assert.equal(snapshotWrapper(BUNDLE), text);
    assert.ok(text.startsWith("'use strict';\n/* coldstart startup snapshot wrapper v1"));
  });

  it('defers every listen of the top level, restores listen, and replays the calls on the start’s PORT', () => {
    const env: Record<string, string | undefined> = { PORT: SNAPSHOT_BUILD_PORT };
    const run = runWrapper(snapshotWrapper(BUNDLE), ['PipeWrap', 'TTYWrap'], env);
    assert.deepEqual(run.listened, [], 'nothing listens while the snapshot is built');
    assert.ok(run.restored, 'net.Server.prototype.listen is the original again');
    assert.ok(run.main, 'a deserialized main function is set');
    env.PORT = '4123';
    run.main();
    // the port read from PORT at build time becomes the start's PORT; a port of its own is left alone
    assert.deepEqual(run.listened, [[4123, '127.0.0.1'], [{ port: 8080, host: '::' }]]);
  });

  it('stops the build with the names of what the top level leaves open', () => {
    assert.throws(
      () => runWrapper(snapshotWrapper('module.exports = 1;'), ['PipeWrap', 'Timeout', 'TCPWRAP', 'Timeout'], {}),
      /the app leaves Timeout, TCPWRAP open at the end of its top level/,
    );
  });

  it('fails the build with the error of a top level that throws', () => {
    assert.throws(() => runWrapper(snapshotWrapper('throw new TypeError("boom");'), [], {}), /boom/);
  });
});

const NODE20_STDERR = `(node:22608) Warning: It's not yet fully verified whether built-in module "node:http" works in user snapshot \
builder scripts.
(Use \`node --trace-warnings ...\` to show where the warning was created)
node:http:119
  METHODS: methods.toSorted(),
                   ^

TypeError: methods.toSorted is not a function
    at node:http:119:20
    at compileForInternalLoader (node:internal/bootstrap/realm:398:7)
`;

const NODE24_STDERR = `global handle not serialized: 0x8ca4dde5319: [[api object] 0]
 - map: 0x26e7ea51d811 <Map[48](HOLEY_ELEMENTS)> [FastProperties]
 - All own properties (excluding elements): {
    0x26e7ea5141e9: [String]: #HTTPParser: 0x26e7ea51c911 <JSFunction HTTPParser (sfi = 0x26e7ea51c8c9)> (const data field 0)
    0x5f0880c7369: [String]: #ConnectionsList: 0x26e7ea51d2a1 <JSFunction ConnectionsList (sfi = 0x26e7ea51d259)> (const data field 1)
 }
#
# Fatal error in , line 0
# CheckGlobalAndEternalHandles failed
`;

describe("a failed build's reason", () => {
  it("is node's error and where it was thrown (Node 20 inside node:http)", () => {
    assert.equal(
      snapshotErrorLine(NODE20_STDERR, 1, null),
      'cannot build a startup snapshot: TypeError: methods.toSorted is not a function (at node:http:119:20)',
    );
  });

  it("names what V8 could not serialize (Node 22 and 24: node:http's parser binding)", () => {
    assert.equal(
      snapshotErrorLine(NODE24_STDERR, null, 'SIGTRAP'),
      'cannot build a startup snapshot: V8: global handle not serialized (an object holding HTTPParser, ConnectionsList)',
    );
  });

  it('is one escaped, bounded line whatever node printed', () => {
    const line = snapshotErrorLine(`Error: \u001b[31m${'x'.repeat(5000)}\u202e\n    at here`, 1, null);
    assert.equal(line, oneLine(line), 'no control character');
    assert.ok(!line.includes('\u202e'), line);
    assert.ok(line.length <= 'cannot build a startup snapshot: '.length + 240);
    assert.equal(snapshotErrorLine('', null, 'SIGKILL'), 'cannot build a startup snapshot: node was stopped by SIGKILL');
  });

  it('comes from the builder: the wrapper written beside the bundle, PORT set, the blob only on success', () => {
    const bundle = path.join(dir, 'app.js');
    writeFileSync(bundle, BUNDLE);
    const calls: { command: string; args: string[]; port: string | undefined }[] = [];
    const builder = (result: BuilderResult) => (command: string, args: string[], env: NodeJS.ProcessEnv) => {
      calls.push({ command, args, port: env.PORT });
      return result;
    };
    const failed = buildSnapshot('/bin/node-x', bundle, {
      env: { PORT: '1' },
      cwd: dir,
      builder: builder({ status: 1, signal: null, output: NODE20_STDERR }),
    });
    assert.deepEqual(failed, {
      ok: false,
      error: 'cannot build a startup snapshot: TypeError: methods.toSorted is not a function (at node:http:119:20)',
    });
    const { wrapper, blob } = snapshotPaths(bundle);
    assert.deepEqual(calls[0], {
      command: '/bin/node-x',
      args: ['--snapshot-blob', blob, '--build-snapshot', wrapper],
      port: SNAPSHOT_BUILD_PORT,
    });
    assert.equal(existsSync(wrapper), true);
    const timedOut = buildSnapshot('/bin/node-x', bundle, {
      env: {},
      cwd: dir,
      builder: builder({ status: null, signal: 'SIGTERM', output: '', error: 'ETIMEDOUT' }),
    });
    assert.match(
      timedOut.ok ? '' : timedOut.error,
      /^cannot build a startup snapshot: the build did not end within its 120 s deadline and was stopped after /,
    );
    let t = 0;
    const ok = buildSnapshot('/bin/node-x', bundle, {
      env: {},
      cwd: dir,
      now: () => (t += 50),
      builder: builder({ status: 0, signal: null, output: '' }),
    });
    assert.deepEqual(ok, { ok: true, blob, wrapper, buildMs: 50 });
  });
});

describe('which apps get no snapshot variant', () => {
  const node = { kind: 'node' as const };
  it('a handler: the managed runtime starts node itself', () => {
    assert.match(
      snapshotUnsupported({ kind: 'lambda' }, { compileCache: 'off', measure: 'time' }, node) ?? '',
      /^not applicable to a Lambda handler: the managed runtime's bootstrap starts node itself/,
    );
    // a Web Function's server, whatever the app: its runtime starts node on index.js
    assert.match(
      snapshotUnsupported({ kind: 'lambda-web' }, { compileCache: 'off', measure: 'time' }, node) ?? '',
      /^not applicable to a Lambda Web Function: its runtime starts node on index\.js itself/,
    );
  });
  it('Bun, and a snapshot with a compile cache', () => {
    assert.match(
      snapshotUnsupported({ kind: 'server' }, { compileCache: 'off', measure: 'time' }, { kind: 'bun' }) ?? '',
      /^Bun has no V8 startup snapshot/,
    );
    assert.match(
      snapshotUnsupported({ kind: 'server' }, { compileCache: 'warm', measure: 'time' }, node) ?? '',
      /no module is loaded after it/,
    );
  });
  it('a counted cell: the blob refuses other V8 flags', () => {
    assert.match(
      snapshotUnsupported({ kind: 'server' }, { compileCache: 'off', measure: 'instructions' }, node) ?? '',
      /^not counted: a blob starts only under the V8 flags it was built with/,
    );
  });
  it('a server on node: tried', () => {
    assert.equal(snapshotUnsupported({ kind: 'server' }, { compileCache: 'off', measure: 'time' }, node), undefined);
  });
});

describe("a failed build's place", () => {
  it('names the file, never its folder, and none for what the wrapper refuses', () => {
    assert.equal(
      snapshotErrorLine('ReferenceError: x is not defined\n    at /home/u/app/dist/app.js.snapshot.js:30:11\n', 1, null),
      'cannot build a startup snapshot: ReferenceError: x is not defined (at app.js.snapshot.js:30:11)',
    );
    assert.equal(
      snapshotErrorLine('ReferenceError: x\n    at run (/home/u/app/dist/app.js.snapshot.js:3:1)\n', 1, null),
      'cannot build a startup snapshot: ReferenceError: x (at run (app.js.snapshot.js:3:1))',
    );
    assert.equal(
      snapshotErrorLine('Error: the app leaves Timeout open at the end of its top level (a timer)\n    at /home/u/w.js:30:11\n', 1, null),
      'cannot build a startup snapshot: Error: the app leaves Timeout open at the end of its top level (a timer)',
    );
  });
});
