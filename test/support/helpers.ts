/**
 * Helpers of the e2e layer: the command line that runs the CLI, one real sample of a file, the pinned
 * node22, and finding processes by a marker. The helpers that start no process (the project and
 * fixture folders, temporary folders, waitFor) live in ./in-process.ts, which the in-process layers
 * import; they are re-exported here for the e2e files.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { contractOf } from '../../generators/contract.ts';
import type { FrameworkGenerator } from '../../generators/types.ts';
import { makeCell, type Cell } from '../../metrics/core/cell.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { runSample } from '../../metrics/measure/sample.ts';
import type { Target } from '../../metrics/measure/targets/target.ts';
import { ensureRuntime, type ResolvedRuntime } from '../../metrics/plan/runtimes.ts';
import type { Variant } from '../../metrics/core/dimensions.ts';
import { FIXTURES, ROOT } from './in-process.ts';

export { FIXTURES, ROOT, fixture, tempDir, waitFor } from './in-process.ts';

/** The arguments of `node` that run coldstart's command line: `spawn(process.execPath, [...CLI, 'run', …])`. */
export const CLI = ['--import', 'tsx', path.join(ROOT, 'metrics', 'cli', 'main.ts')];

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Run the CLI to its end from the project folder. */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): CliResult {
  const result = spawnSync(process.execPath, [...CLI, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: options.env ?? process.env,
    timeout: options.timeoutMs ?? 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Run the CLI once per argument list, `parallel` at a time (each start loads the whole tool, ~2 s),
 * for commands whose results do not depend on the machine's load (nothing timed: usage errors,
 * counted runs); the results in the order given.
 */
export async function runClis(argLists: string[][], parallel = 3, timeoutMs = 120_000): Promise<CliResult[]> {
  const results: CliResult[] = new Array<CliResult>(argLists.length);
  let next = 0;
  const worker = async () => {
    while (next < argLists.length) {
      const i = next++;
      results[i] = await new Promise<CliResult>((resolve) => {
        const child = spawn(process.execPath, [...CLI, ...argLists[i]!], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        child.on('close', (status) => {
          clearTimeout(timer);
          resolve({ status, stdout, stderr });
        });
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, argLists.length) }, worker));
  return results;
}

export interface RunFileOptions {
  cell?: Cell;
  generator?: Pick<FrameworkGenerator, 'contract'>;
  timeoutMs?: number;
  checkInvalidBody?: boolean;
  /** the program that runs the file (the running node by default) */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** first hits after the timed answer (default none) */
  firstHits?: number;
  /** how the file runs (default the HTTP server target) */
  target?: Target;
}

/** One real sample of `file` through the runner. */
export function runFile(file: string, options: RunFileOptions = {}): Promise<SampleRecord> {
  return runSample({
    cell: options.cell ?? makeCell({ framework: 'fixture', variant: 'validated', routes: 1 }),
    launch: {
      command: options.command ?? process.execPath,
      args: [file, ...(options.args ?? [])],
      cwd: FIXTURES,
      env: childEnvironment(process.env, options.env).env,
    },
    contract: contractOf(options.generator ?? {}),
    phase: 'sample',
    index: 1,
    timeoutMs: options.timeoutMs ?? 30_000,
    checkInvalidBody: options.checkInvalidBody ?? false,
    firstHits: options.firstHits ?? 0,
    ...(options.target ? { target: options.target } : {}),
  });
}

export function cellFor(framework: string, variant: Variant, routes: number): Cell {
  return makeCell({ framework, variant, routes });
}

/** The variables a fixture child printed on stderr as `ENV {json}` (env-echo.js). */
export function echoedEnv(sample: SampleRecord): Record<string, string> {
  const line = sample.stderrTail?.split('\n').find((l) => l.startsWith('ENV '));
  if (!line) throw new Error(`the child printed no ENV line: ${sample.error ?? ''}`);
  return JSON.parse(line.slice(4)) as Record<string, string>;
}

/**
 * The pinned node22 from .runtimes/, installed from the npm registry when absent (~30 MB, seconds);
 * `skip` says why a test cannot have it (no registry, for instance).
 */
export function pinnedNode22(): { runtime: ResolvedRuntime; skip: false } | { runtime: undefined; skip: string } {
  try {
    return { runtime: ensureRuntime('node22', childEnvironment().env, (line) => process.stderr.write(`# ${line}\n`)), skip: false };
  } catch (error) {
    return { runtime: undefined, skip: `node22 could not be installed (${(error as Error).message}); skipped` };
  }
}

/** Pids of live processes whose command line contains `marker` (Linux /proc). */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline.includes(marker) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

/** Whether any process of process group `pgid` is alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
