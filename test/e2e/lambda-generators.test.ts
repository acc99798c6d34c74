/**
 * The Lambda contract test: every Lambda generator whose packages are installed is written, run as
 * `node <file>` with a clean environment against the test's Runtime API, and must answer its last
 * route (200 with its body), reject an invalid body (4xx, validated variants) and print its two
 * COLDSTART lines. Also: structure, determinism, syntax, the handler used by a managed runtime (no
 * bootstrap), the esbuild bundle answering from a folder without node_modules, and the registry.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { contractOf, isExpectedAnswer, PROBE_NAME } from '../../generators/contract.ts';
import { readLambdaResult, routeEvent } from '../../generators/lambda-event.ts';
import { LAMBDA_PROBE, readLambdaLine, type LambdaAfterLine, type LambdaReadyLine } from '../../generators/lambda-probe.ts';
import { adapterLabel, installedVersion, loadGenerators, missingPackage, packageOf } from '../../generators/registry.ts';
import type { FrameworkGenerator } from '../../generators/types.ts';
import { generatedRelativePath, UnsupportedError, writeGenerated } from '../../generators/write.ts';
import { bundleFile } from '../../metrics/plan/bundle.ts';
import { runLambda } from '../support/lambda-helpers.ts';
import { VARIANTS, type Variant } from '../../metrics/core/dimensions.ts';

const generators = await loadGenerators('lambda');
const servers = await loadGenerators('server');

function numbersOf(source: string, pattern: RegExp): Set<number> {
  return new Set([...source.matchAll(pattern)].map((m) => Number(m[1])));
}

function linesOf(stdout: string): (LambdaReadyLine | LambdaAfterLine)[] {
  return stdout
    .split('\n')
    .map((line) => readLambdaLine(line))
    .filter((line) => line !== undefined);
}

/** Run a Lambda file with the valid then the invalid event for its last route; check the answers and lines. */
async function checkContract(generator: FrameworkGenerator, file: string, routes: number, variant: Variant): Promise<void> {
  const contract = contractOf(generator);
  const last = routes - 1;
  // in the payload format the generator's adapter is deployed with (mion's: 1.0)
  const format = { format: contract.eventFormat };
  const run = await runLambda(file, {
    events: [routeEvent(last, contract.validBody(last, PROBE_NAME), format), routeEvent(last, contract.invalidBody(last), format)],
  });
  const [valid, invalid] = run.outcomes;
  const context = `\nstderr: ${run.stderr.slice(-2000)}\nfailures: ${run.api.failures().join('; ')}`;
  assert.equal(valid?.kind, 'response', `${JSON.stringify(valid).slice(0, 500)}${context}`);
  assert.equal(invalid?.kind, 'response', `${JSON.stringify(invalid).slice(0, 500)}${context}`);

  const answer = readLambdaResult(valid.body);
  assert.ok(answer.ok && answer.status === 200, JSON.stringify(answer));
  assert.ok(isExpectedAnswer(answer.body, last, PROBE_NAME), `route ${last} answers its own body: ${JSON.stringify(answer.body)}`);
  const rejected = readLambdaResult(invalid.body);
  assert.ok(rejected.ok, JSON.stringify(rejected));
  if (variant === 'validated' || generator.alwaysValidates) {
    assert.ok(rejected.status >= 400 && rejected.status < 500, `invalid body: ${rejected.status}`);
  } else assert.ok(rejected.status < 400, `plain does not validate: got ${rejected.status}`);

  assert.ok(run.api.initEnd !== undefined && valid.handedOutAt !== undefined);
  assert.ok(run.spawnedAt < run.api.initEnd && run.api.initEnd <= valid.handedOutAt && valid.handedOutAt <= valid.at);

  const lines = linesOf(run.stdout);
  assert.equal(lines.length, 2, `two COLDSTART lines:\n${run.stdout}`);
  const [ready, after] = lines as [LambdaReadyLine, LambdaAfterLine];
  assert.equal(ready.target, 'lambda');
  assert.equal(ready.pid, run.pid);
  assert.equal(ready.runtime, `node ${process.version}`);
  assert.ok(ready.marks.start <= ready.marks.imported && ready.marks.imported <= ready.marks.startup, JSON.stringify(ready.marks));
  assert.ok(ready.cpu.start <= ready.cpu.imported && ready.cpu.imported <= ready.cpu.startup, JSON.stringify(ready.cpu));
  assert.equal(after.after, 'firstResponse');
  assert.ok(after.cpu >= ready.cpu.startup && after.rss > 0 && ready.rss > 0 && ready.heapUsed > 0);
}

it('every server framework has a Lambda generator, each with an adapter or a reason it is unsupported', () => {
  assert.deepEqual(
    generators.map((g) => g.name),
    servers.map((g) => g.name),
  );
  for (const generator of generators) {
    assert.equal(generator.target, 'lambda');
    assert.ok(Boolean(generator.adapter) !== Boolean(generator.unsupported), `${generator.name}: adapter xor unsupported`);
    if (generator.adapter && generator.adapter !== 'none') {
      const pkg = packageOf(generator.adapter);
      assert.ok(generator.packages.includes(pkg), `${generator.name}: the adapter's package ${pkg} is one of its packages`);
    }
  }
});

it('adapters are labelled with their installed version, for the README and reports', () => {
  assert.equal(packageOf('@h4ad/serverless-adapter/frameworks/hapi'), '@h4ad/serverless-adapter');
  assert.equal(packageOf('hono/aws-lambda'), 'hono');
  const byName = new Map(generators.map((g) => [g.name, g]));
  assert.equal(adapterLabel(byName.get('node-http')!), 'none');
  assert.equal(adapterLabel(byName.get('hono')!), `hono/aws-lambda (hono ${installedVersion('hono')})`);
  assert.equal(adapterLabel(byName.get('fastify')!), `@fastify/aws-lambda ${installedVersion('@fastify/aws-lambda')}`);
  assert.equal(adapterLabel(servers[0]!), undefined);
});

it('an unsupported generator is refused with its reason, and writes nothing', async () => {
  const unsupported: FrameworkGenerator = {
    name: 'nothing',
    target: 'lambda',
    packages: [],
    validation: 'none',
    unsupported: 'no adapter for it on the registry',
    generate: () => assert.fail('an unsupported generator is never asked for its source'),
  };
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-unsupported-'));
  try {
    await assert.rejects(writeGenerated(unsupported, 1, 'validated', outDir), (error: unknown) => {
      assert.ok(error instanceof UnsupportedError);
      assert.equal(error.message, 'nothing (lambda): no adapter for it on the registry');
      return true;
    });
    assert.equal(spawnSync('find', [outDir, '-type', 'f']).stdout.toString(), '');
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});

it('Lambda files go under generated/lambda/ (plain/ for plain), server files stay where they were', () => {
  assert.equal(generatedRelativePath('hono', 'validated', 10, 'lambda'), 'lambda/10-startup-hono-routes.js');
  assert.equal(generatedRelativePath('hono', 'plain', 10, 'lambda'), 'lambda/plain/10-startup-hono-routes.js');
  assert.equal(generatedRelativePath('hono', 'validated', 10), '10-startup-hono-routes.js');
  assert.equal(generatedRelativePath('hono', 'plain', 10, 'server'), 'plain/10-startup-hono-routes.js');
});

for (const generator of generators) {
  const missing = generator.unsupported ? undefined : missingPackage(generator);
  const skip = generator.unsupported
    ? `${generator.name}: unsupported (${generator.unsupported})`
    : missing
      ? `${generator.name}: skipped (${missing} not installed)`
      : false;
  describe(`lambda generator ${generator.name}`, { skip }, () => {
    for (const variant of VARIANTS) {
      describe(variant, () => {
        it('writes N literal routes, the shared probe, an exported handler, valid syntax; the same bytes twice', async () => {
          const { file } = await writeGenerated(generator, 3, variant);
          assert.ok(file.endsWith(generatedRelativePath(generator.name, variant, 3, 'lambda')));
          const source = readFileSync(file, 'utf8');
          assert.ok(source.includes(LAMBDA_PROBE), 'the probe text is embedded verbatim');
          const app = source.split('/* end of probe */')[1] ?? '';
          assert.deepEqual(numbersOf(app, /route-(\d+)\b/g), new Set([0, 1, 2]), 'paths /route-0 … /route-2');
          assert.deepEqual(numbersOf(app, /\broute:\s*(\d+)/g), new Set([0, 1, 2]), 'each handler answers its own number literally');
          assert.ok(!/\bfor\s*\(|\.forEach\(/.test(app), 'no loop registers the routes');
          assert.match(app, /\bexports\.handler\s*=/, 'exports handler');
          assert.doesNotMatch(app, /\blisten\(/, 'a Lambda file never listens');
          const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
          assert.equal(check.status, 0, check.stderr);
          assert.equal(await generator.generate({ routes: 3, variant }), await generator.generate({ routes: 3, variant }));
        });

        const counts = variant === 'validated' ? [1, 3] : [3];
        for (const routes of counts) {
          const invalid = variant === 'validated' ? 'rejects' : 'does not check';
          it(`N=${routes}: answers its last route, ${invalid} an invalid body, prints both lines`, async () => {
            const { file } = await writeGenerated(generator, routes, variant);
            await checkContract(generator, file, routes, variant);
          });
        }
      });
    }

    it('imported by a managed runtime: only handler is used (no bootstrap, no line), it answers, it takes no callback', async () => {
      const { file } = await writeGenerated(generator, 3, 'validated');
      const contract = contractOf(generator);
      const event = routeEvent(2, contract.validBody(2, PROBE_NAME), { format: contract.eventFormat });
      const context = `{ awsRequestId: 'x', getRemainingTimeInMillis: () => 3000 }`;
      const script = `const { handler } = require(${JSON.stringify(file)});
      process.stdout.write('PARAMETERS ' + handler.length + '\\n');
      handler(${JSON.stringify(event)}, ${context}).then(
        (result) => { process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n'); process.exit(0); },
        (error) => { console.error(error); process.exit(1); });`;
      const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '' } });
      assert.equal(run.status, 0, run.stderr);
      assert.doesNotMatch(run.stdout, /COLDSTART/);
      // AWS's Node.js 24 runtime refuses a handler of three parameters (callback style) at INIT
      assert.ok(Number(/PARAMETERS (\d+)/.exec(run.stdout)?.[1]) <= 2, run.stdout);
      const result = readLambdaResult(JSON.parse(run.stdout.split('RESULT ')[1]!));
      assert.ok(result.ok && result.status === 200 && isExpectedAnswer(result.body, 2, PROBE_NAME), JSON.stringify(result));
    });
  });
}

describe('the esbuild bundle of a Lambda file answers from a folder without node_modules', () => {
  // mion too: lambda:package deploys its bundle, and its routes' type data must survive esbuild
  for (const name of ['node-http', 'fastify', 'hono', 'express', 'mion']) {
    const generator = generators.find((g) => g.name === name)!;
    const missing = missingPackage(generator);
    it(name, { skip: missing ? `${missing} not installed` : false }, async () => {
      const { file } = await writeGenerated(generator, 3, 'validated');
      const dir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-lambda-bundle-'));
      try {
        const built = await bundleFile(file, path.join(dir, 'build', 'out.js'), 'node20');
        assert.ok(built.ok, built.ok ? '' : built.error);
        const index = path.join(dir, 'index.js');
        copyFileSync(built.file, index);
        rmSync(path.join(dir, 'build'), { recursive: true });
        await checkContract(generator, index, 3, 'validated');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
