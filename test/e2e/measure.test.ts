/**
 * `measure` on real small apps written here (a plain node:http server, an express app, an ESM hono
 * app, a Lambda handler importing zod): they measure end to end through the real command line and
 * every output, `--attribute` names the packages they import, and apps that misbehave fail their
 * sample with its reason, no process left behind (the usage errors: test/unit/measure-usage).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse as parseCsv } from 'csv-parse/sync';
import { readAttribution } from '../../metrics/store/attribution-file.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { processesWith, ROOT, runCli, tempDir, type CliResult } from '../support/helpers.ts';

/** A folder of apps that resolves the project's packages (a node_modules link), as a user's project does. */
function appFolder(files: Record<string, string>): string {
  const dir = tempDir('coldstart-apps-');
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

/** The start handlers had before the managed runtime's: the probe on the machine's node, a warm file cache, no reference. */
const PROBE_START = ['--lambda-runtime', 'node', '--lambda-bootstrap', 'probe', '--file-cache', 'warm', '--lambda-reference', 'off'];

const APPS = {
  'plain.js': `const http = require('node:http');
http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    // answers 201 only when --env reached it
    const ok = req.method === 'POST' && req.url === '/orders' && process.env.SHOP_NAME === 'corner-shop';
    res.writeHead(ok ? 201 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, id: JSON.parse(body || '{}').id }));
  });
}).listen(Number(process.env.PORT || 3000));
`,
  'shop.js': `const express = require('express');
const app = express();
app.use(express.json());
app.post('/orders', (req, res) => res.status(201).json({ ok: true, id: req.body.id }));
app.listen(process.env.PORT || 3000);
`,
  'edge.mjs': `import { serve } from '@hono/node-server';
import { Hono } from 'hono';
const app = new Hono();
app.post('/orders', async (c) => c.json({ ok: true, id: (await c.req.json()).id }, 201));
serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000) });
`,
  'orders.mjs': `import { z } from 'zod';
const Order = z.object({ id: z.number() });
export const handler = async (event) => {
  const order = Order.parse(JSON.parse(event.body));
  return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ok: true, id: order.id }) };
};
`,
  'body.json': '{"id": 7}',
  'event.json': JSON.stringify({ version: '2.0', rawPath: '/orders', body: '{"id": 7}', requestContext: { http: { method: 'POST' } } }),
};

describe('measure: four real apps end to end, with --attribute', () => {
  let apps: string;
  let dir: string;
  let run: CliResult;
  let samples: SampleRecord[];

  before(() => {
    apps = appFolder(APPS);
    dir = path.join(tempDir(), 'run');
    run = runCli([
      'measure',
      ...['--entry', path.join(apps, 'plain.js'), '--entry', path.join(apps, 'shop.js'), '--entry', path.join(apps, 'edge.mjs')],
      ...['--handler', path.join(apps, 'orders.handler'), '--event', path.join(apps, 'event.json')],
      ...['--request', 'POST /orders', '--body', path.join(apps, 'body.json'), '--expect-status', '201', '--expect-body', '"ok":\\s*true'],
      ...['--env', 'SHOP_NAME=corner-shop', '--samples', '2', '--warmup', '0', '--attribute', '--out', dir],
      // the handler on this machine's node through coldstart's bootstrap (its marks); the managed runtime's start: measure-ric.test.ts
      ...PROBE_START,
    ]);
    assert.equal(run.status, 0, run.stderr);
    samples = readSamples(path.join(dir, 'samples.jsonl'));
  });

  it('records every sample of every app as a cell of its own (source app), all answered as expected', () => {
    const names = [...new Set(samples.map((s) => `${s.cell.target}/${s.cell.framework}`))].sort();
    assert.deepEqual(names, ['lambda/orders', 'server/edge', 'server/plain', 'server/shop']);
    for (const s of samples) {
      assert.equal(s.ok, true, `${s.cell.framework}: ${s.error ?? ''}`);
      assert.equal(s.cell.source, 'app');
      assert.equal(s.cell.routes, 1);
      assert.ok(s.marks && s.marks.start! > 0 && s.marks.firstResponse >= s.marks.start!);
    }
    assert.equal(samples.filter((s) => s.phase === 'sample').length, 8);
  });

  it('has the phases boot → ready → first response: a server listens (no import marks), the handler ends INIT at its first next', () => {
    const server = samples.find((s) => s.cell.framework === 'shop')!;
    assert.ok(server.marks!.listen! > server.marks!.start! && server.marks!.firstResponse >= server.marks!.listen!);
    assert.equal(server.marks!.imported, undefined);
    assert.ok(server.cpu?.listen !== undefined);
    const handler = samples.find((s) => s.cell.framework === 'orders')!;
    assert.ok(handler.marks!.imported! >= handler.marks!.start! && handler.marks!.init! >= handler.marks!.imported!);
    assert.ok(handler.lambda && handler.lambda.durationMs >= 0);
  });

  it('writes every output: summary.csv and summary.md rows per app, meta.json with the apps, compare', () => {
    const rows = parseCsv<Record<string, string>>(readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true });
    assert.deepEqual(rows.map((r) => r.file).sort(), ['app:edge', 'app:plain', 'app:shop', 'lambda/app:orders']);
    assert.ok(rows.every((r) => r.source === 'app'));
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(md, /\| app:shop \|/);
    assert.match(
      md,
      /- \*\*Apps:\*\* plain \(server `[^`]*plain\.js`, `POST \/orders`\); .* orders \(handler `orders\.handler` in `[^`]+`\)/,
    );
    assert.match(md, /## Where the cold start goes, by package/);
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as {
      spec: { source: { apps: { name: string; env?: string[] }[] } };
    };
    assert.deepEqual(
      meta.spec.source.apps.map((a) => a.name),
      ['plain', 'shop', 'edge', 'orders'],
    );
    // the apps' variables reach them (plain.js echoes one) and meta.json keeps their names, never their values
    assert.deepEqual(meta.spec.source.apps[0]!.env, ['SHOP_NAME']);
    assert.doesNotMatch(readFileSync(path.join(dir, 'meta.json'), 'utf8'), /corner-shop/);
    const compared = runCli(['compare', dir, dir]);
    assert.equal(compared.status, 0, compared.stderr);
    assert.match(compared.stdout, /app:edge/);
  });

  it('attributes each app to the packages it imports, the selves summing to the profiled time', () => {
    const file = readAttribution(dir);
    assert.ok(file);
    const byName = new Map(file.cells.map((c) => [c.cell.framework, c]));
    const packages = (name: string) => new Set(byName.get(name)?.attribution?.packages.map((p) => p.name));
    assert.ok(packages('shop').has('express'), [...packages('shop')].join(','));
    assert.ok(packages('shop').has('(app)'));
    assert.ok(packages('edge').has('hono') || packages('edge').has('@hono/node-server'), [...packages('edge')].join(','));
    assert.ok(packages('orders').has('zod'), [...packages('orders')].join(','));
    assert.ok(![...packages('plain')].some((p) => !p.startsWith('(')), 'node:http alone imports no package');
    for (const entry of file.cells) {
      const a = entry.attribution!;
      assert.equal(entry.ok, true, entry.reason);
      const self = a.packages.reduce((sum, p) => sum + p.selfMs, 0);
      assert.ok(Math.abs(self - a.profiledMs) < 1e-6 * Math.max(1, a.profiledMs), `${self} vs ${a.profiledMs}`);
      for (const p of a.packages) assert.ok(p.inclusiveMs >= p.selfMs - 1e-9, p.name);
      // INIT (to the listen, or the handler's first next) cut out of the same profile: its selves add up to it
      assert.ok(a.init && a.init.profiledMs <= a.profiledMs + 1e-6, `${entry.cell.framework}: ${JSON.stringify(a.init)}`);
      const initSelf = a.packages.reduce((sum, p) => sum + (p.initSelfMs ?? 0), 0);
      assert.ok(Math.abs(initSelf - a.init.profiledMs) < 1e-6 * Math.max(1, a.init.profiledMs), `${initSelf} vs ${a.init.profiledMs}`);
    }
    const express = byName.get('shop')!.attribution!;
    assert.ok(
      express.modules.some((m) => m.file.startsWith('express/')),
      'express has module loads',
    );
    assert.ok(existsSync(path.join(dir, 'attribution.md')) && existsSync(path.join(dir, 'chart-attribution.svg')));
  });

  it('rebuilds the same attribution.md from the run folder (report)', () => {
    const before = readFileSync(path.join(dir, 'attribution.md'), 'utf8');
    const report = runCli(['report', dir]);
    assert.equal(report.status, 0, report.stderr);
    assert.equal(readFileSync(path.join(dir, 'attribution.md'), 'utf8'), before);
  });
});

describe('measure: bad input', () => {
  it('fails the sample with its reason: never listens, another port, wrong status, wrong body, missing export, not a function', () => {
    const marker = `coldstart-never-${process.pid}`;
    const apps = appFolder({
      'never.js': 'setInterval(() => {}, 1000);',
      'elsewhere.js': `require('node:http').createServer((q, s) => s.end('{"ok":true}')).listen(0);`,
      'missing.js': `require('node:http').createServer((q, s) => { s.statusCode = 404; s.end('nope'); }).listen(process.env.PORT);`,
      'wrongbody.js': `require('node:http').createServer((q, s) => s.end('{"ok":false}')).listen(process.env.PORT);`,
      'h.js': 'exports.handler = async () => ({ ok: true });\nexports.notfn = 42;',
      'event.json': '{"anything": [1, 2]}',
    });
    const dir = path.join(tempDir(), 'run');
    const run = runCli([
      'measure',
      ...['--entry', `${path.join(apps, 'never.js')} ${marker}`, '--entry', path.join(apps, 'elsewhere.js')],
      ...['--entry', path.join(apps, 'missing.js'), '--entry', path.join(apps, 'wrongbody.js')],
      ...['--handler', path.join(apps, 'h.nope'), '--handler', path.join(apps, 'h.notfn'), '--event', path.join(apps, 'event.json')],
      ...['--name', 'never,elsewhere,missing,wrongbody,nope,notfn', '--expect-body', '"ok":true'],
      ...['--samples', '1', '--warmup', '0', '--timeout', '8', '--out', dir],
      ...PROBE_START,
    ]);
    // every sample failed: the run says so with its own exit code (issue 20)
    assert.equal(run.status, 3, run.stderr);
    assert.match(run.stderr, /coldstart: 6 sample\(s\) failed \(see summary\.md\): exit 3/);
    const reasons = new Map(readSamples(path.join(dir, 'samples.jsonl')).map((s) => [s.cell.framework, s.ok ? 'ok' : (s.error ?? '')]));
    assert.match(reasons.get('never')!, /no listening server within \d+ ms/);
    assert.match(reasons.get('elsewhere')!, /the app listened on port \d+, not on the PORT=\d+ it was given/);
    assert.match(
      reasons.get('missing')!,
      /GET \/ answered 404, expected 200 \(the app has no such route: name one it answers with --request/,
    );
    assert.match(reasons.get('missing')!, /--request 'GET \/health'\): nope$/);
    assert.match(reasons.get('wrongbody')!, /its body does not match \/"ok":true\//);
    assert.match(reasons.get('nope')!, /failed during INIT .*exports no "nope" \(it exports: handler, notfn\)/);
    assert.match(reasons.get('notfn')!, /failed during INIT .*the export "notfn" is a number, not a function/);
    assert.deepEqual(processesWith(marker), [], 'the app that never listened is gone');
    assert.match(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /## Failures/);
  });
});
