/**
 * Issue 21: a Lambda adapter gets the payload format it is deployed with. A handler written here
 * that understands only payload 1.0 (it routes on `event.path` and `event.httpMethod`, as mion's
 * @mionkit/aws does) answers when its cell's contract says 1.0, under the probe and under the real
 * Runtime Interface Client, rejects the invalid body, and answers 404 to the 2.0 events every other
 * adapter gets; lambda:package deploys it behind an HTTP API with PayloadFormatVersion 1.0. With
 * mion's packages installed by hand (not on this registry), mion's own Lambda cells do the same.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { contractOf } from '../../generators/contract.ts';
import { httpApiEvent, restApiEvent, routeEvent } from '../../generators/lambda-event.ts';
import { lambdaFileHeader } from '../../generators/lambda-probe.ts';
import { loadGenerators, missingPackage } from '../../generators/registry.ts';
import { samTemplate } from '../../metrics/cloud/sam-template.ts';
import { makeCell } from '../../metrics/core/cell.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { runSample } from '../../metrics/measure/sample.ts';
import { lambdaTarget } from '../../metrics/measure/targets/lambda.ts';
import { managedRuntimeStart } from '../../metrics/plan/lambda-bootstrap.ts';
import { launchOf } from '../../metrics/plan/launch.ts';
import { ensureRic, ricBuildProblem } from '../../metrics/plan/ric.ts';
import { ensureRuntime } from '../../metrics/plan/runtimes.ts';
import { runCli, tempDir, type CliResult } from '../support/helpers.ts';

/** A handler that knows only the REST API's shape: no rawPath, no requestContext.http. */
const V1_ONLY = `
__csMark('imported');
__csMark('startup');
exports.handler = async (event) => {
  const reply = (statusCode, body) => ({ statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const v1 = event.version === '1.0' && typeof event.path === 'string' && event.httpMethod === 'POST';
  if (!v1) return reply(404, { message: 'Route not found' });
  if (event.multiValueHeaders['content-type'][0] !== 'application/json') return reply(415, {});
  const match = /^\\/route-(\\d+)$/.exec(event.path);
  if (!match) return reply(404, { message: 'Route not found' });
  const body = JSON.parse(event.body);
  if (typeof body.name !== 'string') return reply(400, { message: 'name is required' });
  return reply(200, { hello: body.name, route: Number(match[1]) });
};
`;

function writeHandler(): string {
  const file = path.join(tempDir('coldstart-v1-'), 'v1only.js');
  writeFileSync(file, `${lambdaFileHeader('v1only', 'validated', 3)}\n${V1_ONLY}`);
  return file;
}

const cell = makeCell({ framework: 'v1only', variant: 'validated', routes: 3, target: 'lambda', bootstrap: 'probe' });

describe('the payload formats', () => {
  it('1.0 has path, httpMethod and multi-value headers; 2.0 rawPath and requestContext.http', () => {
    const v1 = restApiEvent('/route-2', { name: 'x' }, { requestId: 'r', timeEpoch: 0 });
    assert.equal(v1.version, '1.0');
    assert.equal(v1.path, '/route-2');
    assert.equal(v1.httpMethod, 'POST');
    assert.deepEqual(v1.multiValueHeaders['content-type'], ['application/json']);
    assert.equal(v1.requestContext.requestTime, '01/Jan/1970:00:00:00 +0000');
    assert.equal('rawPath' in v1, false);
    const v2 = httpApiEvent('/route-2', { name: 'x' });
    assert.equal('path' in v2, false);
    assert.deepEqual(routeEvent(2, { name: 'x' }, { format: '1.0', requestId: 'r', timeEpoch: 0 }), v1);
  });

  it('lambda:package puts a 1.0 function behind an HTTP API sending 1.0, the others 2.0', () => {
    const template = samTemplate([
      { functionName: 'coldstart-a-1-validated', codeUri: 'functions/a.zip', description: 'a', eventFormat: '1.0' },
      { functionName: 'coldstart-b-1-validated', codeUri: 'functions/b.zip', description: 'b' },
    ]) as { Resources: Record<string, { Properties?: { Events?: { Http: { Properties: { PayloadFormatVersion: string } } } } }> };
    const versions = Object.values(template.Resources)
      .map((r) => r.Properties?.Events?.Http.Properties.PayloadFormatVersion)
      .filter(Boolean);
    assert.deepEqual(versions, ['1.0', '2.0']);
    assert.ok(parse(JSON.stringify(template)));
  });
});

describe('a handler that understands only payload 1.0', () => {
  const run = (
    file: string,
    format: '1.0' | '2.0',
    launch = { command: process.execPath, args: [file], cwd: path.dirname(file), env: childEnvironment().env },
  ) =>
    runSample({
      target: lambdaTarget,
      cell,
      launch,
      contract: contractOf({ eventFormat: format }),
      phase: 'sample',
      index: 1,
      timeoutMs: 60_000,
      checkInvalidBody: true,
      firstHits: 0,
    });

  it('answers and rejects the invalid body when its events are 1.0', async () => {
    const sample = await run(writeHandler(), '1.0');
    assert.equal(sample.ok, true, sample.error);
    assert.deepEqual(sample.invalidBody, { ok: true, status: 400 });
  });

  it('answers 404 to the 2.0 events: the format is what reaches it', async () => {
    const sample = await run(writeHandler(), '2.0');
    assert.equal(sample.ok, false);
    assert.match(sample.error ?? '', /wrong answer from POST \/route-2: 404 .*Route not found/);
  });

  const ricSkip = ricBuildProblem();
  it('answers 1.0 events under the real Runtime Interface Client too', { skip: ricSkip ? `${ricSkip}; skipped` : false }, async () => {
    const env = childEnvironment().env;
    const ric = ensureRic(env, () => {});
    const node24 = ensureRuntime('node24', env, () => {});
    const file = writeHandler();
    const start = managedRuntimeStart({
      bootstrap: 'ric',
      line: 'nodejs24.x',
      memoryMB: 1024,
      ricDir: ric.dir,
      taskRoot: path.dirname(file),
    });
    const launch = launchOf({ command: node24.command, file, compileCache: 'off', start }, path.dirname(file), env);
    const sample = await runSample({
      target: lambdaTarget,
      cell: makeCell({ ...cell, runtime: 'nodejs24.x', bootstrap: 'ric' }),
      launch,
      contract: contractOf({ eventFormat: '1.0' }),
      phase: 'sample',
      index: 1,
      timeoutMs: 60_000,
      checkInvalidBody: true,
      firstHits: 0,
    });
    assert.equal(sample.ok, true, `${sample.error ?? ''} ${sample.stderrTail ?? ''}`);
    assert.deepEqual(sample.invalidBody, { ok: true, status: 400 });
  });
});

const mion = (await loadGenerators('lambda')).find((g) => g.name === 'mion')!;
const mionMissing = missingPackage(mion);

describe(
  "mion's Lambda cells (@mionkit/aws reads payload 1.0)",
  {
    skip: mionMissing
      ? `mion: skipped (${mionMissing} not installed; mion is not on this registry: see Building mion in docs/guide/frameworks.md)`
      : false,
  },
  () => {
    const bootstraps = ricBuildProblem() ? ['probe'] : ['probe', 'ric'];
    let dir: string;
    let run: CliResult;
    let samples: SampleRecord[];

    before(() => {
      dir = path.join(tempDir('coldstart-mion-'), 'run');
      run = runCli(
        [
          'run',
          '--target',
          'lambda',
          '--frameworks',
          'mion',
          '--routes',
          '3',
          '--lambda-bootstrap',
          bootstraps.join(','),
          '--lambda-runtime',
          'nodejs24.x',
          '--file-cache',
          'warm',
          '--lambda-reference',
          'off',
          // mion has no eager form: its one file
          '--init',
          'lazy',
          '--first-hits',
          '2',
          '--samples',
          '1',
          '--warmup',
          '0',
          '--out',
          dir,
        ],
        { timeoutMs: 600_000 },
      );
      samples = readSamples(path.join(dir, 'samples.jsonl')).filter((s) => s.phase === 'sample');
    });

    it(`answer the last route, reach the first hits and reject the invalid body (${bootstraps.join(', ')})`, () => {
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(samples.map((s) => s.cell.bootstrap).sort(), [...bootstraps].sort());
      for (const sample of samples) {
        const context = `${sample.cell.bootstrap}: ${sample.error ?? ''} ${sample.stderrTail ?? ''}`;
        assert.equal(sample.ok, true, context);
        assert.equal(sample.cell.framework, 'mion');
        assert.equal(sample.firstHits?.routes.length, 2, context);
        assert.deepEqual(sample.invalidBody, { ok: true, status: 400 }, context);
      }
    });

    it('meta.json records payload 1.0 for each of them', () => {
      const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as {
        lambda: { starts: Record<string, { eventFormat: string }> };
      };
      const formats = Object.values(meta.lambda.starts).map((start) => start.eventFormat);
      assert.deepEqual(
        formats,
        bootstraps.map(() => '1.0'),
      );
    });
  },
);
