/**
 * Attribution by package: the owner of a frame's file, self and inclusive time and module loads on a
 * synthetic profile whose answer is known, and `run --attribute` on a generated fastify cell (its
 * profile names fastify, its report lists it; with --build bundle, bytes per package beside it).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attributeProfile } from '../../metrics/analyse/attribution.ts';
import type { CpuProfile, CpuProfileNode } from '../../metrics/core/cpu-profile.ts';
import { ownerOf } from '../../metrics/core/packages.ts';
import { readAttribution } from '../../metrics/store/attribution-file.ts';
import { runCli, tempDir } from '../support/helpers.ts';

describe('ownerOf', () => {
  it('names the package that owns a file, the app, Node and native frames', () => {
    assert.equal(ownerOf('file:///p/node_modules/fastify/fastify.js'), 'fastify');
    assert.equal(ownerOf('file:///p/node_modules/@hono/node-server/dist/index.mjs'), '@hono/node-server');
    assert.equal(ownerOf('/p/node_modules/a/node_modules/b/index.js'), 'b');
    assert.equal(ownerOf('file:///p/src/server.js'), '(app)');
    assert.equal(ownerOf('file:///p/my%20app/server.js', ['/p/my app/server.js']), '(coldstart)');
    assert.equal(ownerOf('node:internal/modules/cjs/loader'), '(node)');
    assert.equal(ownerOf(''), '');
  });
});

/** A profile tree from `parent → children` lines: `[id, functionName, url, line, column, children]`. */
function profile(nodes: [number, string, string, number, number, number[]][], samples: number[], deltas: number[]): CpuProfile {
  const list: CpuProfileNode[] = nodes.map(([id, functionName, url, lineNumber, columnNumber, children]) => ({
    id,
    callFrame: { functionName, url, lineNumber, columnNumber },
    children,
  }));
  const end = deltas.reduce((a, b) => a + b, 0) + 1000;
  return { nodes: list, startTime: 0, endTime: end, samples, timeDeltas: deltas };
}

describe('attributeProfile', () => {
  // (root) → app top level → require (node) → compileFunction (native) ; app → fastify top level → fastify fn; (gc); (idle)
  const app = 'file:///p/app.js';
  const fastify = 'file:///p/node_modules/fastify/fastify.js';
  const p = profile(
    [
      [1, '(root)', '', -1, -1, [2, 7, 8, 9]],
      [2, '', app, 0, 0, [3, 5]],
      [3, 'require', 'node:internal/modules/cjs/loader', 10, 2, [4]],
      [4, 'compileFunction', '', -1, -1, []],
      [5, '', fastify, 0, 0, [6]],
      [6, 'build', fastify, 40, 2, []],
      [7, '(garbage collector)', '', -1, -1, []],
      [8, '(idle)', '', -1, -1, []],
      [9, 'bootstrap', 'node:internal/main/run_main_module', 1, 1, []],
    ],
    // each sample lasts until the next one; the last one until endTime (1000 µs after it)
    [9, 4, 6, 6, 2, 7, 8],
    [0, 1000, 2000, 1000, 1000, 500, 500],
  );
  const a = attributeProfile(p, { appRoot: '/p' });
  const by = new Map(a.packages.map((x) => [x.name, x]));

  it('charges each sample to its owner, internals to the package or app that called them; the selves add up', () => {
    // sample durations: 9:1, 4:2, 6:1, 6:1, 2:0.5, 7:0.5, 8:1 (ms)
    assert.equal(by.get('(node)')!.selfMs, 1); // bootstrap, nothing above it
    assert.equal(by.get('(app)')!.selfMs, 2 + 0.5); // compileFunction under require under app, and app itself
    assert.equal(by.get('fastify')!.selfMs, 2);
    assert.equal(by.get('(gc)')!.selfMs, 0.5);
    assert.equal(by.get('(idle)')!.selfMs, 1);
    assert.equal(a.profiledMs, 7);
    assert.equal(a.busyMs, 6);
    assert.equal(
      a.packages.reduce((s, x) => s + x.selfMs, 0),
      a.profiledMs,
    );
  });

  it('keeps the self times up to the end of INIT apart, a sample split where INIT ends; they add up to INIT', () => {
    const cut = attributeProfile(p, { appRoot: '/p', initEndUs: 3500 });
    const at = new Map(cut.packages.map((x) => [x.name, x.initSelfMs]));
    // 0–1000 µs (node), 1000–3000 (app, its require), then half of the first fastify sample
    assert.deepEqual([at.get('(node)'), at.get('(app)'), at.get('fastify'), at.get('(gc)'), at.get('(idle)')], [1, 2, 0.5, 0, 0]);
    assert.deepEqual(cut.init, { profiledMs: 3.5, busyMs: 3.5 });
    assert.equal(
      cut.packages.reduce((s, x) => s + x.initSelfMs!, 0),
      cut.init.profiledMs,
    );
    // the whole profile is the same with or without the cut
    assert.deepEqual(
      cut.packages.map(({ initSelfMs: _i, ...rest }) => rest),
      a.packages,
    );
    // an end outside the profile (clocks that disagree) gives no cut rather than a wrong one
    assert.equal(attributeProfile(p, { initEndUs: 10_000_000 }).init, undefined);
    assert.equal(attributeProfile(p, { initEndUs: -5 }).packages[0]!.initSelfMs, undefined);
  });

  it('lists an owner that was on the stack but never on top, with its inclusive time and no self time', () => {
    // the app's top level only calls fastify: no sample has the app on top
    const calls = profile(
      [
        [1, '(root)', '', -1, -1, [2]],
        [2, '', app, 0, 0, [3]],
        [3, 'build', fastify, 40, 2, []],
      ],
      [3, 3],
      [0, 1000],
    );
    const owners = new Map(attributeProfile(calls, { appRoot: '/p' }).packages.map((x) => [x.name, x]));
    assert.deepEqual(owners.get('(app)'), { name: '(app)', selfMs: 0, inclusiveMs: 2 });
    assert.equal(owners.get('fastify')!.selfMs, 2);
  });

  it('counts inclusive time once per owner on the stack, and module loads from top-level frames', () => {
    assert.equal(by.get('(app)')!.inclusiveMs, 2 + 2 + 0.5); // the require, fastify's samples, its own
    assert.equal(by.get('fastify')!.inclusiveMs, 2);
    assert.deepEqual(
      a.modules.map((m) => [m.file, m.owner, m.loadMs]),
      [
        ['app.js', '(app)', 4.5],
        ['fastify/fastify.js', 'fastify', 2],
      ],
    );
  });
});

describe('run --attribute on a generated cell', () => {
  it('attributes fastify at 10 routes to fastify and its dependencies, and counts the bundle bytes per package', () => {
    const dir = path.join(tempDir(), 'run');
    const run = runCli(
      ['run', '--frameworks', 'fastify', '--routes', '10', '--samples', '1', '--warmup', '0'].concat([
        '--build',
        'plain,bundle',
        '--attribute',
        '--out',
        dir,
      ]),
    );
    assert.equal(run.status, 0, run.stderr);
    const file = readAttribution(dir);
    assert.ok(file);
    assert.equal(file.cells.length, 2);
    const plain = file.cells.find((c) => c.cell.build === 'plain')!;
    const names = plain.attribution!.packages.map((p) => p.name);
    assert.ok(names.includes('fastify'), names.join(','));
    assert.ok(names.includes('(app)'), names.join(','));
    // the profile is cut where the server listened: INIT's part is there
    assert.ok(plain.attribution!.init && plain.attribution!.init.profiledMs <= plain.attribution!.profiledMs + 1e-6);
    assert.equal(plain.bundleBytes, undefined);
    const bundle = file.cells.find((c) => c.cell.build === 'bundle')!;
    assert.ok(bundle.bundleBytes && bundle.bundleBytes.fastify! > 10_000, JSON.stringify(bundle.bundleBytes));
    assert.ok(bundle.bundleBytes['(app)']! > 0);
    // the bundle's frames are mapped back to their packages through its source map
    const bundled = bundle.attribution!.packages.map((p) => p.name);
    assert.ok(bundled.includes('fastify'), bundled.join(','));
    const md = readFileSync(path.join(dir, 'attribution.md'), 'utf8');
    assert.match(md, /## 10-startup-fastify-routes\.js\n/);
    assert.match(md, /\| `fastify` \| [\d.]+ \| [\d.]+ % \|/);
    assert.match(md, /bytes in the bundle/);
    assert.ok(existsSync(path.join(dir, 'chart-attribution.svg')));
  });
});
