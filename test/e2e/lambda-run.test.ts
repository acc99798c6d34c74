/**
 * lambda:run and lambda:clean end to end against a local Lambda API (test/support/fake-lambda.ts)
 * served here: the real CLI and the real SDK client, pointed at it by AWS_ENDPOINT_URL, with dummy
 * credentials in the environment. The happy path (deploy, N cold starts per cell, a run folder, all
 * deleted), throttling, a function stuck in Pending, failed INITs and timeouts, a deletion that
 * fails, SIGINT in the middle, access denied; and the planted secret is in no output.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_LIST_PAGES, sdkLambdaApi } from '../../metrics/cloud/lambda-api.ts';
import { sdkLogsApi } from '../../metrics/cloud/logs-api.ts';
import { writeLambdaPackage } from '../../metrics/cloud/package.ts';
import { EXIT_AWS_ACCESS, ExitCodeError } from '../../metrics/core/errors.ts';
import { runCompare } from '../../metrics/pipeline/compare.ts';
import { calibrateLambda } from '../../metrics/pipeline/lambda-calibrate.ts';
import { reportPipeline } from '../../metrics/pipeline/report.ts';
import { specOfArgv } from '../../metrics/cli/main.ts';
import { fakeDeps } from '../../metrics/pipeline/fake.ts';
import { runPipeline } from '../../metrics/pipeline/run.ts';
import { CLI, ROOT, tempDir } from '../support/helpers.ts';
import { FakeLambda } from '../support/fake-lambda.ts';

const SECRET = 'coldstartPlantedSecret9f3a1c7e2b';

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(
  fake: FakeLambda,
  args: string[],
  options: { onLine?: (line: string, child: ReturnType<typeof spawn>) => void; env?: Record<string, string> } = {},
): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: tempDir('coldstart-lambda-run-home-'),
        AWS_ENDPOINT_URL: fake.url,
        AWS_ACCESS_KEY_ID: 'AKIDCOLDSTARTTEST',
        AWS_SECRET_ACCESS_KEY: SECRET,
        AWS_EC2_METADATA_DISABLED: 'true',
        ...options.env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stdout += text;
      for (const line of text.split('\n')) if (line) options.onLine?.(line, child);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile());
}

function samplesOf(dir: string): Record<string, unknown>[] {
  return readFileSync(path.join(dir, 'samples.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('lambda:run against a local Lambda API', () => {
  const fake = new FakeLambda();
  const dir = tempDir('coldstart-lambda-run-');
  const pkg = path.join(dir, 'package');
  before(async () => {
    await fake.start();
    const bundle = path.join(dir, 'index.js');
    writeFileSync(bundle, 'exports.handler = async () => ({ statusCode: 200, body: "{}" });\n');
    mkdirSync(pkg);
    writeLambdaPackage(
      pkg,
      [
        { cell: { framework: 'hono', variant: 'validated', routes: 1 }, bundle },
        { cell: { framework: 'node-http', variant: 'plain', routes: 100 }, bundle },
      ],
      { runtime: 'nodejs22.x' },
    );
  });
  after(() => fake.stop());

  const reset = () => fake.reset();

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

  it('throttling (429) is retried with backoff and the run goes through', async () => {
    reset();
    fake.faults = { throttle: { CreateFunction: 2, UpdateFunctionConfiguration: 2, Invoke: 1 } };
    const out = path.join(dir, 'throttled');
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
      '2',
      '--run-id',
      'thr1',
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(samplesOf(out).length, 4);
    assert.equal(fake.functions.size, 0);
  });

  it('a function stuck in Pending: exit 7, one line, nothing left', async () => {
    reset();
    fake.faults = { pending: ['coldstart-hono-'] };
    const result = await cli(fake, [
      'lambda-run',
      pkg,
      '--out',
      path.join(dir, 'pending'),
      '--region',
      'eu-west-1',
      '--role',
      'arn:aws:iam::123456789012:role/r',
      '--samples',
      '1',
      '--ready-timeout',
      '2',
      '--run-id',
      'pend1',
    ]);
    assert.equal(result.status, 7, result.stderr);
    assert.match(result.stderr, /^coldstart: function coldstart-hono-1-validated-pend1 never became Active within 2 s \(State Pending/m);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
    assert.equal(fake.functions.size, 0);
  });

  it('a failed INIT and a timeout are recorded as failed samples with their Init Duration: exit 3', async () => {
    reset();
    fake.faults = { initError: ['coldstart-hono-'], invokeTimeout: ['coldstart-node-http-'] };
    const out = path.join(dir, 'failing');
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
      '2',
      '--run-id',
      'fail1',
    ]);
    assert.equal(result.status, 3, result.stderr);
    const samples = samplesOf(out);
    assert.equal(samples.length, 4);
    assert.ok(samples.every((s) => s.ok === false));
    const hono = samples.find((s) => (s.cell as { framework: string }).framework === 'hono')!;
    assert.equal((hono.lambda as { status: string }).status, 'error');
    assert.equal((hono.lambda as { errorType: string }).errorType, 'Runtime.ExitError');
    assert.equal((hono.lambda as { initMs: number }).initMs, FakeLambda.initMs('coldstart-hono-1-validated-fail1', 1024));
    const node = samples.find((s) => (s.cell as { framework: string }).framework === 'node-http')!;
    assert.equal((node.lambda as { status: string }).status, 'timeout');
    assert.equal(fake.functions.size, 0);
    assert.equal(fake.logGroups.size, 0);
  });

  it('a deletion that fails: exit 8, what is left and the command; lambda:clean then removes it', async () => {
    reset();
    fake.faults = { deleteFails: true, deleteLogGroupFails: true };
    const out = path.join(dir, 'undeleted');
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
      '--run-id',
      'left1',
    ]);
    assert.equal(result.status, 8, result.stderr);
    assert.match(result.stderr, /function coldstart-hono-1-validated-left1 \(ResourceConflictException/);
    assert.match(result.stderr, /function coldstart-node-http-100-plain-left1 \(ResourceConflictException/);
    assert.match(result.stderr, /npm run lambda:clean -- --region eu-west-1 --run left1/);
    const group = '/aws/lambda/coldstart-hono-1-validated-left1';
    assert.ok(
      result.stderr.includes(
        `log group ${group} (OperationAbortedException: deletion refused by the test): ` +
          `aws logs delete-log-group --region eu-west-1 --log-group-name ${group}\n`,
      ),
      result.stderr,
    );
    assert.match(
      result.stderr,
      /^coldstart: 4 resource\(s\) could not be deleted: .* \(a log group: the aws logs command after it above\)$/m,
    );
    assert.equal(fake.logGroups.size, 2);
    // the samples were collected all the same
    assert.equal(samplesOf(out).length, 2);
    assert.equal(fake.functions.size, 2);
    // a function of another run, and one that is not the tool's, stay
    fake.functions.set('other', { ...fake.functions.get('coldstart-hono-1-validated-left1')!, name: 'other', arn: 'arn:other', tags: {} });
    fake.faults = {};
    const clean = await cli(fake, ['lambda-clean', '--region', 'eu-west-1', '--run', 'left1']);
    assert.equal(clean.status, 0, clean.stderr);
    // the two functions and the two log groups their deletion left: listed, then deleted
    assert.match(clean.stdout, /4 resource\(s\) of run left1 in eu-west-1/);
    assert.match(clean.stdout, /^ {2}log group \/aws\/lambda\/coldstart-hono-1-validated-left1 \(its log group\)$/m);
    assert.match(clean.stdout, /^deleted log group \/aws\/lambda\/coldstart-node-http-100-plain-left1$/m);
    assert.deepEqual([...fake.functions.keys()], ['other']);
    assert.equal(fake.logGroups.size, 0);
  });

  it('lambda:clean: log groups of functions already gone, found by name, listed (--dry-run), deleted; never a live one', async () => {
    reset();
    const fn = (name: string, tags: Record<string, string>) =>
      fake.functions.set(name, {
        name,
        arn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
        runtime: 'nodejs22.x',
        role: 'arn:aws:iam::123456789012:role/r',
        handler: 'index.handler',
        memory: 1024,
        architectures: ['x86_64'],
        env: {},
        tags,
        state: 'Active',
        lastUpdateStatus: 'Successful',
        changed: false,
        codeBytes: 1,
      });
    const plant = (name: string) => fake.logGroups.set(`/aws/lambda/${name}`, []);
    // run gone1, killed: one function still there (tagged) with its group; two functions gone, their groups left
    fn('coldstart-fastify-10-plain-gone1', { 'coldstart:run': 'gone1' });
    for (const name of [
      'coldstart-fastify-10-plain-gone1',
      'coldstart-hono-1-validated-gone1',
      'coldstart-node-http-100-plain-eager-gone1-2',
    ])
      plant(name);
    // another run's: one live (its function exists, even untagged), one gone
    fn('coldstart-hono-1-validated-live1', {});
    plant('coldstart-hono-1-validated-live1');
    plant('coldstart-hono-1-validated-other1');
    // names lambda:run never gives: a package deployed by hand from its template (plain and eager), the user's own
    const never = ['coldstart-hono-1-validated', 'coldstart-hono-1-validated-eager', 'coldstart-my-api', 'coldstart-', 'my-api'];
    for (const name of never) plant(name);
    const groups = () => [...fake.logGroups.keys()].sort();
    const before = groups();
    const asked = () => fake.calls.filter((c) => c.op === 'GetFunction').map((c) => decodeURIComponent(c.path.split('/').pop()!));

    const dry = await cli(fake, ['lambda-clean', '--region', 'eu-west-1', '--run', 'gone1', '--dry-run']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.equal(
      dry.stdout,
      [
        '4 resource(s) of run gone1 in eu-west-1:',
        '  function coldstart-fastify-10-plain-gone1 (run gone1)',
        '  log group /aws/lambda/coldstart-fastify-10-plain-gone1 (its log group)',
        '  log group /aws/lambda/coldstart-hono-1-validated-gone1 (run gone1; its function is gone)',
        '  log group /aws/lambda/coldstart-node-http-100-plain-eager-gone1-2 (run gone1; its function is gone)',
        '',
      ].join('\n'),
    );
    assert.deepEqual(groups(), before);
    assert.ok(!fake.calls.some((c) => c.op === 'logs:DeleteLogGroup' || c.op === 'DeleteFunction'));
    // listed by the prefix; with --run, only that run's names are asked about
    const listings = fake.calls.filter((c) => c.op === 'logs:DescribeLogGroups');
    assert.equal(listings.length, 1);
    assert.match(listings[0]!.text, /"logGroupNamePrefix":"\/aws\/lambda\/coldstart-"/);
    assert.deepEqual(asked(), ['coldstart-hono-1-validated-gone1', 'coldstart-node-http-100-plain-eager-gone1-2']);

    fake.calls.length = 0;
    const one = await cli(fake, ['lambda-clean', '--region', 'eu-west-1', '--run', 'gone1']);
    assert.equal(one.status, 0, one.stderr);
    assert.match(one.stdout, /^deleted log group \/aws\/lambda\/coldstart-node-http-100-plain-eager-gone1-2$/m);
    const others = ['coldstart-hono-1-validated-live1', 'coldstart-hono-1-validated-other1', ...never].map((n) => `/aws/lambda/${n}`);
    assert.deepEqual(groups(), others.sort());
    assert.deepEqual([...fake.functions.keys()], ['coldstart-hono-1-validated-live1']);

    // every run's: the other run's gone function's group too; the live function's group stays, and it was asked about
    fake.calls.length = 0;
    const every = await cli(fake, ['lambda-clean', '--region', 'eu-west-1']);
    assert.equal(every.status, 0, every.stderr);
    assert.ok(
      every.stdout.startsWith(
        '1 resource(s) of every run in eu-west-1:\n' +
          '  log group /aws/lambda/coldstart-hono-1-validated-other1 (run other1; its function is gone)\n',
      ),
      every.stdout,
    );
    assert.deepEqual(asked().sort(), ['coldstart-hono-1-validated-live1', 'coldstart-hono-1-validated-other1']);
    assert.deepEqual(groups(), ['coldstart-hono-1-validated-live1', ...never].map((n) => `/aws/lambda/${n}`).sort());

    // a deletion refused: named with its aws logs command, exit 8
    plant('coldstart-hono-1-validated-other2');
    fake.faults = { deleteLogGroupFails: true };
    const refused = await cli(fake, ['lambda-clean', '--region', 'eu-west-1', '--run', 'other2']);
    assert.equal(refused.status, 8, refused.stderr);
    assert.ok(
      refused.stderr.includes(
        'not deleted: log group /aws/lambda/coldstart-hono-1-validated-other2 (OperationAbortedException): ' +
          'aws logs delete-log-group --region eu-west-1 --log-group-name /aws/lambda/coldstart-hono-1-validated-other2\n',
      ),
      refused.stderr,
    );

    // bounded: 20 pages of 50 read, and the rest said
    fake.faults = {};
    for (let i = 1; i <= 1001; i++) plant(`coldstart-hono-1-validated-many1-${i}`);
    fake.calls.length = 0;
    const bounded = await cli(fake, ['lambda-clean', '--region', 'eu-west-1', '--run', 'nothing1', '--dry-run']);
    assert.equal(bounded.status, 0, bounded.stderr);
    assert.equal(fake.calls.filter((c) => c.op === 'logs:DescribeLogGroups').length, 20);
    assert.match(
      bounded.stderr,
      /^more than 1000 log groups start with \/aws\/lambda\/coldstart-: only the first were read; run lambda:clean again after this one$/m,
    );
    assert.equal(asked().length, 0);

    // refused: the listing, or the question whether a function exists, is one line, exit 5, before any deletion
    fake.logGroups.clear();
    plant('coldstart-hono-1-validated-other3');
    const refusals: [string, RegExp][] = [
      [
        'logs:DescribeLogGroups',
        /^coldstart: AWS refused listing the log groups under \/aws\/lambda\/coldstart- in eu-west-1: AccessDeniedException/,
      ],
      [
        'GetFunction',
        /^coldstart: AWS refused asking whether function coldstart-hono-1-validated-other3 \(of log group .*\) still exists: AccessDenied/,
      ],
    ];
    for (const [op, line] of refusals) {
      fake.faults = { deny: [op] };
      const denied = await cli(fake, ['lambda-clean', '--region', 'eu-west-1']);
      assert.equal(denied.status, 5, denied.stderr);
      assert.equal(denied.stderr.trim().split('\n').length, 1, denied.stderr);
      assert.match(denied.stderr, line);
      assert.equal(fake.logGroups.size, 1);
    }
    // the planted secret: never printed, never sent
    for (const r of [dry, one, every, refused, bounded]) assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET));
    assert.ok(fake.calls.every((c) => !c.text.includes(SECRET)));
  });

  it('SIGINT in the middle of a run deletes what was created and keeps the finished cold starts: exit 130', async () => {
    reset();
    fake.faults = { invokeDelayMs: 400 };
    const out = path.join(dir, 'interrupted');
    let sent = false;
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
        '20',
        '--parallel',
        '1',
        '--run-id',
        'int1',
      ],
      {
        onLine: (line, child) => {
          if (!sent && line.startsWith('[2/')) {
            sent = true;
            child.kill('SIGINT');
          }
        },
      },
    );
    assert.equal(result.status, 130, result.stderr);
    assert.match(result.stderr, /interrupted \(SIGINT\) after \d+ of 40 invocations/);
    assert.equal(fake.functions.size, 0);
    assert.equal(fake.logGroups.size, 0);
    const samples = samplesOf(out);
    assert.ok(samples.length >= 2 && samples.length < 40, `${samples.length} samples`);
  });

  it('access denied: exit 5, one line naming the call', async () => {
    reset();
    fake.faults = { deny: ['CreateFunction'] };
    const result = await cli(fake, [
      'lambda-run',
      pkg,
      '--out',
      path.join(dir, 'denied'),
      '--region',
      'eu-west-1',
      '--role',
      'arn:aws:iam::123456789012:role/r',
      '--samples',
      '1',
      '--run-id',
      'deny1',
    ]);
    assert.equal(result.status, 5, result.stderr);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /^coldstart: AWS refused creating coldstart-.*-deny1: AccessDeniedException/);
    assert.equal(fake.functions.size, 0);
  });
});

/** The SDK's clients of this process pointed at the fake, with dummy credentials, while `body` runs. */
async function withEndpoint(fake: FakeLambda, body: () => Promise<void>): Promise<void> {
  const saved = { url: process.env.AWS_ENDPOINT_URL, id: process.env.AWS_ACCESS_KEY_ID, key: process.env.AWS_SECRET_ACCESS_KEY };
  Object.assign(process.env, { AWS_ENDPOINT_URL: fake.url, AWS_ACCESS_KEY_ID: 'AKIDCOLDSTARTTEST', AWS_SECRET_ACCESS_KEY: SECRET });
  try {
    await body();
  } finally {
    if (saved.url === undefined) delete process.env.AWS_ENDPOINT_URL;
    else process.env.AWS_ENDPOINT_URL = saved.url;
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    else process.env.AWS_ACCESS_KEY_ID = saved.id;
    if (saved.key === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    else process.env.AWS_SECRET_ACCESS_KEY = saved.key;
  }
}

describe('lambda:run and lambda:clean against answers that never end, overflow or hold escapes', { timeout: 240_000 }, () => {
  const fake = new FakeLambda();
  const dir = tempDir('coldstart-lambda-run-answers-');
  const pkg = path.join(dir, 'package');
  before(async () => {
    await fake.start();
    const bundle = path.join(dir, 'index.js');
    writeFileSync(bundle, 'exports.handler = async () => ({ statusCode: 200, body: "{}" });\n');
    mkdirSync(pkg);
    writeLambdaPackage(
      pkg,
      [
        { cell: { framework: 'hono', variant: 'validated', routes: 1 }, bundle },
        { cell: { framework: 'node-http', variant: 'plain', routes: 100 }, bundle },
      ],
      { runtime: 'nodejs22.x' },
    );
  });
  after(() => fake.stop());

  it('a list that pages forever: lambda:clean stops reading it with one line, exit 5', async () => {
    fake.reset();
    fake.faults = { listForever: 'ListFunctions' };
    // ListFunctions: a new marker on every page, so only the page bound ends it
    const functions = await cli(fake, ['lambda-clean', '--region', 'eu-west-1']);
    assert.equal(functions.status, 5, functions.stderr);
    assert.equal(
      functions.stderr,
      `coldstart: AWS's list of functions does not end (more than ${MAX_LIST_PAGES} pages): stopped reading it\n`,
    );
    assert.equal(fake.calls.filter((c) => c.op === 'ListFunctions').length, MAX_LIST_PAGES);
    // ListRoles: the same marker again
    fake.reset();
    fake.faults = { listForever: 'ListRoles' };
    const roles = await cli(fake, ['lambda-clean', '--region', 'eu-west-1', '--roles']);
    assert.equal(roles.status, 5, roles.stderr);
    assert.match(roles.stderr, /^coldstart: AWS's list of roles does not end \(a page marker it had given before\): stopped reading it\n$/);
    assert.equal(fake.calls.filter((c) => c.op === 'iam:ListRoles').length, 2);
  });

  it('an invocation whose answer never ends is stopped at the deadline, exit 5', async () => {
    fake.reset();
    fake.faults = { endlessInvoke: ['coldstart-endless'] };
    const name = 'coldstart-endless-1-plain-x';
    fake.functions.set(name, {
      name,
      arn: `arn:aws:lambda:eu-west-1:123456789012:function:${name}`,
      runtime: 'nodejs22.x',
      role: 'arn:aws:iam::123456789012:role/r',
      handler: 'index.handler',
      memory: 1024,
      architectures: ['x86_64'],
      env: {},
      tags: {},
      state: 'Active',
      lastUpdateStatus: 'Successful',
      changed: true,
      codeBytes: 1,
    });
    await withEndpoint(fake, async () => {
      const api = sdkLambdaApi('eu-west-1', { invokeDeadlineS: 1 });
      await assert.rejects(
        api.invoke(name, '{}'),
        (error: unknown) =>
          error instanceof ExitCodeError &&
          error.exitCode === EXIT_AWS_ACCESS &&
          error.message === `the answer to invoking ${name} did not end within 1 s (the function's timeout is 30 s): stopped reading it`,
      );
    });
  });

  it("a FilterLogEvents answer that never ends is stopped at the call's deadline, exit 5", async () => {
    fake.reset();
    fake.faults = { logsEndless: true };
    await withEndpoint(fake, async () => {
      const logs = sdkLogsApi('eu-west-1', { callDeadlineS: 1 });
      await assert.rejects(
        logs.filter({ logGroup: '/aws/lambda/coldstart-x', filterPattern: '"REPORT RequestId: x"', startTime: 0 }),
        (error: unknown) =>
          error instanceof ExitCodeError &&
          error.exitCode === EXIT_AWS_ACCESS &&
          error.message ===
            "CloudWatch Logs' answer to FilterLogEvents on /aws/lambda/coldstart-x did not end within 1 s: stopped reading it",
      );
    });
  });

  it('a failure after some cold starts (an answer past the header bound): exit 5, the finished ones kept, nothing left', async () => {
    fake.reset();
    fake.faults = { hugeLogResult: ['coldstart-node-http'] };
    const out = path.join(dir, 'overflow');
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
      '3',
      '--parallel',
      '1',
      '--run-id',
      'over1',
    ]);
    assert.equal(result.status, 5, result.stderr);
    assert.match(result.stderr, /^coldstart: AWS refused forcing a cold start of coldstart-node-http-100-plain-over1: .*Header overflow$/m);
    assert.match(result.stderr, /^the 3 finished invocation\(s\) are kept: /m);
    // hono's three cold starts, each a sample, in the run folder; node-http's first invocation failed
    const samples = samplesOf(out);
    assert.equal(samples.length, 3);
    assert.ok(samples.every((s) => (s.cell as { framework: string }).framework === 'hono' && s.ok === true));
    assert.equal(fake.functions.size, 0);
    assert.equal(fake.logGroups.size, 0);
  });

  it('an --out that can take no run folder (FIFO, file, /dev/null, dangling link, /proc): exit 2, nothing created', async () => {
    const fifo = path.join(dir, 'out-fifo');
    execFileSync('mkfifo', [fifo]);
    const file = path.join(dir, 'out-file');
    writeFileSync(file, 'kept\n');
    const loop = path.join(dir, 'out-loop');
    symlinkSync(`${loop}-2`, loop);
    symlinkSync(loop, `${loop}-2`);
    const refusals: [string, RegExp][] = [
      [fifo, /is not a folder \(.*out-fifo is a file\)/],
      [file, /is not a folder \(.*out-file is a file\)/],
      ['/dev/null', /is not a folder \(\/dev\/null is a file\)/],
      [loop, /is not a folder \(.*out-loop is a symbolic link that leads nowhere\)/],
      ['/proc/self', /is on proc, a kernel filesystem that holds no files: choose another folder/],
    ];
    for (const [out, why] of refusals) {
      fake.reset();
      const args = ['lambda-run', pkg, '--out', out, '--region', 'eu-west-1', '--role', 'arn:aws:iam::123456789012:role/r'];
      const result = await cli(fake, [...args, '--samples', '1']);
      assert.equal(result.status, 2, `${out}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`^coldstart: --out: ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} ${why.source}\n$`));
      assert.deepEqual(fake.calls, [], out);
    }
    assert.equal(readFileSync(file, 'utf8'), 'kept\n');
    assert.ok(statSync(fifo).isFIFO());
  });

  it("a package whose template or zip is a FIFO, a folder or past Lambda's 50 MB: exit 2, nothing created", async () => {
    const zipName = 'coldstart-hono-1-validated.zip';
    const fifoAt = (file: string) => {
      rmSync(file);
      execFileSync('mkfifo', [file]);
    };
    const folderAt = (file: string) => {
      rmSync(file);
      mkdirSync(file);
    };
    const zip = (copy: string) => path.join(copy, 'functions', zipName);
    const cases: [string, (copy: string) => void, string][] = [
      [
        'template-fifo',
        (copy) => fifoAt(path.join(copy, 'template.yaml')),
        "template.yaml is a pipe or socket: a lambda:package folder's template must be a file",
      ],
      ['zip-fifo', (copy) => fifoAt(zip(copy)), `${zipName} is a pipe or socket: a function's zip must be a file`],
      ['zip-folder', (copy) => folderAt(zip(copy)), `${zipName} is a folder, not a function's zip`],
      [
        'zip-huge',
        (copy) => truncateSync(zip(copy), 51 * 2 ** 20),
        `${zipName} is too large: a function's zip is at most 50 MB (Lambda's quota for a direct upload)`,
      ],
    ];
    for (const [name, spoil, line] of cases) {
      fake.reset();
      const copy = path.join(dir, name);
      cpSync(pkg, copy, { recursive: true });
      spoil(copy);
      const args = ['lambda-run', copy, '--out', path.join(dir, `${name}-out`), '--region', 'eu-west-1', '--create-role'];
      const result = await cli(fake, [...args, '--samples', '1']);
      assert.equal(result.status, 2, `${name}: ${result.stderr}`);
      assert.ok(result.stderr.startsWith('coldstart: ') && result.stderr.endsWith(`${line}\n`), `${name}: ${result.stderr}`);
      assert.equal(result.stderr.split('\n').length, 2, result.stderr);
      assert.deepEqual(fake.calls, [], name);
    }
  });

  it('a --handler whose imports include a FIFO: one line, exit 2, where esbuild waited on it forever', async () => {
    fake.reset();
    const app = path.join(dir, 'fifo-app');
    mkdirSync(app);
    execFileSync('mkfifo', [path.join(app, 'pipe.js')]);
    writeFileSync(path.join(app, 'index.js'), 'require("./pipe.js");\nexports.handler = async () => ({ statusCode: 200 });\n');
    writeFileSync(path.join(app, 'event.json'), '{}\n');
    const result = await cli(fake, [
      'lambda-run',
      '--handler',
      path.join(app, 'index.handler'),
      '--event',
      path.join(app, 'event.json'),
      '--out',
      path.join(dir, 'fifo-app-out'),
      '--region',
      'eu-west-1',
      '--create-role',
      '--dry-run',
    ]);
    assert.equal(result.status, 2, result.stderr);
    const lines = result.stderr.trim().split('\n');
    assert.match(lines.at(-1)!, /^coldstart: --handler .*index\.js: bundle failed \(esbuild\): .*pipe\.js is not a file \(a FIFO/);
    assert.deepEqual(fake.calls, []);
  });

  it("lambda:clean prints AWS's function names and tags without their control and escape characters", async () => {
    fake.reset();
    const name = 'coldstart-x\u001b]0;pwned\u0007-1-plain-r1';
    fake.functions.set(name, {
      name,
      arn: 'arn:aws:lambda:eu-west-1:123456789012:function:hostile',
      runtime: 'nodejs22.x',
      role: 'arn:aws:iam::123456789012:role/r',
      handler: 'index.handler',
      memory: 1024,
      architectures: ['x86_64'],
      env: {},
      tags: { 'coldstart:run': 'r1\u001b[2J\u202e' },
      state: 'Active',
      lastUpdateStatus: 'Successful',
      changed: false,
      codeBytes: 1,
    });
    const result = await cli(fake, ['lambda-clean', '--region', 'eu-west-1', '--dry-run']);
    assert.equal(result.status, 0, result.stderr);
    const unsafe = Array.from(result.stdout + result.stderr).filter((c) => (c < ' ' && c !== '\n') || c === '\u202e');
    assert.deepEqual(unsafe, [], JSON.stringify(result.stdout + result.stderr));
    // not a name lambda:run gives (nor is its tag a run id): listed as not deleted, on stderr
    assert.match(
      result.stderr,
      /^not deleted: function coldstart-x ]0;pwned -1-plain-r1 \(tagged coldstart:run r1 \[2J \): not named by coldstart$/m,
    );
  });
});
