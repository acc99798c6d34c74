/**
 * Every AWS call of lambda:run and lambda:clean bounded in time and in bytes, and lambda:clean deleting only what
 * lambda:run provably made (issue 46, items 2b, 2c and 3), against the local Lambda API (test/support/fake-lambda.ts):
 * the real CLI and the real SDK clients.
 *
 * - a slow-loris answer (headers, then a byte every 500 ms) ends each command at its deadline, with the deadline's
 *   line (the deadline is made short by COLDSTART_AWS_DEADLINE_S; nothing here is timed);
 * - an answer of endless bytes, read as fast as it comes, ends at the byte cap, and the runner's peak resident
 *   memory (`/usr/bin/time -v`'s maximum resident set size) stays under 300 MB;
 * - a function tagged `coldstart:run` whose name lambda:run never gives is listed and left, with its log group.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_AWS_ANSWER_BYTES } from '../../metrics/cloud/bounded-client.ts';
import { writeLambdaPackage } from '../../metrics/cloud/package.ts';
import { CLI, ROOT, tempDir } from '../support/helpers.ts';
import { FakeLambda, type FakeFunction } from '../support/fake-lambda.ts';

/** The bound on the runner's peak resident memory, kB (the 300 MB). */
const RSS_BOUND_KB = 300 * 1024;

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
  /** the runner's peak resident set, kB */
  peakKb: number;
}

/** The CLI under `/usr/bin/time -v`, pointed at the fake; its exit status and its peak resident set. */
function cli(fake: FakeLambda, args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/time', ['-v', process.execPath, ...CLI, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: tempDir('coldstart-aws-bounds-home-'),
        AWS_ENDPOINT_URL: fake.url,
        AWS_ACCESS_KEY_ID: 'AKIDCOLDSTARTTEST',
        AWS_SECRET_ACCESS_KEY: 'coldstart-test-secret',
        AWS_EC2_METADATA_DISABLED: 'true',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      // time's report (its lines start with a tab, or "Command exited") is not the command's stderr
      const own = stderr
        .split('\n')
        .filter((line) => !line.startsWith('\t') && !line.startsWith('Command exited with'))
        .join('\n');
      resolve({ status, stdout, stderr: own, peakKb: peak ? Number(peak[1]) : Number.NaN });
    });
  });
}

function fakeFunction(name: string, tags: Record<string, string>): FakeFunction {
  return {
    name,
    arn: `arn:aws:lambda:eu-west-1:123456789012:function:${name}`,
    runtime: 'nodejs22.x',
    role: 'arn:aws:iam::123456789012:role/r',
    handler: 'index.handler',
    memory: 1024,
    architectures: ['x86_64'],
    env: {},
    tags,
    state: 'Active',
    lastUpdateStatus: 'Successful',
    changed: true,
    codeBytes: 1,
  };
}

describe('AWS calls bounded in time and bytes; lambda:clean deletes only what it made', { timeout: 600_000 }, () => {
  const fake = new FakeLambda();
  const dir = tempDir('coldstart-aws-bounds-');
  const pkg = path.join(dir, 'package');
  before(async () => {
    await fake.start();
    const bundle = path.join(dir, 'index.js');
    writeFileSync(bundle, 'exports.handler = async () => ({ statusCode: 200, body: "{}" });\n');
    mkdirSync(pkg);
    writeLambdaPackage(pkg, [{ cell: { framework: 'hono', variant: 'validated', routes: 1 }, bundle }], { runtime: 'nodejs22.x' });
  });
  after(() => fake.stop());

  const run = (name: string, env: Record<string, string> = {}) =>
    cli(
      fake,
      [
        'lambda-run',
        pkg,
        '--out',
        path.join(dir, name),
        '--region',
        'eu-west-1',
        '--role',
        'arn:aws:iam::123456789012:role/r',
        '--samples',
        '1',
        '--run-id',
        name,
      ],
      env,
    );

  it('lambda:clean lists a tagged function without the prefix and leaves it and its log group; deletes its own', async () => {
    fake.reset();
    fake.functions.set('prod-billing', fakeFunction('prod-billing', { 'coldstart:run': 'abc' }));
    fake.logGroups.set('/aws/lambda/prod-billing', []);
    // the prefix alone is not enough either: a name lambda:run gives, tagged with another run's id
    fake.functions.set('coldstart-hono-1-validated-zzz', fakeFunction('coldstart-hono-1-validated-zzz', { 'coldstart:run': 'abc' }));
    fake.functions.set('coldstart-hono-1-validated-abc', fakeFunction('coldstart-hono-1-validated-abc', { 'coldstart:run': 'abc' }));
    fake.logGroups.set('/aws/lambda/coldstart-hono-1-validated-abc', []);
    const result = await cli(fake, ['lambda-clean', '--region', 'eu-west-1']);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual([...fake.functions.keys()].sort(), ['coldstart-hono-1-validated-zzz', 'prod-billing']);
    assert.ok(fake.logGroups.has('/aws/lambda/prod-billing'));
    assert.ok(!fake.logGroups.has('/aws/lambda/coldstart-hono-1-validated-abc'));
    assert.match(result.stderr, /^not deleted: function prod-billing \(tagged coldstart:run abc\): not named by coldstart$/m);
    assert.match(
      result.stderr,
      /^not deleted: function coldstart-hono-1-validated-zzz \(tagged coldstart:run abc\): not named by coldstart$/m,
    );
    assert.ok(!fake.calls.some((c) => c.op === 'DeleteFunction' && c.path.endsWith('/prod-billing')));
    // with --run, the same
    const one = await cli(fake, ['lambda-clean', '--region', 'eu-west-1', '--run', 'abc']);
    assert.equal(one.status, 0, one.stderr);
    assert.ok(fake.functions.has('prod-billing'));
  });

  it("lambda:run's own clean-up leaves a function of its name it did not create (another's, tagged otherwise)", async () => {
    fake.reset();
    // the name this run would give, already there (another run with the same id, or a hand-made one): CreateFunction is refused
    const name = 'coldstart-hono-1-validated-taken';
    fake.functions.set(name, fakeFunction(name, { 'coldstart:run': 'other' }));
    fake.logGroups.set(`/aws/lambda/${name}`, []);
    const result = await run('taken');
    assert.equal(result.status, 5, result.stderr);
    assert.ok(fake.functions.has(name), 'the function it did not make is still there');
    assert.ok(fake.logGroups.has(`/aws/lambda/${name}`), 'and its log group');
    assert.ok(!fake.calls.some((c) => c.op === 'DeleteFunction'));
  });

  it('a slow-loris answer ends lambda:clean (ListFunctions) and lambda:run (CreateFunction) at the deadline, exit 5', async () => {
    fake.reset();
    fake.functions.set('coldstart-hono-1-validated-abc', fakeFunction('coldstart-hono-1-validated-abc', { 'coldstart:run': 'abc' }));
    fake.faults = { slowLoris: ['ListFunctions'] };
    const env = { COLDSTART_AWS_DEADLINE_S: '2' };
    const clean = await cli(fake, ['lambda-clean', '--region', 'eu-west-1'], env);
    assert.equal(clean.status, 5, clean.stderr);
    assert.equal(clean.stderr, "coldstart: Lambda's answer to ListFunctions did not end within 2 s: stopped reading it\n");
    fake.reset();
    fake.faults = { slowLoris: ['CreateFunction'] };
    const created = await run('loris1', env);
    assert.equal(created.status, 5, created.stderr);
    assert.match(created.stderr, /^coldstart: Lambda's answer to CreateFunction did not end within 2 s: stopped reading it$/m);
    // IAM and CloudWatch Logs the same: lambda:clean --roles on ListRoles, and its DescribeLogGroups
    fake.reset();
    fake.faults = { slowLoris: ['iam:ListRoles'] };
    const roles = await cli(fake, ['lambda-clean', '--region', 'eu-west-1', '--roles'], env);
    assert.equal(roles.status, 5, roles.stderr);
    assert.equal(roles.stderr, "coldstart: IAM's answer to ListRoles did not end within 2 s: stopped reading it\n");
    fake.reset();
    fake.faults = { slowLoris: ['logs:DescribeLogGroups'] };
    const groups = await cli(fake, ['lambda-clean', '--region', 'eu-west-1'], env);
    assert.equal(groups.status, 5, groups.stderr);
    assert.equal(groups.stderr, "coldstart: CloudWatch Logs' answer to DescribeLogGroups did not end within 2 s: stopped reading it\n");
  });

  it('a deadline that is not a number of seconds is one line, exit 2', async () => {
    fake.reset();
    const result = await cli(fake, ['lambda-clean', '--region', 'eu-west-1'], { COLDSTART_AWS_DEADLINE_S: 'soon' });
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stderr, 'coldstart: COLDSTART_AWS_DEADLINE_S must be a number of seconds above 0 and at most 3600, not "soon"\n');
  });

  it('an Invoke answer of endless bytes ends at the byte cap, the runner under 300 MB', async (t) => {
    fake.reset();
    fake.faults = { flood: ['Invoke'] };
    const result = await run('flood1');
    assert.equal(result.status, 5, result.stderr);
    assert.match(result.stderr, new RegExp(`Lambda's answer to Invoke passed ${MAX_AWS_ANSWER_BYTES} bytes: stopped reading it`));
    t.diagnostic(`peak resident set ${result.peakKb} kB`);
    assert.ok(result.peakKb < RSS_BOUND_KB, `peak resident ${result.peakKb} kB`);
    assert.equal(fake.functions.size, 0, 'its function deleted all the same');
  });

  it('a FilterLogEvents answer of endless bytes ends at the byte cap, the runner under 300 MB', async (t) => {
    fake.reset();
    // the tail lacks the REPORT line: lambda:run asks CloudWatch Logs for it
    fake.faults = { tailWithoutReport: ['coldstart-hono'], flood: ['logs:FilterLogEvents'] };
    const result = await run('flood2');
    assert.equal(result.status, 5, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(`CloudWatch Logs' answer to FilterLogEvents passed ${MAX_AWS_ANSWER_BYTES} bytes: stopped reading it`),
    );
    t.diagnostic(`peak resident set ${result.peakKb} kB`);
    assert.ok(result.peakKb < RSS_BOUND_KB, `peak resident ${result.peakKb} kB`);
    assert.ok(fake.calls.some((c) => c.op === 'logs:FilterLogEvents'));
  });
});
