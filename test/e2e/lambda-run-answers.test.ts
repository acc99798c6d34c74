/**
 * lambda:run and lambda:clean against a local Lambda API whose answers never end, overflow their bounds or hold
 * escapes, and against inputs that are special files (FIFOs, folders, links).
 */
import assert from 'node:assert/strict';

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MAX_LIST_PAGES, sdkLambdaApi } from '../../metrics/cloud/lambda-api.ts';
import { sdkLogsApi } from '../../metrics/cloud/logs-api.ts';

import { EXIT_AWS_ACCESS, ExitCodeError } from '../../metrics/core/errors.ts';

import { cli, lambdaRunFixture, samplesOf, withEndpoint } from '../support/lambda-run-cli.ts';

describe('lambda:run and lambda:clean against answers that never end, overflow or hold escapes', { timeout: 240_000 }, () => {
  const { fake, dir, pkg } = lambdaRunFixture('coldstart-lambda-run-answers-');

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
