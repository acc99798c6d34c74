/**
 * Route shapes and schema weights without running a server: the route table, the first-hit list,
 * the flat + small files byte for byte as they always were, the unsupported combinations, the
 * cell dimension (old records read as flat + small), and the report's first-hit and lever parts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { answerMatches, expectedAnswer, invalidRequest, PROBE_NAME, validRequest, defaultContract } from '../../generators/contract.ts';
import { loadGenerators } from '../../generators/registry.ts';
import { firstHitRoutes, GROUP_SIZE, requestPath, routeTable } from '../../generators/routes.ts';
import { generatedRelativePath, unsupportedReason } from '../../generators/write.ts';
import { userBody } from '../../generators/user-model.ts';
import { cellKey, cellLabel, makeCell, parseCell, shownDimensions } from '../../metrics/core/cell.ts';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { firstHitSummaries } from '../../metrics/analyse/first-hits.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { leverMarkdown, largestDropSentences } from '../../metrics/report/levers.ts';
import { FIXTURES, runCli } from '../support/helpers.ts';
import { targetKind } from '../../metrics/core/kinds.ts';
import { TARGETS, VARIANTS, SCHEMAS, SHAPES, type Shape } from '../../metrics/core/dimensions.ts';

describe('the route table', () => {
  for (const shape of SHAPES) {
    it(`${shape}: N routes, each a distinct method and path, numbered 0 … N-1`, () => {
      for (const n of [1, 7, 23]) {
        const table = routeTable(shape, n);
        assert.deepEqual(
          table.map((r) => r.i),
          Array.from({ length: n }, (_, i) => i),
        );
        const requests = table.map((r) => `${r.method} ${requestPath(r)}`);
        assert.equal(new Set(requests).size, n, requests.join(', '));
      }
    });
  }

  it('params: one or two parameters behind N distinct static prefixes', () => {
    const table = routeTable('params', 4);
    assert.deepEqual(table.map(requestPath), ['/users-0/id0', '/orgs-1/org1/items/item1', '/users-2/id2', '/orgs-3/org3/items/item3']);
    assert.deepEqual(expectedAnswer(table[1]!, 'small', 'ada'), [
      ['hello', 'ada'],
      ['route', 1],
      ['org', 'org1'],
      ['item', 'item1'],
    ]);
  });

  it(`nested: groups of ${GROUP_SIZE} under /group-<g>`, () => {
    const table = routeTable('nested', 25);
    assert.equal(requestPath(table[0]!), '/group-0/route-0');
    assert.equal(requestPath(table[24]!), '/group-2/route-24');
    assert.equal(new Set(table.map((r) => r.group)).size, 3);
  });

  it('rest: five methods per resource, bodies only on POST and PUT', () => {
    const table = routeTable('rest', 5);
    assert.deepEqual(
      table.map((r) => `${r.method} ${requestPath(r)} ${r.body}`),
      ['GET /items-0 false', 'GET /items-0/id1 false', 'POST /items-0 true', 'PUT /items-0/id3 true', 'DELETE /items-0/id4 false'],
    );
    assert.equal(invalidRequest(table[0]!, 'small', defaultContract, PROBE_NAME), undefined);
    assert.equal(validRequest(table[4]!, 'small', defaultContract, PROBE_NAME).body, undefined);
  });

  it('the user schema: the ~1 KB body, and an answer that must carry the updated user', () => {
    const size = Buffer.byteLength(JSON.stringify(userBody(PROBE_NAME)));
    assert.ok(size > 800 && size < 1500, `${size} bytes`);
    const row = routeTable('flat', 1)[0]!;
    const expected = expectedAnswer(row, 'user', 'ada');
    const user = { ...userBody('ada'), profile: { ...(userBody('ada').profile as object), displayName: 'Ada L.' } };
    assert.ok(answerMatches({ hello: 'ada', route: 0, user }, expected));
    assert.ok(!answerMatches({ hello: 'ada', route: 0 }, expected), 'without the user');
    assert.ok(!answerMatches({ hello: 'ada', route: 1, user }, expected), 'another route');
  });
});

describe('first hits', () => {
  it('are deterministic for a given N and K, distinct, never the last route, one per stretch', () => {
    for (const [n, k] of [
      [100, 10],
      [1000, 10],
      [12, 11],
      [7, 3],
    ] as const) {
      const hits = firstHitRoutes(n, k);
      assert.deepEqual(hits, firstHitRoutes(n, k));
      assert.equal(hits.length, k);
      assert.equal(new Set(hits).size, k);
      hits.forEach((i, j) => {
        assert.ok(i >= Math.floor((j * (n - 1)) / k) && i < Math.floor(((j + 1) * (n - 1)) / k), `hit ${j}: ${i}`);
      });
    }
    assert.deepEqual(firstHitRoutes(100, 10), [1, 9, 28, 34, 44, 54, 64, 76, 80, 90]);
  });

  it('are capped at the other N-1 routes, and none for N = 1 or K = 0', () => {
    assert.deepEqual(firstHitRoutes(5, 10), [0, 1, 2, 3]);
    assert.deepEqual(firstHitRoutes(1, 10), []);
    assert.deepEqual(firstHitRoutes(100, 0), []);
  });
});

describe('flat + small files are byte-identical to the files before shapes existed', () => {
  const expected = JSON.parse(readFileSync(path.join(FIXTURES, 'flat-small-hashes.json'), 'utf8')) as Record<string, string>;
  it('every generator of every target, both variants, at N = 1, 3 and 10 (explicit flat + small too)', async () => {
    let compared = 0;
    // lambda-web came after shapes: its files are the servers' rewritten (test/unit/lambda-web.test.ts)
    for (const target of TARGETS.filter((t) => targetKind(t).derivedFrom === undefined)) {
      for (const generator of await loadGenerators(target)) {
        if (generator.unsupported) continue;
        for (const variant of VARIANTS) {
          for (const routes of [1, 3, 10]) {
            const key = `${target}/${generator.name}/${variant}/${routes}`;
            const hash = (source: string) => createHash('sha256').update(source).digest('hex');
            assert.equal(hash(await generator.generate({ routes, variant })), expected[key], key);
            assert.equal(hash(await generator.generate({ routes, variant, shape: 'flat', schema: 'small' })), expected[key], key);
            compared++;
          }
        }
      }
    }
    assert.equal(compared, Object.keys(expected).length);
  });

  it('live in the same place; other shapes and schemas in folders of their own', () => {
    assert.equal(generatedRelativePath('hono', 'validated', 10, 'server', { shape: 'flat', schema: 'small' }), '10-startup-hono-routes.js');
    assert.equal(
      generatedRelativePath('hono', 'plain', 10, 'lambda', { shape: 'rest', schema: 'user' }),
      'lambda/plain/rest/user/10-startup-hono-routes.js',
    );
    assert.equal(generatedRelativePath('hono', 'validated', 10, 'server', { schema: 'user' }), 'user/10-startup-hono-routes.js');
  });
});

describe('what a framework cannot be written in is unsupported, with its reason', () => {
  it('restify has no grouping; mion is RPC (no path parameters, methods or group prefixes), with the User', async () => {
    const server = new Map((await loadGenerators('server')).map((g) => [g.name, g]));
    assert.match(unsupportedReason(server.get('restify')!, { shape: 'nested' }) ?? '', /no route grouping/);
    assert.equal(unsupportedReason(server.get('restify')!, { shape: 'rest', schema: 'user' }), undefined);
    for (const shape of ['params', 'nested', 'rest'] as const)
      assert.match(unsupportedReason(server.get('mion')!, { shape }) ?? '', /mion is RPC/);
    assert.equal(unsupportedReason(server.get('mion')!, { schema: 'user' }), undefined);
    const supported = [...server.values()].filter((g) => g.name !== 'mion' && g.name !== 'restify');
    for (const g of supported)
      for (const shape of SHAPES) for (const schema of SCHEMAS) assert.equal(unsupportedReason(g, { shape, schema }), undefined);
  });
});

describe('shape and schema as cell dimensions', () => {
  it('an old record has neither: it reads as flat + small, with the key, label and columns it always had', () => {
    const old = parseCell({
      framework: 'fastify',
      variant: 'validated',
      routes: 10,
      runtime: 'node',
      build: 'plain',
      compileCache: 'off',
    })!;
    assert.equal(old.shape, 'flat');
    assert.equal(old.schema, 'small');
    assert.equal(cellKey(old), 'fastify|validated|10|node|plain|off');
    assert.equal(cellLabel(old), '10-startup-fastify-routes.js');
    assert.ok(!shownDimensions([old]).includes('shape'));
  });

  it('a shaped cell keys, labels and shows them', () => {
    const cell = makeCell({ framework: 'fastify', variant: 'validated', routes: 10, shape: 'params', schema: 'user' });
    assert.equal(cellKey(cell), 'fastify|validated|10|node|plain|off|shape=params|schema=user');
    assert.equal(cellLabel(cell), 'params/user/10-startup-fastify-routes.js');
    assert.deepEqual(parseCell(JSON.parse(JSON.stringify(cell))), cell);
    assert.ok(shownDimensions([cell]).includes('shape') && shownDimensions([cell]).includes('schema'));
  });
});

function sample(shape: Shape, routes: number, firstResponse: number, latencyMs?: number[]): SampleRecord {
  return {
    cell: makeCell({ framework: 'fastify', variant: 'validated', routes, shape }),
    phase: 'sample',
    index: 1,
    ok: true,
    marks: { start: 10, imported: 20, startup: 30, listen: 40, firstResponse },
    durationMs: firstResponse + 5,
    at: '2026-01-01T00:00:00.000Z',
    ...(latencyMs ? { firstHits: { routes: latencyMs.map((_, i) => i), latencyMs, allWarm: firstResponse + 10 } } : {}),
  };
}

describe('the report', () => {
  it('first hits: every latency of every sample pooled, all-warm per sample', () => {
    const summaries = firstHitSummaries([sample('flat', 10, 100, [1, 2, 9]), sample('flat', 10, 120, [3, 4, 5]), sample('params', 10, 90)]);
    assert.equal(summaries.size, 1);
    const [hits] = [...summaries.values()];
    assert.equal(hits!.latency.median, 3.5);
    assert.equal(hits!.latency.max, 9);
    assert.equal(hits!.allWarm.median, 120);
    assert.equal(hits!.hits, 3);
  });

  it('shape gets a lever table but is never "the lever that helps"', () => {
    const summaries = aggregate([sample('flat', 10, 100), sample('params', 10, 50)]);
    const text = leverMarkdown(summaries, undefined, '##') ?? '';
    assert.match(text, /## shape: flat vs params/);
    assert.match(text, /50\.0 \(0\.50×\)/);
    assert.match(largestDropSentences(summaries).join('\n'), /no lever could be compared/);
  });
});

describe('the command line', () => {
  it('--shape and --schema take a list or all; anything else is a one-line error and exit 2', () => {
    for (const args of [
      ['--shape', 'diagonal'],
      ['--schema', 'huge'],
    ]) {
      const result = runCli(['generate', '-f', 'node-http', '-r', '1', ...args]);
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, new RegExp(args[0]!));
    }
  });

  it('lambda:package refuses other shapes and schemas (AWS function names do not carry them): exit 2', () => {
    const result = runCli([
      'lambda-package',
      '-f',
      'node-http',
      '-r',
      '1',
      '--shape',
      'params',
      '--out',
      path.join(FIXTURES, 'never-written'),
    ]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /flat shape with the small schema only/);
  });
});
