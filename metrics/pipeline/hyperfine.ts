/**
 * `hyperfine` (npm run metrics:hyperfine), the use case: the cross-check. Prepares the cells like `run`
 * (levers included), then times each cell's file with hyperfine in exit-after-listen mode
 * (COLDSTART_EXIT=1): exec to exit, no shell, the runner's clean environment, a scratch cwd, the same
 * warm-up and sample counts. One hyperfine invocation per cell, named with the cell label and carrying
 * the cell's dimensions as parameters; their results are written together as DIR/hyperfine.json
 * (hyperfine's own --export-json shape). When DIR holds a run (samples.jsonl) its report is rewritten
 * and shows both figures per cell. It takes the RunSpec and the Deps as `run` does: the cells come from
 * `deps.source`, hyperfine itself is `deps.hyperfine` (a pipeline test drives it with the fakes).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { cellLabel } from '../core/cell.ts';
import { UsageError } from '../core/errors.ts';
import { writeOwnedFile } from '../store/files.ts';
import { HYPERFINE_FILE, type HyperfineRunInfo } from '../core/hyperfine.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { CompileCacheDirs } from '../measure/compile-cache.ts';
import { CHILD_NODE_ENV, PASSED_ENV, type ChildEnvironment } from '../measure/environment.ts';
import { HYPERFINE_EXTRA_ENV, hyperfineEnvironment, INSTALL_HINT } from '../measure/hyperfine.ts';
import { openSession, type MeasurementSession } from '../measure/session.ts';
import type { RunSpec } from '../core/run-spec.ts';
import type { PlannedCell } from '../plan/cells.ts';
import { launchOf } from '../plan/launch.ts';
import { runtimeVersions } from '../plan/levers.ts';
import { cellParameters } from '../report/hyperfine-json.ts';
import { writeReport } from '../report/write.ts';
import type { Deps } from './ports.ts';

/** Where the cross-check meets the machine: the run's ports (the environment, progress, clock, cells and hyperfine). */
export type HyperfineDeps = Pick<Deps, 'env' | 'progress' | 'now' | 'source' | 'hyperfine'>;

/** hyperfine's --runs: the spec's samples (hyperfine has no auto: then the least auto would take). */
export function hyperfineRuns(spec: Pick<RunSpec, 'sampling'>): number {
  const { samples, precision } = spec.sampling;
  return samples === 'auto' ? precision.minSamples : samples;
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

/** What every cell's benchmark shares. */
interface Bench {
  spec: RunSpec;
  runs: number;
  deps: HyperfineDeps;
  session: MeasurementSession;
  environment: ChildEnvironment;
  caches: CompileCacheDirs;
  exports: string;
  info: HyperfineRunInfo;
  results: Record<string, unknown>[];
  log: (line: string) => void;
}

export async function runHyperfine(spec: RunSpec, deps: HyperfineDeps): Promise<HyperfineRun> {
  const log = (line: string) => deps.progress.write(`${line}\n`);
  const environment = hyperfineEnvironment(deps.env);
  const version = deps.hyperfine.version(environment.env);
  if (!version) throw new UsageError(INSTALL_HINT);
  const source = deps.source(spec);
  const { session, prepared } = await openSession(
    {
      out: spec.output.out,
      marker: HYPERFINE_FILE,
      what: 'a hyperfine run',
      command: 'hyperfine',
      startedAt: deps.now(),
      say: (line) => log(`coldstart: ${line}`),
    },
    () => source.prepare(environment.env, log),
  );
  const { cells, levers } = prepared;
  const runtimes = runtimeVersions(levers);
  const runs = hyperfineRuns(spec);
  const info = runInfo(spec, runs, environment, version, runtimes.node ?? Object.values(runtimes)[0] ?? 'unknown', session.startedAt);
  const results: Record<string, unknown>[] = [];
  const exports = mkdtempSync(path.join(session.scratch, 'exports-'));
  const caches = new CompileCacheDirs(session.scratch);
  const bench: Bench = { spec, runs, deps, session, environment, caches, exports, info, results, log };
  try {
    await session.each(cells.entries(), ([i, planned]) => benchmarkCell(bench, planned, i, cells.length));
  } finally {
    caches.cleanup();
    rmSync(exports, { recursive: true, force: true });
    session.close();
  }
  return await writeResults(bench);
}

/** hyperfine.json's `coldstart` block, before the cells ran. */
function runInfo(
  spec: RunSpec,
  runs: number,
  environment: ChildEnvironment,
  version: string,
  node: string,
  startedAt: Date,
): HyperfineRunInfo {
  return {
    tool: 'coldstart',
    hyperfine: version,
    node,
    command: spec.command,
    startedAt: startedAt.toISOString(),
    runs,
    warmup: spec.sampling.warmup,
    shell: 'none',
    environment: {
      passed: [...PASSED_ENV, `NODE_ENV=${CHILD_NODE_ENV}`, ...Object.entries(HYPERFINE_EXTRA_ENV).map(([k, v]) => `${k}=${v}`)],
      dropped: environment.dropped,
    },
    failed: [],
  };
}

/** One hyperfine invocation for one cell; a cell that cannot run, or that hyperfine fails, is listed with its reason. */
async function benchmarkCell(bench: Bench, planned: PlannedCell, i: number, count: number): Promise<void> {
  const { spec, runs, session, info, log } = bench;
  const { warmup, timeoutMs } = spec.sampling;
  const label = cellLabel(planned.cell);
  if (!planned.launch) {
    const reason = planned.blocked?.reason ?? 'cannot run';
    info.failed.push({ command: label, reason: `${planned.blocked?.kind === 'unsupported' ? 'unsupported: ' : ''}${reason}` });
    log(`${label}: skipped (${reason})`);
    return;
  }
  const cacheDir = bench.caches.dirFor(planned.cell);
  const launch = launchOf(planned.launch, session.scratch, bench.environment.env, cacheDir);
  log(`hyperfine ${i + 1}/${count}: ${label}`);
  const outcome = await bench.deps.hyperfine.benchmark(
    {
      name: label,
      parameters: cellParameters(planned.cell),
      argv: [launch.command, ...launch.args],
      // a cold cache is emptied before every run; a warm one is filled by the warm-up runs
      ...(planned.cell.compileCache === 'cold' && cacheDir ? { prepare: ['rm', '-rf', cacheDir] } : {}),
      runs,
      warmup: planned.cell.compileCache === 'warm' ? Math.max(1, warmup) : warmup,
      exportFile: path.join(bench.exports, `${i}.json`),
    },
    {
      cwd: launch.cwd,
      env: launch.env,
      timeoutMs: timeoutMs * (runs + warmup + 1) + 10_000,
      output: bench.deps.progress,
    },
  );
  if (session.interrupted) return;
  if (outcome.result) bench.results.push(outcome.result);
  else {
    info.failed.push({ command: label, reason: outcome.error ?? 'unknown' });
    log(`${label}: failed (${outcome.error ?? 'unknown'})`);
  }
}

/** hyperfine.json written, and the report of the run in the same folder rewritten to show both. */
async function writeResults(bench: Bench): Promise<HyperfineRun> {
  const { session, info, results, log } = bench;
  try {
    info.finishedAt = bench.deps.now().toISOString();
    if (session.interrupted) info.interrupted = true;
    // from here a further Ctrl-C (or npm's copy of the first) does not kill what is written
    session.writingReport();
    const file = writeOwnedFile(session.dir, HYPERFINE_FILE, JSON.stringify({ results, coldstart: info }, null, 2) + '\n');
    const merged = existsSync(path.join(session.dir, SAMPLES_FILE));
    if (merged) await writeReport(session.dir, { warn: (line) => log(`warning: ${line}`) });
    return { dir: session.dir, file, measured: results.length, failed: info.failed, merged, interrupted: session.interrupted };
  } finally {
    session.finish();
  }
}
