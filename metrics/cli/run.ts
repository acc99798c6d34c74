/**
 * A whole run: select, generate, plan, run every sample as a fresh process, append each to
 * samples.jsonl the moment it finishes, then write the report. Ctrl-C kills the live children,
 * keeps every finished sample, writes the report of what there is and exits 130.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { contractOf } from '../../generators/contract.ts';
import { frameworkVersion, installedVersion, loadGenerators, PROJECT_ROOT } from '../../generators/registry.ts';
import type { FrameworkGenerator, Variant } from '../../generators/types.ts';
import { writeGenerated } from '../../generators/write.ts';
import type { CellSummary } from '../analyse/aggregate.ts';
import { cellFilePath, makeCell, type Cell } from '../core/cell.ts';
import { catchInterrupts, killAll, liveChildren } from '../measure/children.ts';
import { costMetaOptions, type CostOptions } from '../analyse/cost.ts';
import { childEnvironment, PASSED_ENV, CHILD_NODE_ENV, type ChildEnvironment } from '../measure/environment.ts';
import { UsageError } from '../core/errors.ts';
import { COMPILE_CACHE_ENV, DEFAULT_LEVERS, LeverSession, prepareLevers, runtimeSources, runtimeVersions, type LeverLists } from '../plan/levers.ts';
import { binaryVersion, machine, writeMeta, type RunMeta } from '../core/meta.ts';
import { selectFrameworks } from '../plan/selection.ts';
import { buildPlan, type Order } from '../plan/order.ts';
import { Progress } from '../measure/progress.ts';
import { loadRun, SAMPLES_FILE, writeReport } from '../report/write.ts';
import { runSample, type Launch } from '../measure/sample.ts';
import { appendSample } from '../core/samples.ts';

export const RESULTS_DIR = path.join(PROJECT_ROOT, 'results');

export interface RunOptions {
  frameworks: string;
  routes: number[];
  variants: Variant[];
  samples: number;
  warmup: number;
  timeoutMs: number;
  order: Order;
  seed: string;
  node: string;
  out: string | undefined;
  /** the command line, for meta.json */
  command: string;
  /** where progress goes (stderr by default) */
  progressStream?: NodeJS.WriteStream;
  /** the cost model (--memory, --arch, --price), kept in meta.json for the report */
  cost?: CostOptions;
  /** --runtime, --build, --compile-cache: every cell runs once per combination (default node, plain, off) */
  levers?: LeverLists;
}

export interface RunResult {
  dir: string;
  summaries: CellSummary[];
  interrupted: boolean;
}

export function timestampName(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

/** A new run folder; an existing folder that already holds samples is never reused. */
function prepareOutDir(out: string | undefined, startedAt: Date): string {
  const dir = path.resolve(out ?? path.join(RESULTS_DIR, timestampName(startedAt)));
  if (existsSync(path.join(dir, SAMPLES_FILE))) {
    throw new UsageError(`${dir} already holds a run (${SAMPLES_FILE}): choose another --out`);
  }
  if (existsSync(dir) && readdirSync(dir).length > 0 && !out) throw new UsageError(`${dir} exists and is not empty`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** results/latest names the newest run, when the run lives in results/. */
function pointLatest(dir: string): void {
  if (path.dirname(dir) !== RESULTS_DIR) return;
  const link = path.join(RESULTS_DIR, 'latest');
  try {
    unlinkSync(link);
  } catch {
    // no previous link
  }
  symlinkSync(path.basename(dir), link);
}

export function frameworksMeta(generators: FrameworkGenerator[]): RunMeta['frameworks'] {
  return Object.fromEntries(
    generators.map((g) => [
      g.name,
      {
        version: frameworkVersion(g),
        packages: Object.fromEntries(g.packages.map((pkg) => [pkg, installedVersion(pkg) ?? 'not installed'])),
        validation: g.validation,
        alwaysValidates: Boolean(g.alwaysValidates),
      },
    ]),
  );
}

/** What every command that measures cells is asked for. */
export interface SelectionOptions {
  frameworks: string;
  routes: number[];
  variants: Variant[];
  node: string;
}

export interface PreparedCells {
  selected: FrameworkGenerator[];
  /** frameworks left out of `all`: name → reason */
  skipped: Map<string, string>;
  byName: Map<string, FrameworkGenerator>;
  /** every selected framework × variant × route count, each with its file generated */
  cells: Cell[];
  /** the clean environment the measured children get */
  environment: ChildEnvironment;
  /** what `--node --version` printed */
  nodeVersion: string;
}

/**
 * Select the frameworks, check the node binary and generate every cell's file: the start shared by
 * `run` and `hyperfine`. `extraEnv` joins the children's clean environment (e.g. COLDSTART_EXIT).
 */
export async function prepareCells(
  options: SelectionOptions,
  progressStream: NodeJS.WritableStream,
  extraEnv: Record<string, string> = {},
): Promise<PreparedCells> {
  const generators = await loadGenerators();
  const { selected, skipped } = selectFrameworks(options.frameworks, generators);
  for (const [name, reason] of skipped) progressStream.write(`${name}: skipped (${reason})\n`);

  const environment = childEnvironment(process.env, extraEnv);
  const nodeVersion = binaryVersion(options.node, environment.env);
  if (!nodeVersion) throw new UsageError(`--node: "${options.node}" does not run (${'--version'} failed)`);

  const byName = new Map(selected.map((g) => [g.name, g]));
  const cells: Cell[] = [];
  for (const generator of selected) {
    for (const variant of options.variants) {
      for (const routes of options.routes) cells.push(makeCell({ framework: generator.name, variant, routes }));
    }
  }
  progressStream.write(`generating ${cells.length} files…\n`);
  for (const cell of cells) await writeGenerated(byName.get(cell.framework)!, cell.routes, cell.variant);
  return { selected, skipped, byName, cells, environment, nodeVersion };
}

/** How a cell's file is started: the node binary on the generated file, in `cwd`, with `env`. */
export function cellLaunch(cell: Cell, node: string, cwd: string, env: NodeJS.ProcessEnv): Launch {
  return { command: node, args: [cellFilePath(cell)], cwd, env };
}

export async function runMetrics(options: RunOptions): Promise<RunResult> {
  const progressStream = options.progressStream ?? process.stderr;
  const { selected, skipped, byName, cells: baseCells, environment } = await prepareCells(options, progressStream);
  // the levers multiply the cells: runtimes installed on demand, bundles built, unsupported cells known
  const levers = await prepareLevers(baseCells, options.levers ?? DEFAULT_LEVERS, {
    node: options.node,
    env: environment.env,
    log: (line) => progressStream.write(`${line}\n`),
  });
  const cells = levers.cells;
  const compileCached = cells.some((c) => c.compileCache !== 'off');

  const startedAt = new Date();
  const dir = prepareOutDir(options.out, startedAt);
  const samplesFile = path.join(dir, SAMPLES_FILE);
  const meta: RunMeta = {
    tool: 'coldstart',
    toolVersion: '0.1.0',
    startedAt: startedAt.toISOString(),
    command: options.command,
    options: {
      frameworks: selected.map((g) => g.name),
      routes: options.routes,
      variants: options.variants,
      samples: options.samples,
      warmup: options.warmup,
      timeoutMs: options.timeoutMs,
      order: options.order,
      seed: options.seed,
      ...costMetaOptions(options.cost),
      runtimes: levers.lists.runtimes,
      builds: levers.lists.builds,
      compileCaches: levers.lists.compileCaches,
      runtimeSources: runtimeSources(levers),
    },
    machine: machine(),
    runner: { node: process.version },
    runtimes: runtimeVersions(levers),
    frameworks: frameworksMeta(selected),
    skipped: Object.fromEntries(skipped),
    environment: {
      passed: [...PASSED_ENV, `NODE_ENV=${CHILD_NODE_ENV}`, ...(compileCached ? [`${COMPILE_CACHE_ENV} (compile-cache cold/warm cells only)`] : [])],
      dropped: environment.dropped,
    },
  };
  writeMeta(dir, meta);

  const plan = buildPlan(cells, {
    samples: options.samples,
    warmup: options.warmup,
    order: options.order,
    seed: options.seed,
    validates: (cell) => cell.variant === 'validated' || Boolean(byName.get(cell.framework)!.alwaysValidates),
  });
  // children run in a scratch folder: some frameworks write files (var/, caches) into their cwd
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'coldstart-'));
  const guard = catchInterrupts();
  // each cell's runtime, file (plain or bundle) and compile-cache directory (under scratch)
  const leverSession = new LeverSession(levers, scratch, environment.env, () => guard.interrupted);

  const progress = new Progress(plan, progressStream);
  let samplesDurationMs = 0;
  try {
    for (const run of plan) {
      if (guard.interrupted) break;
      progress.starting(run);
      const sample = await leverSession.sample(run, (launch, checkInvalidBody) =>
        runSample({
          cell: run.cell,
          launch,
          contract: contractOf(byName.get(run.cell.framework)!),
          phase: run.phase,
          index: run.index,
          timeoutMs: options.timeoutMs,
          checkInvalidBody,
        }),
      );
      // a sample cut short by Ctrl-C says nothing about the framework: it is not recorded
      if (guard.interrupted) break;
      appendSample(samplesFile, sample);
      samplesDurationMs += sample.durationMs;
      progress.finished(sample);
    }
  } finally {
    progress.stop();
    guard.dispose();
    if (liveChildren() > 0) killAll();
    leverSession.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }

  const finishedAt = new Date();
  Object.assign(meta, {
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    samplesDurationMs,
    interrupted: guard.interrupted,
  });
  writeMeta(dir, meta);
  if (existsSync(samplesFile)) {
    await writeReport(dir, { warn: (line) => progressStream.write(`warning: ${line}\n`) });
    pointLatest(dir);
  }
  return { dir, summaries: existsSync(samplesFile) ? loadRun(dir).summaries : [], interrupted: guard.interrupted };
}
