/**
 * lambda:run and lambda:clean against a local Lambda API when AWS says no: throttling, a function stuck in Pending,
 * failed INITs and timeouts, a deletion that fails and lambda:clean after it, SIGINT in the middle, access denied
 * (the happy path: lambda-run.test.ts).
 */
import assert from 'node:assert/strict';

import path from 'node:path';
import { describe, it } from 'node:test';

import { FakeLambda } from '../support/fake-lambda.ts';

import { SECRET, cli, lambdaRunFixture, samplesOf } from '../support/lambda-run-cli.ts';

describe('lambda:run against a local Lambda API that refuses, throttles and fails', () => {
  const { fake, dir, pkg, reset } = lambdaRunFixture('coldstart-lambda-run-faults-');

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
