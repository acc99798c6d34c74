/**
 * lambda:run and lambda:clean end to end against a local Lambda API (test/support/fake-lambda.ts)
 * served here: the real CLI and the real SDK client, pointed at it by AWS_ENDPOINT_URL, with dummy
 * credentials in the environment. The happy path (deploy, N cold starts per cell, a run folder, all
 * deleted), throttling, a function stuck in Pending, failed INITs and timeouts, a deletion that
 * fails, SIGINT in the middle, access denied; and the planted secret is in no output.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';

import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { writeLambdaPackage } from '../../metrics/cloud/package.ts';

import { runCompare } from '../../metrics/pipeline/compare.ts';
import { calibrateLambda } from '../../metrics/pipeline/lambda-calibrate.ts';
import { reportPipeline } from '../../metrics/pipeline/report.ts';
import { specOfArgv } from '../../metrics/cli/main.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { runPipeline } from '../../metrics/pipeline/run.ts';
import { ROOT, tempDir } from '../support/helpers.ts';
import { FakeLambda } from '../support/fake-lambda.ts';

import { SECRET, cli, filesUnder, lambdaRunFixture, samplesOf } from '../support/lambda-run-cli.ts';

describe('lambda:run against a local Lambda API', () => {
  const { fake, dir, pkg, reset } = lambdaRunFixture('coldstart-lambda-run-');

  it('deploys, forces N cold starts per cell, writes the run folder, deletes everything; no secret anywhere', async () => {
    reset();
    const out = path.join(dir, 'happy');
    const result = await cli(fake, [
      'lambda-run',
      pkg,
      '--out',
      out,
      '--region',
      'eu-west-1',
      '--create-role',
      '--lambda-memory',
      '128,1024',
      '--samples',
      '3',
      '--run-id',
      'happy1',
    ]);
    assert.equal(result.status, 0, result.stderr);
    // 2 functions × 2 memory sizes × 3 cold starts, each a config change, a wait and an invocation
    assert.equal(fake.calls.filter((c) => c.op === 'Invoke').length, 12);
    assert.equal(fake.calls.filter((c) => c.op === 'UpdateFunctionConfiguration').length, 12);
    assert.equal(fake.calls.filter((c) => c.op === 'CreateFunction').length, 2);
    assert.match(result.stdout, /\[12\/12\] .* \(ETA 0 s\)/);
    const samples = samplesOf(out);
    assert.equal(samples.length, 12);
    assert.ok(samples.every((s) => s.ok === true));
    const cell = samples.find(
      (s) => (s.cell as { framework: string }).framework === 'node-http' && (s.cell as { memory: number }).memory === 128,
    )!;
    assert.equal((cell.lambda as { initMs: number }).initMs, FakeLambda.initMs('coldstart-node-http-100-plain-happy1', 128));
    assert.equal((cell.lambda as { architecture: string }).architecture, 'x86_64');
    const meta = JSON.parse(readFileSync(path.join(out, 'meta.json'), 'utf8')) as {
      spec: { source: { samples: string } };
      machine: { os: string };
    };
    assert.match(meta.spec.source.samples, /forced by lambda:run happy1 in eu-west-1/);
    assert.match(meta.machine.os, /AWS Lambda \(eu-west-1, lambda:run happy1\)/);
    assert.ok(readFileSync(path.join(out, 'summary.md'), 'utf8').includes('node-http'));
    // everything tagged, everything deleted: functions and the role
    const created = fake.calls.filter((c) => c.op === 'CreateFunction').map((c) => c.text);
    assert.ok(created.every((text) => text.includes('"coldstart:run":"happy1"')));
    assert.equal(fake.functions.size, 0);
    assert.equal(fake.roles.size, 0);
    assert.ok(fake.calls.some((c) => c.op === 'iam:CreateRole' && c.text.includes('coldstart%3Arun')));
    // the log groups Lambda made for them, deleted too; no tail lacked its REPORT line, so no FilterLogEvents
    assert.equal(fake.calls.filter((c) => c.op === 'logs:DeleteLogGroup').length, 2);
    assert.equal(fake.logGroups.size, 0);
    assert.ok(!fake.calls.some((c) => c.op === 'logs:FilterLogEvents'));
    // the planted secret: in no file written, not on stdout or stderr, never sent
    for (const file of filesUnder(out)) assert.ok(!readFileSync(file, 'utf8').includes(SECRET), `${file} holds the secret`);
    assert.ok(!result.stdout.includes(SECRET) && !result.stderr.includes(SECRET));
    assert.ok(fake.calls.every((c) => !c.text.includes(SECRET)));
  });

  it('compare of a local estimate run against the real run gives the estimate, the real p50 and p95 and the error per cell', async () => {
    reset();
    // the published floor run estimated node-http@1 (validated) on nodejs22.x at 128, 512 and 1024 MB
    const floorPkg = path.join(dir, 'floor-package');
    mkdirSync(floorPkg);
    const bundle = path.join(dir, 'index.js');
    writeLambdaPackage(floorPkg, [{ cell: { framework: 'node-http', variant: 'validated', routes: 1 }, bundle }], {
      runtime: 'nodejs22.x',
    });
    const out = path.join(dir, 'floor-real');
    const result = await cli(fake, [
      'lambda-run',
      floorPkg,
      '--out',
      out,
      '--region',
      'eu-west-1',
      '--role',
      'arn:aws:iam::123456789012:role/r',
      '--lambda-memory',
      '128,512,1024',
      '--samples',
      '3',
      '--run-id',
      'floor1',
    ]);
    assert.equal(result.status, 0, result.stderr);
    const local = path.join(ROOT, 'results', 'published', '2026-11-26-lambda-floor');
    const compared = runCompare({ a: local, b: out });
    assert.deepEqual(
      compared.estimates.map((r) => r.memoryMB),
      [128, 512, 1024],
    );
    for (const row of compared.estimates) {
      const real = FakeLambda.initMs('coldstart-node-http-1-validated-floor1', row.memoryMB);
      assert.equal(row.real.p50, real);
      assert.equal(row.real.n, 3);
      assert.equal(row.cell.runtime, 'nodejs22.x');
      assert.ok(Math.abs(row.errorP50Pct - ((row.estimate.p50 - real) / real) * 100) < 1e-9);
      assert.ok(row.estimate.p50 > 0 && row.errorP95Pct !== undefined);
    }
    assert.match(compared.markdown, /## Lambda estimate against the real Init/);
    assert.match(compared.markdown, /node-http.*\| 128 MB \|/);
    // the same the other way round
    assert.equal(runCompare({ a: out, b: local }).estimates.length, 3);

    // a calibration fitted from that real run: one cell per memory size, so each row moves by its cell's error
    const file = path.join(dir, 'calibration.json');
    const lines: string[] = [];
    const fitted = calibrateLambda({ local, real: [out], out: file }, (line) => lines.push(line));
    assert.deepEqual(
      fitted.fitted.groups.map((g) => [g.runtime, g.memoryMB, g.cells]),
      [
        ['nodejs22.x', 128, 1],
        ['nodejs22.x', 512, 1],
        ['nodejs22.x', 1024, 1],
      ],
    );
    assert.match(lines.at(-1)!, /leave-one-out error: none/);
    const recalibrated = runCompare({ a: local, b: out, calibrationFile: file });
    for (const row of recalibrated.estimates) assert.ok(Math.abs(row.errorP50Pct) < 0.1, `${row.memoryMB} MB: ${row.errorP50Pct} %`);
    assert.match(recalibrated.markdown, /calibration: fitted by lambda:calibrate from real run\(s\) floor-real/);
    // a later report of a run with it: its estimates move and it says which calibration made them
    const later = path.join(dir, 'later');
    cpSync(local, later, { recursive: true });
    const before = readFileSync(path.join(later, 'summary.md'), 'utf8');
    await reportPipeline({ dir: later, calibrationFile: file }, () => undefined);
    const after = readFileSync(path.join(later, 'summary.md'), 'utf8');
    assert.doesNotMatch(before, /fitted by lambda:calibrate/);
    assert.match(after, /Calibration: fitted by lambda:calibrate from real run\(s\) floor-real against 2026-11-26-lambda-floor/);
    assert.notEqual(after, before);
    assert.match(readFileSync(path.join(later, 'summary.csv'), 'utf8'), /fitted by lambda:calibrate/);
    assert.match(readFileSync(path.join(later, 'report.html'), 'utf8'), /fitted by lambda:calibrate/);

    // a later run with it (run --calibration): other estimates than without, and meta.json and summary.md name it
    const runWith = async (extra: string[]) => {
      const runOut = path.join(tempDir('coldstart-calibrated-run-'), 'run');
      const args = ['run', '--target', 'lambda', '-f', 'node-http', '-r', '1', '--lambda-runtime', 'nodejs22.x'];
      const spec = await specOfArgv([...args, '--lambda-memory', '512', '--samples', '2', '--warmup', '0', '--out', runOut, ...extra]);
      assert.ok(spec);
      await runPipeline(spec, fakeDeps());
      return runOut;
    };
    const shippedRun = await runWith([]);
    const calibratedRun = await runWith(['--calibration', file]);
    const estimates = (d: string) => readFileSync(path.join(d, 'summary.csv'), 'utf8').split('\n').slice(1).join('\n');
    assert.notEqual(estimates(calibratedRun), estimates(shippedRun));
    const { calibration } = JSON.parse(readFileSync(path.join(calibratedRun, 'meta.json'), 'utf8')) as {
      calibration: { file: string; sha256: string; source: string };
    };
    assert.equal(calibration.sha256, createHash('sha256').update(readFileSync(file)).digest('hex'));
    assert.match(calibration.source, /^fitted by lambda:calibrate from real run\(s\) floor-real/);
    const runSummary = readFileSync(path.join(calibratedRun, 'summary.md'), 'utf8');
    assert.match(runSummary, /Calibration: fitted by lambda:calibrate/);
    assert.ok(runSummary.includes(`Calibration file: \`${calibration.file}\``));
    assert.doesNotMatch(readFileSync(path.join(shippedRun, 'summary.md'), 'utf8'), /fitted by lambda:calibrate|Calibration file:/);
  });

  it('a tail without its REPORT line: the line is read from CloudWatch Logs (late, so asked again) and is a sample', async () => {
    reset();
    fake.faults = { tailWithoutReport: ['coldstart-hono-'], logsLate: 1 };
    const out = path.join(dir, 'from-logs');
    // CloudWatch Logs' own endpoint setting, with a path of its own: its calls must go there
    const env = { AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: `${fake.url}/cwlogs` };
    const result = await cli(
      fake,
      [
        'lambda-run',
        pkg,
        '--out',
        out,
        '--region',
        'eu-west-1',
        '--role',
        'arn:aws:iam::123456789012:role/r',
        '--samples',
        '2',
        '--run-id',
        'logs1',
      ],
      { env },
    );
    assert.equal(result.status, 0, result.stderr);
    const samples = samplesOf(out);
    assert.equal(samples.length, 4);
    const hono = samples.filter((s) => (s.cell as { framework: string }).framework === 'hono');
    assert.equal(hono.length, 2);
    for (const s of hono)
      assert.equal((s.lambda as { initMs: number }).initMs, FakeLambda.initMs('coldstart-hono-1-validated-logs1', 1024));
    assert.equal((result.stdout.match(/\(REPORT line from CloudWatch Logs\)/g) ?? []).length, 2);
    assert.match(result.stdout, /^2 REPORT line\(s\) read from CloudWatch Logs \(not in the log tail\)$/m);
    // asked with the documented pattern for each hono invocation's request id, twice each (the first found nothing yet)
    const filters = fake.calls
      .filter((c) => c.op === 'logs:FilterLogEvents')
      .map((c) => JSON.parse(c.text.split('\n').slice(1).join('\n')) as { logGroupName: string; filterPattern: string; limit: number });
    assert.equal(filters.length, 4);
    assert.ok(fake.calls.filter((c) => c.op.startsWith('logs:')).every((c) => c.path.startsWith('/cwlogs')));
    assert.ok(fake.calls.filter((c) => !c.op.startsWith('logs:')).every((c) => !c.path.startsWith('/cwlogs')));
    for (const f of filters) {
      assert.equal(f.logGroupName, '/aws/lambda/coldstart-hono-1-validated-logs1');
      assert.match(f.filterPattern, /^"REPORT RequestId: [0-9a-f-]{36}"$/);
      assert.equal(f.limit, 10);
    }
    // the tail's lines and the line from the logs are in the run folder
    const kept = readFileSync(path.join(out, 'lambda-logs', 'coldstart-hono-1-validated.log'), 'utf8');
    assert.equal((kept.match(/ REPORT RequestId: /g) ?? []).length, 2);
    assert.match(kept, /chatty handler line 59/);
    assert.equal(fake.logGroups.size, 0);
    for (const file of filesUnder(out)) assert.ok(!readFileSync(file, 'utf8').includes(SECRET), `${file} holds the secret`);
    assert.ok(fake.calls.every((c) => !c.text.includes(SECRET)));
  });

  it('a REPORT line neither in the tail nor in CloudWatch Logs within --logs-wait: said, not a sample', async () => {
    reset();
    fake.faults = { tailWithoutReport: ['coldstart-hono-'], logsWithoutReport: ['coldstart-hono-'], noRequestIdHeader: true };
    const out = path.join(dir, 'no-report');
    const result = await cli(fake, [
      'lambda-run',
      pkg,
      '--out',
      out,
      '--region',
      'eu-west-1',
      '--role',
      'arn:aws:iam::123456789012:role/r',
      '--samples',
      '1',
      '--logs-wait',
      '2',
      '--run-id',
      'nolog1',
    ]);
    // a cold start asked for and not measured: exit 3, as a failed sample
    assert.equal(result.status, 3, result.stderr);
    assert.ok(
      result.stdout.includes('coldstart-hono-1-validated-nolog1 1024 MB #1: no REPORT line in the log tail nor in CloudWatch Logs'),
      result.stdout,
    );
    assert.match(result.stdout, /\(not found in CloudWatch Logs after \d+ attempt\(s\) over \d+ s\): not a sample/);
    assert.match(result.stderr, /^1 invocation\(s\) without a REPORT line in the tail or CloudWatch Logs: not samples$/m);
    const samples = samplesOf(out);
    assert.deepEqual(
      samples.map((s) => (s.cell as { framework: string }).framework),
      ['node-http'],
    );
    // without x-amzn-RequestId the id is the one the tail's END line names
    const filters = fake.calls.filter((c) => c.op === 'logs:FilterLogEvents');
    assert.ok(filters.length >= 2);
    const endId = /END RequestId: ([0-9a-f-]{36})/.exec(
      readFileSync(path.join(out, 'lambda-logs', 'coldstart-hono-1-validated.log'), 'utf8'),
    )?.[1];
    assert.ok(endId);
    assert.ok(
      filters.every((c) => c.text.includes(`"filterPattern":"\\"REPORT RequestId: ${endId}\\""`)),
      filters[0]!.text,
    );
    assert.equal(fake.functions.size, 0);
    assert.equal(fake.logGroups.size, 0);
  });

  it('IAM propagating the created role: CreateFunction is retried until Lambda can assume it', async () => {
    reset();
    fake.faults = { roleNotAssumable: 2 };
    const out = path.join(dir, 'iam-wait');
    const result = await cli(fake, [
      'lambda-run',
      pkg,
      '--out',
      out,
      '--region',
      'eu-west-1',
      '--create-role',
      '--samples',
      '1',
      '--parallel',
      '1',
      '--run-id',
      'iam1',
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(
      result.stdout,
      /^waiting for IAM to propagate role arn:aws:iam::123456789012:role\/coldstart-iam1 \(retrying CreateFunction for up to 120 s\)$/m,
    );
    assert.equal(fake.calls.filter((c) => c.op === 'CreateFunction').length, 4);
    assert.equal(samplesOf(out).length, 2);
    assert.equal(fake.functions.size, 0);
    assert.equal(fake.roles.size, 0);
  });

  it('IAM never propagating within --role-wait: exit 5, one line, nothing left', async () => {
    reset();
    fake.faults = { roleNotAssumable: 1000 };
    const result = await cli(fake, [
      'lambda-run',
      pkg,
      '--out',
      path.join(dir, 'iam-never'),
      '--region',
      'eu-west-1',
      '--create-role',
      '--samples',
      '1',
      '--role-wait',
      '2',
      '--run-id',
      'iam2',
    ]);
    assert.equal(result.status, 5, result.stderr);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /^coldstart: creating coldstart-.*-iam2: Lambda still cannot assume the created role /);
    assert.ok(lines[0]!.includes('role arn:aws:iam::123456789012:role/coldstart-iam2 after '), lines[0]);
    assert.match(
      lines[0]!,
      / over \d+ s \(IAM propagation; --role-wait 2\): The role defined for the function cannot be assumed by Lambda\.$/,
    );
    assert.equal(fake.functions.size, 0);
    assert.equal(fake.roles.size, 0);
  });

  it('a dry run prints the plan and its cost and calls nothing', async () => {
    reset();
    const result = await cli(fake, [
      'lambda-run',
      pkg,
      '--out',
      path.join(dir, 'dry'),
      '--region',
      'us-east-1',
      '--role',
      'arn:aws:iam::123456789012:role/r',
      '--dry-run',
      '--arch',
      'x86_64,arm64',
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /4 function\(s\) × 1 memory size\(s\) \(1024 MB\) × 10 cold starts = 40 invocations/);
    assert.match(result.stdout, /estimated cost: \$0\.0006/);
    assert.equal(fake.calls.length, 0);
  });
});
