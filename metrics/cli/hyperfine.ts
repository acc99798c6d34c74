/**
 * `hyperfine` (npm run metrics:hyperfine): the cross-check. Prepares the cells like `run` (levers
 * included), then times each cell's file with hyperfine in exit-after-listen mode (COLDSTART_EXIT=1):
 * exec to exit, no shell, the runner's clean environment, a scratch cwd, the same warm-up and sample
 * counts. One hyperfine invocation per cell, named with the cell label and carrying the cell's
 * dimensions as parameters; their results are written together as DIR/hyperfine.json (hyperfine's
 * own --export-json shape). When DIR holds a run (samples.jsonl) its report is rewritten and shows
 * both figures per cell.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { cellLabel } from '../core/cell.ts';
import { EXIT_INTERRUPTED, UsageError } from '../core/errors.ts';
import { writeFileWhole } from '../core/files.ts';
import { HYPERFINE_FILE, type HyperfineRunInfo } from '../core/hyperfine-file.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { CompileCacheDirs } from '../measure/compile-cache.ts';
import { CHILD_NODE_ENV, PASSED_ENV } from '../measure/environment.ts';
import { benchmark, HYPERFINE_EXTRA_ENV, hyperfineEnvironment, hyperfineVersion, INSTALL_HINT } from '../measure/hyperfine.ts';
import { openSession } from '../measure/session.ts';
import { prepareCells, type CellOptions } from '../plan/cells.ts';
import { launchOf } from '../plan/launch.ts';
import { runtimeVersions } from '../plan/levers.ts';
import { cellParameters } from '../report/hyperfine-json.ts';
import { writeReport } from '../report/write.ts';
import { addLeverOptions, addMeasureOptions, addSelectionOptions, leverListsOf, selectionOf } from './options.ts';
import { commandLine, displayPath } from './shared.ts';

export interface HyperfineOptions extends CellOptions {
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

export async function runHyperfine(options: HyperfineOptions): Promise<HyperfineRun> {
  const stream = options.progressStream ?? process.stderr;
  const log = (line: string) => stream.write(`${line}\n`);
  const environment = hyperfineEnvironment();
  const version = hyperfineVersion(environment.env);
  if (!version) throw new UsageError(INSTALL_HINT);

  const { session, prepared } = await openSession(
    { out: options.out, marker: HYPERFINE_FILE, what: 'a hyperfine run', command: 'hyperfine', say: (line) => log(`coldstart: ${line}`) },
    () => prepareCells(options, environment.env, log),
  );
  const { cells, levers } = prepared;
  const runtimes = runtimeVersions(levers);
  const info: HyperfineRunInfo = {
    tool: 'coldstart',
    hyperfine: version,
    node: runtimes.node ?? Object.values(runtimes)[0] ?? 'unknown',
    command: options.command,
    startedAt: session.startedAt.toISOString(),
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
  const exports = mkdtempSync(path.join(session.scratch, 'exports-'));
  const caches = new CompileCacheDirs(session.scratch);
  try {
    await session.each(cells.entries(), async ([i, planned]) => {
      const label = cellLabel(planned.cell);
      if (!planned.launch) {
        const reason = planned.blocked?.reason ?? 'cannot run';
        info.failed.push({ command: label, reason: `${planned.blocked?.kind === 'unsupported' ? 'unsupported: ' : ''}${reason}` });
        log(`${label}: skipped (${reason})`);
        return;
      }
      const cacheDir = caches.dirFor(planned.cell);
      const launch = launchOf(planned.launch, session.scratch, environment.env, cacheDir);
      log(`hyperfine ${i + 1}/${cells.length}: ${label}`);
      const outcome = await benchmark(
        {
          name: label,
          parameters: cellParameters(planned.cell),
          argv: [launch.command, ...launch.args],
          // a cold cache is emptied before every run; a warm one is filled by the warm-up runs
          ...(planned.cell.compileCache === 'cold' && cacheDir ? { prepare: ['rm', '-rf', cacheDir] } : {}),
          runs: options.samples,
          warmup: planned.cell.compileCache === 'warm' ? Math.max(1, options.warmup) : options.warmup,
          exportFile: path.join(exports, `${i}.json`),
        },
        {
          cwd: launch.cwd,
          env: launch.env,
          timeoutMs: options.timeoutMs * (options.samples + options.warmup + 1) + 10_000,
          output: stream,
        },
      );
      if (session.interrupted) return;
      if (outcome.result) results.push(outcome.result);
      else {
        info.failed.push({ command: label, reason: outcome.error ?? 'unknown' });
        log(`${label}: failed (${outcome.error ?? 'unknown'})`);
      }
    });
  } finally {
    caches.cleanup();
    rmSync(exports, { recursive: true, force: true });
    session.close();
  }
  try {
    info.finishedAt = new Date().toISOString();
    if (session.interrupted) info.interrupted = true;
    const file = path.join(session.dir, HYPERFINE_FILE);
    // from here a further Ctrl-C (or npm's copy of the first) does not kill what is written
    session.writingReport();
    writeFileWhole(file, JSON.stringify({ results, coldstart: info }, null, 2) + '\n');
    const merged = existsSync(path.join(session.dir, SAMPLES_FILE));
    if (merged) await writeReport(session.dir, { warn: (line) => log(`warning: ${line}`) });
    return { dir: session.dir, file, measured: results.length, failed: info.failed, merged, interrupted: session.interrupted };
  } finally {
    session.finish();
  }
}

export function registerHyperfineCommand(program: Command): void {
  const command = program
    .command('hyperfine')
    .description(
      "cross-check: time every generated file with hyperfine (exec to exit) into DIR/hyperfine.json; a run folder's report then shows both",
    );
  addSelectionOptions(command);
  addMeasureOptions(command, { samples: 'hyperfine --runs per cell', timeout: 'limit per run; a cell gets it × (warm-up + samples)' });
  addLeverOptions(command);
  command
    .option(
      '-o, --out <dir>',
      'a run folder to add hyperfine.json to (its report then merges both), or a new folder (default results/<timestamp>/)',
    )
    .action(async (opts: Record<string, unknown>) => {
      const result = await runHyperfine({
        ...selectionOf(opts),
        samples: opts.samples as number,
        warmup: opts.warmup as number,
        timeoutMs: (opts.timeout as number) * 1000,
        node: opts.node as string,
        levers: leverListsOf(opts),
        out: opts.out as string | undefined,
        command: commandLine(process.argv, 'metrics:hyperfine'),
      });
      const failed = result.failed.length ? `; ${result.failed.length} cells failed` : '';
      const where = displayPath(result.file);
      const next = result.merged
        ? `; report merged (${displayPath(path.join(result.dir, 'summary.md'))})`
        : ` (no ${SAMPLES_FILE} there: \`npm run metrics -- --out ${displayPath(result.dir)}\` ` +
          "with the same selection adds the runner's figures)";
      process.stdout.write(
        `${result.interrupted ? 'interrupted; partial hyperfine results in' : 'hyperfine results in'} ${where}${next}${failed}\n`,
      );
      if (result.interrupted) process.exitCode = EXIT_INTERRUPTED;
      else if (result.measured === 0) process.exitCode = 1;
    });
}
