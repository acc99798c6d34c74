/**
 * hyperfine as a second clock: one hyperfine process per cell, in its own process group, with the
 * children's clean environment, no shell, and its result read back from its --export-json file.
 */
import { spawn, spawnSync } from 'node:child_process';
import { withContainment } from './contain.ts';
import { readFileSync, rmSync } from 'node:fs';
import { parseHyperfineJson } from '../core/hyperfine.ts';
import { stopGroup, track } from './children.ts';
import { childEnvironment, type ChildEnvironment } from './environment.ts';

export const INSTALL_HINT =
  'hyperfine is not installed (it is a system tool, not an npm package): ' +
  'install it with `apt-get install hyperfine` (Debian/Ubuntu) and run again';

/** The children's variables on top of the runner's clean environment. */
export const HYPERFINE_EXTRA_ENV = { COLDSTART_EXIT: '1' } as const;

/**
 * hyperfine hands its own environment to every command (adding only its
 * HYPERFINE_RANDOMIZED_ENVIRONMENT_OFFSET), so hyperfine itself runs with the runner's clean
 * environment plus COLDSTART_EXIT=1: NODE_OPTIONS, NODE_EXTRA_CA_CERTS … never reach the children.
 */
export function hyperfineEnvironment(parent: NodeJS.ProcessEnv = process.env): ChildEnvironment {
  return childEnvironment(parent, HYPERFINE_EXTRA_ENV);
}

/** hyperfine's `--version` line, looked up on env.PATH; undefined when it is not there. */
export function hyperfineVersion(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const result = spawnSync('hyperfine', ['--version'], { env, encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'ignore'] });
  if (result.error || result.status !== 0) return undefined;
  return result.stdout.trim() || 'hyperfine';
}

/** One word for hyperfine's own splitting of a `--shell=none` command (POSIX shell-words rules). */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface Benchmark {
  /** hyperfine's --command-name */
  name: string;
  /** recorded as hyperfine parameters (single-value --parameter-list) */
  parameters: Record<string, string>;
  /** the program and its arguments, run without a shell */
  argv: string[];
  /** a command hyperfine runs before every timed run (e.g. emptying a compile cache), without a shell */
  prepare?: string[];
  runs: number;
  warmup: number;
  exportFile: string;
}

/** hyperfine's arguments for one benchmark. */
export function hyperfineArgs(b: Benchmark): string[] {
  for (const [name, value] of Object.entries(b.parameters)) {
    if (value === '' || /[,{}]/.test(value))
      throw new Error(`hyperfine parameter ${name}="${value}" cannot be passed as a --parameter-list value`);
  }
  return [
    '--shell=none',
    '--runs',
    String(b.runs),
    '--warmup',
    String(b.warmup),
    // the runner reads the child's stdout through a pipe too
    '--output=pipe',
    '--export-json',
    b.exportFile,
    ...Object.entries(b.parameters).flatMap(([name, value]) => ['--parameter-list', name, value]),
    ...(b.prepare ? ['--prepare', b.prepare.map(shellWord).join(' ')] : []),
    '--command-name',
    b.name,
    b.argv.map(shellWord).join(' '),
  ];
}

export interface BenchmarkOutcome {
  /** hyperfine's result, verbatim from its export */
  result?: Record<string, unknown>;
  /** why there is none, one line */
  error?: string;
}

/**
 * Run hyperfine once, in its own process group (killed on timeout and on Ctrl-C with whatever it
 * started), `env` being the whole environment hyperfine and so the children get.
 */
/** Where one benchmark runs: hyperfine's cwd and whole environment, its limit, where its output goes. */
export interface BenchmarkLaunch {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  output?: NodeJS.WritableStream;
}

export async function benchmark(b: Benchmark, launch: BenchmarkLaunch): Promise<BenchmarkOutcome> {
  rmSync(b.exportFile, { force: true });
  // hyperfine and every run of the app it starts stay in the containment helper's tree: killed when
  // hyperfine ends, and with the runner, even a runner killed with SIGKILL (a daemon an app starts included)
  const wrapped = withContainment({ command: 'hyperfine', args: hyperfineArgs(b), env: launch.env });
  const child = spawn(wrapped.command, wrapped.args, {
    cwd: launch.cwd,
    env: launch.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => launch.output?.write(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    launch.output?.write(chunk);
  });
  // the timer sets it while the exit is awaited: a property, as TypeScript would keep a `let` narrowed to false across the await
  const timeout = { fired: false };
  const timer = setTimeout(
    () => {
      timeout.fired = true;
      void stopGroup(child);
      // a timer longer than 2^31 − 1 ms fires at once: the longest it can hold (24.8 days) is the limit then
    },
    Math.min(launch.timeoutMs, 2 ** 31 - 1),
  );
  const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  clearTimeout(timer);
  await stopGroup(child);
  if (exit.error) return { error: `hyperfine did not start: ${exit.error.message}` };
  if (timeout.fired) return { error: `no result within ${Math.round(launch.timeoutMs / 1000)} s (a run hung?)` };
  if (exit.code !== 0) {
    const line =
      stderr
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .find((l) => /^error/i.test(l)) ?? stderr.trim().split('\n').pop();
    return { error: `hyperfine exited with code ${String(exit.code)}${line ? `: ${line.slice(0, 300)}` : ''}` };
  }
  let text: string;
  try {
    text = readFileSync(b.exportFile, 'utf8');
  } catch {
    return { error: 'hyperfine wrote no --export-json file' };
  }
  try {
    parseHyperfineJson(text, 'hyperfine --export-json');
  } catch (error) {
    return { error: (error as Error).message };
  }
  const result = (JSON.parse(text) as { results: Record<string, unknown>[] }).results[0];
  return result ? { result } : { error: 'hyperfine exported no result' };
}
