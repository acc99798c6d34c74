/**
 * Every framework × route shape × schema weight, for real: the file generates, starts, answers
 * every one of its routes correctly through the runner (the timed last route, then first hits to
 * all N-1 others), rejects an invalid body, and answers an independent request (fetch, not the
 * runner's code, in the same child) to a random route; the Lambda file the same through the
 * runner's Runtime API, in every shape with the small schema and flat with the user schema. Small N
 * and one sample each: a few minutes in all. Combinations a framework cannot be written in are
 * unsupported (test/e2e/shapes.test.ts) and skipped here with their reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import seedrandom from 'seedrandom';
import { loadGenerators, missingPackage } from '../../generators/registry.ts';
import { paramsOf, paramValue, requestPath, routeTable } from '../../generators/routes.ts';
import type { FrameworkGenerator } from '../../generators/types.ts';
import { userBody } from '../../generators/user-model.ts';
import { unsupportedReason, writeGenerated } from '../../generators/write.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import { lambdaTarget } from '../../metrics/measure/targets/lambda.ts';
import { serverTarget } from '../../metrics/measure/targets/server.ts';
import type { Target } from '../../metrics/measure/targets/target.ts';
import { runFile } from '../support/helpers.ts';
import { SCHEMAS, SHAPES, type Schema, type Shape } from '../../metrics/core/dimensions.ts';

const ROUTES = 12;

/**
 * The test's own request to one route of a running server and its own reading of the answer (not the
 * runner's code). An RPC framework (mion) takes the route's parameters in its envelope,
 * `{"route-<i>": [body]}`, and answers under the route id.
 */
async function independentRequest(port: number, shape: Shape, schema: Schema, label: string, rpc: boolean): Promise<void> {
  const random = seedrandom(`independent ${label}`);
  const row = routeTable(shape, ROUTES)[Math.floor(random() * ROUTES)]!;
  const name = 'independent';
  const id = `route-${row.i}`;
  const payload = schema === 'user' ? userBody(name) : rpc ? name : { name };
  const body = row.body ? (rpc ? { [id]: [payload] } : payload) : undefined;
  const response = await fetch(`http://127.0.0.1:${port}${requestPath(row)}`, {
    method: row.method,
    ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  const whole = (await response.json()) as Record<string, unknown>;
  const answer = (rpc ? whole[id] : whole) as Record<string, unknown>;
  const where = `${label}: ${row.method} ${requestPath(row)} → ${response.status} ${JSON.stringify(whole).slice(0, 300)}`;
  assert.equal(response.status, 200, where);
  assert.equal(answer.route, row.i, where);
  for (const param of paramsOf(row)) assert.equal(answer[param], paramValue(param, row.i), where);
  if (row.body) assert.equal(answer.hello, name, where);
  if (row.body && schema === 'user') {
    const user = answer.user as { profile: { displayName: string }; updatedAt: string };
    assert.equal(user.profile.displayName, 'Ada L.', where);
    assert.ok(Date.parse(user.updatedAt) > Date.parse('2025-06-01T12:00:00.000Z'), `the handler updated the user: ${where}`);
  }
}

/**
 * The server target with one more step: once the runner has measured and checked the sample, and
 * before the child is stopped, the test sends its own request to the same server (one spawn for both).
 */
function serverWithIndependentRequest(shape: Shape, schema: Schema, label: string, rpc: boolean): Target {
  return {
    name: 'server',
    async open(sample) {
      const inner = await serverTarget.open(sample);
      return {
        ...inner,
        async measure(io) {
          let port: number | undefined;
          const measured = await inner.measure({
            ...io,
            protocolLine: async (what) => {
              const line = await io.protocolLine(what);
              port ??= (JSON.parse(line) as { port?: number }).port;
              return line;
            },
          });
          await independentRequest(port!, shape, schema, label, rpc);
          return measured;
        },
      };
    },
  };
}

async function checkRun(generator: FrameworkGenerator, shape: Shape, schema: Schema): Promise<void> {
  const { file } = await writeGenerated(generator, ROUTES, 'validated', undefined, { shape, schema });
  const cell = makeCell({ framework: generator.name, variant: 'validated', routes: ROUTES, shape, schema, target: generator.target });
  const sample = await runFile(file, {
    cell,
    generator,
    timeoutMs: 60_000,
    checkInvalidBody: true,
    firstHits: ROUTES - 1,
    target:
      generator.target === 'lambda'
        ? lambdaTarget
        : serverWithIndependentRequest(shape, schema, `${generator.name} ${shape} ${schema}`, generator.contract?.envelope !== undefined),
  });
  assert.equal(sample.ok, true, `${sample.error}\n${sample.stderrTail ?? ''}`);
  assert.deepEqual(
    [...sample.firstHits!.routes].sort((a, b) => a - b),
    Array.from({ length: ROUTES - 1 }, (_, i) => i),
    'the first hits reach every other route',
  );
  assert.equal(sample.invalidBody?.ok, true, sample.invalidBody?.reason);
}

for (const target of ['server', 'lambda'] as const) {
  for (const generator of await loadGenerators(target)) {
    const missing = missingPackage(generator);
    describe(`${generator.name} (${target})`, { skip: missing ? `${missing} not installed` : false }, () => {
      for (const shape of SHAPES) {
        for (const schema of SCHEMAS) {
          const lambdaSkips = target === 'lambda' && schema === 'user' && shape !== 'flat';
          const why = unsupportedReason(generator, { shape, schema });
          const own = target === 'server' ? ', answers a request of its own' : '';
          it(
            `${shape} × ${schema}: answers every route, rejects an invalid body${own}`,
            {
              skip: why ? `unsupported: ${why}` : lambdaSkips ? 'the user schema on Lambda is checked with the flat shape' : false,
            },
            async () => {
              await checkRun(generator, shape, schema);
            },
          );
        }
      }
    });
  }
}
