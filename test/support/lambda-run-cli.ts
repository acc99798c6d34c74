/**
 * What the lambda:run e2e files share: the CLI run against a local Lambda API (test/support/fake-lambda.ts) with
 * dummy credentials and a planted secret, a fake with a two-cell package, the SDK of this process pointed at it,
 * and readers of a run folder.
 */

import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';

import { writeLambdaPackage } from '../../metrics/cloud/package.ts';

import { CLI, ROOT, tempDir } from '../support/helpers.ts';
import { FakeLambda } from '../support/fake-lambda.ts';

export const SECRET = 'coldstartPlantedSecret9f3a1c7e2b';

export interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function cli(
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

export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile());
}

export function samplesOf(dir: string): Record<string, unknown>[] {
  return readFileSync(path.join(dir, 'samples.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The SDK's clients of this process pointed at the fake, with dummy credentials, while `body` runs. */
export async function withEndpoint(fake: FakeLambda, body: () => Promise<void>): Promise<void> {
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

/** A local Lambda API started before the describe's tests and stopped after, and a package of two cells to run. */
export function lambdaRunFixture(prefix: string): { fake: FakeLambda; dir: string; pkg: string; reset: () => void } {
  const fake = new FakeLambda();
  const dir = tempDir(prefix);
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
  return { fake, dir, pkg, reset: () => fake.reset() };
}
