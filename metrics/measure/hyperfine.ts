/**
 * `hyperfine`: the cross-check. Generates the files like `run`, then times each cell's file with
 * hyperfine in exit-after-listen mode (COLDSTART_EXIT=1): exec to exit, no shell, the runner's clean
 * environment, a scratch cwd, the same warm-up and sample counts. One hyperfine invocation per cell,
 * named with the cell label and carrying the cell's dimensions as parameters; their results are
 * written together as DIR/hyperfine.json (hyperfine's own --export-json shape). When DIR holds a
 * run (samples.jsonl) its report is rewritten and shows both figures per cell.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { cellLabel } from '../core/cell.ts';
import { catchInterrupts, killAll, stopGroup, track } from './children.ts';
import { addSelectionOptions, commandLine, displayPath, selectionOf } from '../cli/main.ts';
import { CHILD_NODE_ENV, childEnvironment, PASSED_ENV, type ChildEnvironment } from './environment.ts';
import { EXIT_INTERRUPTED, UsageError } from '../core/errors.ts';
import { HYPERFINE_FILE, parseHyperfineJson, type HyperfineRunInfo } from '../analyse/crosscheck.ts';
import { parseInteger, parseSeconds } from '../plan/selection.ts';
import { cellParameters } from '../report/hyperfine-json.ts';
import { SAMPLES_FILE, writeReport } from '../report/write.ts';
import { cellLaunch, prepareCells, RESULTS_DIR, timestampName, type SelectionOptions } from '../cli/run.ts';

export const INSTALL_HINT =
  'hyperfine is not installed (it is a system tool, not an npm package): install it with `apt-get install hyperfine` (Debian/Ubuntu) and run again';

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
  runs: number;
  warmup: number;
  exportFile: string;
}

/** hyperfine's arguments for one benchmark. */
export function hyperfineArgs(b: Benchmark): string[] {
  for (const [name, value] of Object.entries(b.parameters)) {
    if (value === '' || /[,{}]/.test(value)) throw new Error(`hyperfine parameter ${name}="${value}" cannot be passed as a --parameter-list value`);
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
export async function benchmark(
  b: Benchmark,
  launch: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; output?: NodeJS.WritableStream },
): Promise<BenchmarkOutcome> {
  rmSync(b.exportFile, { force: true });
  const child = spawn('hyperfine', hyperfineArgs(b), { cwd: launch.cwd, env: launch.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => launch.output?.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    launch.output?.write(chunk);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void stopGroup(child);
  }, launch.timeoutMs);
  const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  clearTimeout(timer);
  await stopGroup(child);
  if (exit.error) return { error: `hyperfine did not start: ${exit.error.message}` };
  if (timedOut) return { error: `no result within ${Math.round(launch.timeoutMs / 1000)} s (a run hung?)` };
  if (exit.code !== 0) {
    const line = stderr.split('\n').map((l) => l.trim()).filter(Boolean).find((l) => /^error/i.test(l)) ?? stderr.trim().split('\n').pop();
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

export interface HyperfineOptions extends SelectionOptions {
  samples: number;
  warmup: number;
  /** the limit for one run; a cell gets it × (warm-up + samples) */
  timeoutMs: number;
  out: string | undefined;
  command: string;
  progressStream?: NodeJS.WritableStream;
}

export interface HyperfineRun {
  dir: string;
  file: string;
  measured: number;
  failed: HyperfineRunInfo['failed'];
  /** the folder holds a run whose report now shows both */
  merged: boolean;
  interrupted: boolean;
}

function checkOutDir(dir: string, explicit: boolean): void {
  if (existsSync(path.join(dir, HYPERFINE_FILE))) {
    throw new UsageError(`${dir} already holds a hyperfine run (${HYPERFINE_FILE}): choose another --out`);
  }
  if (!explicit && existsSync(dir) && readdirSync(dir).length > 0) throw new UsageError(`${dir} exists and is not empty`);
}

export async function runHyperfine(options: HyperfineOptions): Promise<HyperfineRun> {
  const stream = options.progressStream ?? process.stderr;
  const environment = hyperfineEnvironment();
  const version = hyperfineVersion(environment.env);
  if (!version) throw new UsageError(INSTALL_HINT);

  const startedAt = new Date();
  const dir = path.resolve(options.out ?? path.join(RESULTS_DIR, timestampName(startedAt)));
  checkOutDir(dir, options.out !== undefined);
  const { cells, nodeVersion } = await prepareCells(options, stream, HYPERFINE_EXTRA_ENV);
  mkdirSync(dir, { recursive: true });

  const info: HyperfineRunInfo = {
    tool: 'coldstart',
    hyperfine: version,
    node: nodeVersion,
    command: options.command,
    startedAt: startedAt.toISOString(),
    runs: options.samples,
    warmup: options.warmup,
    shell: 'none',
    environment: {
      passed: [...PASSED_ENV, `NODE_ENV=${CHILD_NODE_ENV}`, ...Object.entries(HYPERFINE_EXTRA_ENV).map(([k, v]) => `${k}=${v}`)],
      dropped: environment.dropped,
    },
    failed: [],
  };
  const results: Record<string, unknown>[] = [];
  // children run in a scratch folder: some frameworks write files (var/, caches) into their cwd
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'coldstart-'));
  const exports = mkdtempSync(path.join(os.tmpdir(), 'coldstart-hyperfine-'));
  const guard = catchInterrupts();
  try {
    for (const [i, cell] of cells.entries()) {
      if (guard.interrupted) break;
      const label = cellLabel(cell);
      const launch = cellLaunch(cell, options.node, scratch, environment.env);
      stream.write(`hyperfine ${i + 1}/${cells.length}: ${label}\n`);
      const outcome = await benchmark(
        {
          name: label,
          parameters: cellParameters(cell),
          argv: [launch.command, ...launch.args],
          runs: options.samples,
          warmup: options.warmup,
          exportFile: path.join(exports, `${i}.json`),
        },
        { cwd: launch.cwd, env: launch.env, timeoutMs: options.timeoutMs * (options.samples + options.warmup) + 10_000, output: stream },
      );
      if (guard.interrupted) break;
      if (outcome.result) results.push(outcome.result);
      else {
        info.failed.push({ command: label, reason: outcome.error ?? 'unknown' });
        stream.write(`${label}: failed (${outcome.error ?? 'unknown'})\n`);
      }
    }
  } finally {
    guard.dispose();
    killAll();
    rmSync(scratch, { recursive: true, force: true });
    rmSync(exports, { recursive: true, force: true });
  }
  info.finishedAt = new Date().toISOString();
  if (guard.interrupted) info.interrupted = true;
  const file = path.join(dir, HYPERFINE_FILE);
  writeFileSync(file, JSON.stringify({ results, coldstart: info }, null, 2) + '\n');
  const merged = existsSync(path.join(dir, SAMPLES_FILE));
  if (merged) await writeReport(dir, { warn: (line) => stream.write(`warning: ${line}\n`) });
  return { dir, file, measured: results.length, failed: info.failed, merged, interrupted: guard.interrupted };
}

export function registerHyperfineCommand(program: Command): void {
  addSelectionOptions(
    program
      .command('hyperfine')
      .description('cross-check: time every generated file with hyperfine (exec to exit) into DIR/hyperfine.json; a run folder\'s report then shows both'),
  )
    .option('-s, --samples <n>', 'hyperfine --runs per cell', parseInteger('--samples', 1, 10_000), 5)
    .option('-w, --warmup <n>', 'hyperfine --warmup per cell', parseInteger('--warmup', 0, 100), 1)
    .option('-t, --timeout <seconds>', 'limit per run; a cell gets it × (warm-up + samples)', parseSeconds('--timeout'), 120)
    .option('--node <path>', 'the node binary to measure', process.execPath)
    .option('-o, --out <dir>', 'a run folder to add hyperfine.json to (its report then merges both), or a new folder (default results/<timestamp>/)')
    .action(async (opts: Record<string, unknown>) => {
      const result = await runHyperfine({
        ...selectionOf(opts),
        samples: opts.samples as number,
        warmup: opts.warmup as number,
        timeoutMs: (opts.timeout as number) * 1000,
        node: opts.node as string,
        out: opts.out as string | undefined,
        command: commandLine(process.argv, 'metrics:hyperfine'),
      });
      const failed = result.failed.length ? `; ${result.failed.length} cells failed` : '';
      const where = displayPath(result.file);
      const next = result.merged
        ? `; report merged (${displayPath(path.join(result.dir, 'summary.md'))})`
        : ` (no ${SAMPLES_FILE} there: \`npm run metrics -- --out ${displayPath(result.dir)}\` with the same selection adds the runner's figures)`;
      process.stdout.write(`${result.interrupted ? 'interrupted; partial hyperfine results in' : 'hyperfine results in'} ${where}${next}${failed}\n`);
      if (result.interrupted) process.exitCode = EXIT_INTERRUPTED;
      else if (result.measured === 0) process.exitCode = 1;
    });
}
