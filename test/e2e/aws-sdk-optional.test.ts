/**
 * AWS's SDK is an optional peer dependency, loaded only by lambda:run and lambda:clean
 * (metrics/core/aws-sdk.ts). In a process where the SDK cannot be found (test/support/hide-aws-sdk.ts
 * answers every @aws-sdk/* and @smithy/* import as a missing package and logs it):
 * - `run` and `report` finish and never ask for it;
 * - lambda:run and lambda:clean say in one line how to install it and exit 9, before any AWS call;
 * - but `lambda:run --dry-run`, which creates nothing, prints its plan and cost and never asks for it.
 * test/e2e/install.test.ts checks the same on a real install of the packed tool without the SDK.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { writeLambdaPackage } from '../../metrics/cloud/package.ts';
import { AWS_SDK_PACKAGES } from '../../metrics/core/aws-sdk.ts';
import { EXIT_AWS_SDK_MISSING } from '../../metrics/core/errors.ts';
import { fixture, ROOT, tempDir, type CliResult } from '../support/helpers.ts';

const HIDE = path.join(ROOT, 'test', 'support', 'hide-aws-sdk.ts');

/** The CLI in a process without the SDK; `log`: the file the hook lists every SDK import it refused in. */
function withoutSdk(args: string[], log: string): CliResult {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--import', HIDE, path.join(ROOT, 'metrics', 'cli', 'main.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, COLDSTART_TEST_SDK_LOG: log },
    timeout: 180_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function asked(log: string): string[] {
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}

const said = (result: CliResult) => `exit ${String(result.status)}\n${result.stdout}\n${result.stderr}`;

describe('AWS SDK optional: only lambda:run and lambda:clean load it', { timeout: 400_000 }, () => {
  it('run (a servers cell) and report finish without the SDK and never ask for it', () => {
    const dir = tempDir('coldstart-sdk-optional-');
    const log = path.join(dir, 'asked.txt');
    const run = withoutSdk(['run', '-f', 'node-http', '-r', '1', '--samples', '1', '--warmup', '0', '--out', path.join(dir, 'run')], log);
    assert.equal(run.status, 0, said(run));
    assert.ok(existsSync(path.join(dir, 'run', 'summary.md')), said(run));
    const golden = path.join(dir, 'golden');
    mkdirSync(golden);
    for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(fixture('golden-run'), file), path.join(golden, file));
    const report = withoutSdk(['report', golden], log);
    assert.equal(report.status, 0, said(report));
    assert.deepEqual(asked(log), [], 'run and report asked for no AWS SDK module');
  });

  it('lambda:run --dry-run without the SDK: the plan and its estimated cost, exit 0, and the SDK never asked for', () => {
    const dir = tempDir('coldstart-sdk-optional-');
    const log = path.join(dir, 'asked.txt');
    const bundle = path.join(dir, 'index.js');
    writeFileSync(bundle, 'exports.handler = async () => ({ statusCode: 200, body: "{}" });\n');
    const pkg = path.join(dir, 'pkg');
    mkdirSync(pkg);
    writeLambdaPackage(pkg, [{ cell: { framework: 'hono', variant: 'validated', routes: 1 }, bundle }], { runtime: 'nodejs22.x' });
    const out = path.join(dir, 'out');
    const args = ['lambda-run', pkg, '--region', 'eu-west-1', '--create-role', '--out', out, '--dry-run', '--run-id', 'dry1'];
    const result = withoutSdk([...args, '--arch', 'x86_64,arm64', '--lambda-memory', '128,1024'], log);
    assert.equal(result.status, 0, said(result));
    // 2 functions (one a line and architecture) × 2 memory sizes × 10 cold starts
    assert.match(
      result.stdout,
      /^run dry1 in eu-west-1: 2 function\(s\) × 2 memory size\(s\) \(128, 1024 MB\) × 10 cold starts = 40 invocations/m,
    );
    assert.match(result.stdout, /^ {2}coldstart-hono-1-validated-dry1-2 {2}nodejs22\.x arm64 {2}→ /m);
    assert.match(result.stdout, /^estimated cost: \$0\.\d{4} at 1000 ms billed a cold start \(at most \$0\.\d+ /m);
    assert.match(result.stdout, /^dry run: nothing created$/m);
    assert.equal(result.stderr, '');
    assert.ok(!existsSync(out), 'nothing written');
    assert.deepEqual(asked(log), [], 'a dry run asked for no AWS SDK module');
    // a usage error is still one line, exit 2, without the SDK
    const refused = withoutSdk([...args.filter((a) => a !== '--create-role')], log);
    assert.equal(refused.status, 2, said(refused));
    assert.equal(refused.stderr, 'coldstart: lambda:run needs --role ARN or --create-role\n');
  });

  it('lambda:run and lambda:clean without the SDK: one line with the npm install, exit 9', () => {
    const dir = tempDir('coldstart-sdk-optional-');
    const log = path.join(dir, 'asked.txt');
    const commands: [string, string[]][] = [
      ['lambda:run', ['lambda-run', path.join(dir, 'pkg'), '--region', 'eu-west-1', '--create-role', '--out', path.join(dir, 'out')]],
      ['lambda:clean', ['lambda-clean', '--region', 'eu-west-1', '--dry-run']],
    ];
    for (const [name, args] of commands) {
      const result = withoutSdk(args, log);
      assert.equal(result.status, EXIT_AWS_SDK_MISSING, said(result));
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `one line: ${result.stderr}`);
      assert.match(lines[0]!, new RegExp(`^coldstart: ${name} needs AWS's SDK`));
      for (const [pkg, range] of Object.entries(AWS_SDK_PACKAGES))
        assert.ok(lines[0]!.includes(`${pkg}@${range}`), `names ${pkg}@${range}`);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.ok(!existsSync(path.join(dir, 'out')), 'nothing written');
    }
    assert.ok(asked(log).includes('@aws-sdk/client-lambda'), 'the hook was asked for the SDK (the test hides what the command loads)');
  });
});
