/**
 * Lambda test helpers: run a file as `node <file>` with a clean environment against a Runtime API
 * of the test's own, queue events, and always stop both (the child is killed, the API closed).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lambdaFileHeader } from '../../generators/lambda-probe.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { straceProblem } from '../../metrics/measure/file-cache.ts';
import { ensureRic, ricBuildProblem } from '../../metrics/plan/ric.ts';
import { lambdaEnvironment } from '../../metrics/measure/runtime-api/environment.ts';
import { startRuntimeApi, type RuntimeApi } from '../../metrics/measure/runtime-api/server.ts';
import type { InvocationOutcome } from '../../metrics/measure/runtime-api/state.ts';
import { fixture } from './helpers.ts';

export interface LambdaRun {
  api: RuntimeApi;
  /** one per queued event, in order; `timeout` when the test's own timeout came first */
  outcomes: (InvocationOutcome | { kind: 'timeout' })[];
  stdout: string;
  stderr: string;
  /** how the child ended: its exit code, or the signal that killed it */
  exit: { code: number | null; signal: NodeJS.Signals | null };
  pid: number | undefined;
  /** when the child was spawned, on the test's performance.now() clock */
  spawnedAt: number;
}

export interface RunLambdaOptions {
  events: unknown[];
  timeoutMs?: number;
  args?: string[];
  /** after the last outcome, wait up to this long for the child to exit by itself before killing it */
  exitWithinMs?: number;
}

/** Run `file` against a fresh Runtime API with `events` queued; the child is killed at the end. */
export async function runLambda(file: string, options: RunLambdaOptions): Promise<LambdaRun> {
  const api = await startRuntimeApi({ functionName: 'coldstart-test' });
  const env = childEnvironment(
    process.env,
    lambdaEnvironment(api.address, {
      functionName: 'coldstart-test',
      memoryMb: 1024,
      handler: `${path.basename(file, '.js')}.handler`,
      taskRoot: path.dirname(file),
    }),
  ).env;
  const spawnedAt = performance.now();
  const args = [file, ...(options.args ?? [])];
  const child = spawn(process.execPath, args, { cwd: path.dirname(file), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<LambdaRun['exit']>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const invocations = options.events.map((event) => api.invoke(event));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ kind: 'timeout' }>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), options.timeoutMs ?? 60_000);
  });
  const outcomes: LambdaRun['outcomes'] = [];
  let exit: LambdaRun['exit'];
  try {
    for (const invocation of invocations) outcomes.push(await Promise.race([invocation.outcome, timeout]));
    if (options.exitWithinMs) await Promise.race([exited, new Promise((r) => setTimeout(r, options.exitWithinMs))]);
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    exit = await exited;
    await api.close();
  }
  return { api, outcomes, stdout, stderr, exit, pid: child.pid, spawnedAt };
}

/** A Lambda file made of the probe and a fixture's app part, written to a temp folder. */
export function probedFixture(name: string): { file: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-lambda-'));
  const file = path.join(dir, 'index.js');
  writeFileSync(file, `${lambdaFileHeader('fixture', 'validated', 1)}\n${readFileSync(fixture(name), 'utf8')}`);
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Why the Runtime Interface Client (and, with `strace`, the cold file cache's strace) is not there,
 * or undefined once it is (built now if it must be): the skip of a test that needs them.
 */
export function ricSkip(options: { strace?: boolean } = {}): string | undefined {
  const problem = ricBuildProblem() ?? (options.strace ? straceProblem() : undefined);
  if (problem) return `${problem}; skipped`;
  try {
    ensureRic(childEnvironment().env, () => {});
    return undefined;
  } catch (error) {
    return `${(error as Error).message}; skipped`;
  }
}
