/**
 * lambda:run against a third-party emulator of AWS's API: moto's server (PyPI `moto[server]`), started here on
 * 127.0.0.1 with AWS's managed policies loaded. moto implements every call the command makes (IAM's role, Lambda's
 * create, tag, configuration update, waiters, invoke, delete; CloudWatch Logs' filter and delete), but runs a
 * function's code only in Docker: without it an invocation returns no REPORT line. So the run must go through every
 * call, say that no invocation gave a REPORT line, exit 3, and leave nothing in the emulated account; lambda:clean
 * finds a log group whose function is gone (DescribeLogGroups, GetFunction) and leaves a kept one's. Skipped, and
 * said, without `moto_server` on PATH (.ci/run installs it with pip when it can).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeLambdaPackage } from '../../metrics/cloud/package.ts';
import { CLI, ROOT, tempDir } from '../support/helpers.ts';

const hasMoto = spawnSync('sh', ['-c', 'command -v moto_server'], { encoding: 'utf8' }).status === 0;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** An unsigned query moto answers (it routes by the Authorization header's service and does not check the signature). */
async function motoQuery(url: string, service: 'lambda' | 'iam' | 'logs', init: RequestInit = {}): Promise<string> {
  const auth = `AWS4-HMAC-SHA256 Credential=testing/20261127/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`;
  const response = await fetch(url, { ...init, headers: { authorization: auth, ...(init.headers as Record<string, string>) } });
  return response.text();
}

/** One CloudWatch Logs call to moto (the JSON 1.1 protocol): its answer. */
async function motoLogs(url: string, action: string, input: Record<string, unknown>): Promise<unknown> {
  const text = await motoQuery(url, 'logs', {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `Logs_20140328.${action}` },
    body: JSON.stringify(input),
  });
  return text ? (JSON.parse(text) as unknown) : {};
}

async function logGroupsIn(url: string): Promise<string[]> {
  const answer = (await motoLogs(url, 'DescribeLogGroups', { logGroupNamePrefix: '/aws/lambda/' })) as {
    logGroups: { logGroupName: string }[];
  };
  return answer.logGroups.map((g) => g.logGroupName).sort();
}

function cli(url: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: tempDir('coldstart-lambda-moto-home-'),
        AWS_ENDPOINT_URL: url,
        AWS_ACCESS_KEY_ID: 'testing',
        AWS_SECRET_ACCESS_KEY: 'testing',
        AWS_EC2_METADATA_DISABLED: 'true',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe(
  'lambda:run against moto, a third-party emulator of the AWS API',
  { skip: hasMoto ? false : 'moto_server is not installed' },
  () => {
    const dir = tempDir('coldstart-lambda-moto-');
    const pkg = path.join(dir, 'package');
    const motos: ChildProcess[] = [];
    let url = '';
    /** moto's server on a free port; `managed`: with AWS's managed policies (the role's AWSLambdaBasicExecutionRole) */
    async function startMoto(managed: boolean): Promise<string> {
      const port = await freePort();
      const at = `http://127.0.0.1:${port}`;
      const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: dir };
      if (managed) env.MOTO_IAM_LOAD_MANAGED_POLICIES = 'true';
      motos.push(spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore', env }));
      for (let i = 0; i < 100; i++) {
        try {
          await fetch(`${at}/moto-api/`);
          break;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      return at;
    }
    /** what a run left in the account at `at`: its functions, and whether a role coldstart-<run id> is there */
    async function leftIn(at: string, runId: string): Promise<{ functions: unknown; role: boolean }> {
      const functions = JSON.parse(await motoQuery(`${at}/2015-03-31/functions/`, 'lambda')) as unknown;
      const roles = await motoQuery(at, 'iam', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'Action=ListRoles&Version=2010-05-08',
      });
      assert.match(roles, /<ListRolesResponse/);
      return { functions, role: roles.includes(`coldstart-${runId}`) };
    }
    before(async () => {
      url = await startMoto(true);
      const bundle = path.join(dir, 'index.js');
      writeFileSync(bundle, 'exports.handler = async () => ({ statusCode: 200, body: "{}" });\n');
      mkdirSync(pkg);
      writeLambdaPackage(pkg, [{ cell: { framework: 'hono', variant: 'validated', routes: 1 }, bundle }], { runtime: 'nodejs22.x' });
    });
    after(() => {
      for (const moto of motos) moto.kill('SIGKILL');
    });

    it('goes through every call, says no invocation gave a REPORT line (exit 3), and leaves nothing behind', async () => {
      const out = path.join(dir, 'run');
      const result = await cli(url, [
        'lambda-run',
        pkg,
        '--out',
        out,
        '--region',
        'us-east-1',
        '--create-role',
        '--role-wait',
        '10',
        '--samples',
        '2',
        '--logs-wait',
        '0',
        '--ready-timeout',
        '60',
        '--run-id',
        'moto1',
      ]);
      assert.equal(result.status, 3, result.stderr);
      assert.match(
        result.stdout,
        /^\[2\/2\] coldstart-hono-1-validated-moto1 1024 MB #2: no REPORT line in the log tail nor in CloudWatch Logs/m,
      );
      assert.match(result.stderr, /^2 invocation\(s\) without a REPORT line in the tail or CloudWatch Logs: not samples$/m);
      assert.doesNotMatch(result.stderr, /internal error|left in the account/);
      // nothing left in the emulated account: no function, no role of the run
      assert.deepEqual(await leftIn(url, 'moto1'), { functions: { Functions: [] }, role: false });
      const clean = await cli(url, ['lambda-clean', '--region', 'us-east-1', '--roles', '--dry-run']);
      assert.equal(clean.status, 0, clean.stderr);
      assert.match(clean.stdout, /^0 resource\(s\) of every run in us-east-1$/m);
    });

    it('lambda:clean deletes the log group of a function already gone, and not that of a function kept by --keep', async () => {
      // a run kept (--keep): its function stays in moto; moto makes no log group without Docker, so the test does
      const kept = await cli(url, [
        'lambda-run',
        pkg,
        '--out',
        path.join(dir, 'kept'),
        '--region',
        'us-east-1',
        '--create-role',
        '--role-wait',
        '10',
        '--samples',
        '1',
        '--logs-wait',
        '0',
        '--keep',
        '--run-id',
        'keep1',
      ]);
      assert.equal(kept.status, 3, kept.stderr);
      const live = '/aws/lambda/coldstart-hono-1-validated-keep1';
      const gone = ['/aws/lambda/coldstart-hono-1-validated-gone1', '/aws/lambda/coldstart-hono-1-validated-gone1-2'];
      const theirs = ['/aws/lambda/coldstart-hono-1-validated', '/aws/lambda/coldstart-my-api'];
      for (const logGroupName of [live, ...gone, ...theirs]) await motoLogs(url, 'CreateLogGroup', { logGroupName });
      const dry = await cli(url, ['lambda-clean', '--region', 'us-east-1', '--dry-run']);
      assert.equal(dry.status, 0, dry.stderr);
      assert.match(dry.stdout, /^4 resource\(s\) of every run in us-east-1:$/m);
      assert.match(dry.stdout, /^ {2}function coldstart-hono-1-validated-keep1 \(run keep1\)$/m);
      assert.ok(dry.stdout.includes(`  log group ${live} (its log group)\n`), dry.stdout);
      for (const group of gone) assert.ok(dry.stdout.includes(`  log group ${group} (run gone1; its function is gone)\n`), dry.stdout);
      assert.equal((await logGroupsIn(url)).length, 5);
      // one run's: the gone function's groups only; the kept run's function and log group stay
      const one = await cli(url, ['lambda-clean', '--region', 'us-east-1', '--run', 'gone1']);
      assert.equal(one.status, 0, one.stderr);
      assert.deepEqual(await logGroupsIn(url), [live, ...theirs].sort());
      // every run's, with the roles: the kept function, its log group and its role; the others' groups stay
      const every = await cli(url, ['lambda-clean', '--region', 'us-east-1', '--roles']);
      assert.equal(every.status, 0, every.stderr);
      assert.deepEqual(await logGroupsIn(url), theirs.sort());
      assert.deepEqual(await leftIn(url, 'keep1'), { functions: { Functions: [] }, role: false });
    });

    it('an AWS error the tool has no name for (a managed policy missing) is one line, exit 5, and the role is deleted', async () => {
      const bare = await startMoto(false);
      const result = await cli(bare, [
        'lambda-run',
        pkg,
        '--out',
        path.join(dir, 'no-policy'),
        '--region',
        'us-east-1',
        '--create-role',
        '--samples',
        '1',
        '--run-id',
        'moto2',
      ]);
      assert.equal(result.status, 5, result.stderr);
      assert.match(result.stderr, /^coldstart: AWS refused creating role coldstart-moto2: NoSuchEntityException: /m);
      assert.doesNotMatch(result.stderr, /internal error|left in the account/);
      assert.equal(result.stderr.split('\n').filter((line) => line.startsWith('coldstart:')).length, 1, result.stderr);
      assert.deepEqual(await leftIn(bare, 'moto2'), { functions: { Functions: [] }, role: false });
    });
  },
);
