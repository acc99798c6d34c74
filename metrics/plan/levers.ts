/**
 * The serverless levers as dimensions of a run: which runtime runs the file (`--runtime`), whether
 * it is bundled first (`--build`), and Node's module compile cache (`--compile-cache`). Every cell
 * of the selection is multiplied by every lever value; this module resolves the runtimes, builds
 * the bundles, decides which cells cannot run (a bundle that fails, a cache the runtime lacks) and
 * gives each planned run its launch (binary, file, NODE_COMPILE_CACHE).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { bundleFile, bundlePath, type BundleOutcome } from './bundle.ts';
import { cellFile, cellFilePath, cellKey, makeCell, type Cell } from '../core/cell.ts';
import { UsageError } from '../core/errors.ts';
import { parseList } from './selection.ts';
import type { PlannedRun } from './order.ts';
import type { Launch } from '../measure/sample.ts';
import { resolveRuntimes, RUNTIME_NAMES, type ResolvedRuntime } from './runtimes.ts';
import type { SampleRecord } from '../core/samples.ts';

export const BUILDS = ['plain', 'bundle'] as const;
export const COMPILE_CACHES = ['off', 'cold', 'warm'] as const;
export const COMPILE_CACHE_ENV = 'NODE_COMPILE_CACHE';

/** The lever lists of a run, each in the order given (the first is what the others are compared to). */
export interface LeverLists {
  runtimes: string[];
  builds: string[];
  compileCaches: string[];
}

export const DEFAULT_LEVERS: LeverLists = { runtimes: ['node'], builds: ['plain'], compileCaches: ['off'] };

/** A comma list of choices, deduplicated in the order given; anything else is a one-line UsageError. */
export function parseLeverList(option: string, choices: readonly string[]): (text: string) => string[] {
  return (text: string) => {
    const items = [...new Set(parseList(text))];
    if (items.length === 0) throw new UsageError(`${option} needs at least one of ${choices.join(', ')}`);
    for (const item of items) {
      if (!choices.includes(item)) throw new UsageError(`${option}: "${item}" is not one of ${choices.join(', ')}`);
    }
    return items;
  };
}

export const parseRuntimes = parseLeverList('--runtime', RUNTIME_NAMES);
export const parseBuilds = parseLeverList('--build', BUILDS);
export const parseCompileCaches = parseLeverList('--compile-cache', COMPILE_CACHES);

export function runtimeOption(): Option {
  return new Option('--runtime <list>', `comma list of runtimes: ${RUNTIME_NAMES.join(', ')} (node = the node running coldstart, or --node; the others are installed on demand into .runtimes/)`)
    .default(DEFAULT_LEVERS.runtimes, DEFAULT_LEVERS.runtimes.join(','))
    .argParser(parseRuntimes);
}

export function buildOption(): Option {
  return new Option('--build <list>', `comma list of builds: ${BUILDS.join(', ')} (bundle = the file and all it requires in one file, by esbuild)`)
    .default(DEFAULT_LEVERS.builds, DEFAULT_LEVERS.builds.join(','))
    .argParser(parseBuilds);
}

export function compileCacheOption(): Option {
  return new Option('--compile-cache <list>', `comma list of ${COMPILE_CACHES.join(', ')}: Node's module compile cache (NODE_COMPILE_CACHE, Node >= 22.1); cold = a fresh empty cache per sample, warm = one filled by an unrecorded run first`)
    .default(DEFAULT_LEVERS.compileCaches, DEFAULT_LEVERS.compileCaches.join(','))
    .argParser(parseCompileCaches);
}

/** `--runtime`, `--build`, `--compile-cache` on a command; read them back with leverListsOf. */
export function addLeverOptions(command: Command): Command {
  return command.addOption(runtimeOption()).addOption(buildOption()).addOption(compileCacheOption());
}

export function leverListsOf(opts: Record<string, unknown>): LeverLists {
  return {
    runtimes: (opts.runtime as string[] | undefined) ?? DEFAULT_LEVERS.runtimes,
    builds: (opts.build as string[] | undefined) ?? DEFAULT_LEVERS.builds,
    compileCaches: (opts.compileCache as string[] | undefined) ?? DEFAULT_LEVERS.compileCaches,
  };
}

/** Every base cell × runtime × build × compile cache, in that order. */
export function expandCells(base: Cell[], levers: LeverLists): Cell[] {
  const cells: Cell[] = [];
  for (const cell of base) {
    for (const runtime of levers.runtimes) {
      for (const build of levers.builds) {
        for (const compileCache of levers.compileCaches) cells.push(makeCell({ ...cell, runtime, build, compileCache }));
      }
    }
  }
  return cells;
}

/** A cell that will not spawn anything: it failed before running, or cannot be measured here. */
export type BlockedCell = { kind: 'failed'; reason: string } | { kind: 'unsupported'; reason: string };

export interface PreparedLevers {
  lists: LeverLists;
  cells: Cell[];
  runtimes: Map<string, ResolvedRuntime>;
  /** cellKey → the file the cell runs (the generated file, or its bundle) */
  files: Map<string, string>;
  /** cellKey → why the cell does not run */
  blocked: Map<string, BlockedCell>;
}

/**
 * Resolve (and install) the runtimes, multiply the cells, bundle what is bundled. A runtime that
 * cannot be installed or run throws a UsageError; a bundle that fails blocks only its cells.
 */
export async function prepareLevers(
  base: Cell[],
  lists: LeverLists,
  options: { node: string; env: NodeJS.ProcessEnv; log: (line: string) => void },
): Promise<PreparedLevers> {
  const runtimes = resolveRuntimes(lists.runtimes, options.node, options.env, options.log);
  const cells = expandCells(base, lists);
  const files = new Map<string, string>();
  const blocked = new Map<string, BlockedCell>();

  for (const runtime of runtimes.values()) {
    if (runtime.compileCacheUnsupported && lists.compileCaches.some((c) => c !== 'off')) {
      options.log(`${runtime.name} (${runtime.version}): compile cache unsupported (${runtime.compileCacheUnsupported}); those cells say "unsupported"`);
    }
  }

  const bundles = new Map<string, { label: string; outcome: Promise<BundleOutcome> }>();
  if (cells.some((c) => c.build === 'bundle')) options.log('bundling with esbuild (cached in generated/bundle/)…');
  for (const cell of cells) {
    const key = cellKey(cell);
    const runtime = runtimes.get(cell.runtime)!;
    if (cell.compileCache !== 'off' && runtime.compileCacheUnsupported) {
      blocked.set(key, { kind: 'unsupported', reason: runtime.compileCacheUnsupported });
      continue;
    }
    if (cell.build === 'plain') {
      files.set(key, cellFilePath(cell));
      continue;
    }
    // cells that differ only in compile cache (or in runtimes of one node line) share one bundle
    const output = bundlePath(cellFile(cell), runtime.bundleTarget);
    let entry = bundles.get(output);
    if (!entry) {
      entry = { label: `${cellFile(cell)} (target ${runtime.bundleTarget})`, outcome: bundleFile(cellFilePath(cell), output, runtime.bundleTarget) };
      bundles.set(output, entry);
    }
    const result = await entry.outcome;
    if (result.ok) files.set(key, result.file);
    else blocked.set(key, { kind: 'failed', reason: result.error });
  }
  for (const { label, outcome } of bundles.values()) {
    const result = await outcome;
    if (!result.ok) options.log(`${label}: ${result.error}`);
  }
  return { lists, cells, runtimes, files, blocked };
}

/** Exact version per runtime, for meta.json. */
export function runtimeVersions(prepared: PreparedLevers): Record<string, string> {
  return Object.fromEntries([...prepared.runtimes].map(([name, r]) => [name, r.version]));
}

/** Where each runtime came from, for meta.json. */
export function runtimeSources(prepared: PreparedLevers): Record<string, string> {
  return Object.fromEntries([...prepared.runtimes].map(([name, r]) => [name, r.source]));
}

/** How a lever cell starts: its runtime on its file, with NODE_COMPILE_CACHE only when given a cache dir. */
export function leverLaunch(prepared: PreparedLevers, cell: Cell, cwd: string, env: NodeJS.ProcessEnv, cacheDir?: string): Launch {
  const key = cellKey(cell);
  const file = prepared.files.get(key);
  if (!file) throw new Error(`no file for ${key}`);
  const childEnv: NodeJS.ProcessEnv = { ...env };
  delete childEnv[COMPILE_CACHE_ENV];
  if (cell.compileCache !== 'off') {
    if (!cacheDir) throw new Error(`a ${cell.compileCache} compile cache cell needs a cache directory`);
    childEnv[COMPILE_CACHE_ENV] = cacheDir;
  }
  return { command: prepared.runtimes.get(cell.runtime)!.command, args: [file], cwd, env: childEnv };
}

/** The record a blocked cell gets for a planned run: nothing was spawned. */
export function blockedRecord(run: PlannedRun, blocked: BlockedCell): SampleRecord {
  const record: SampleRecord = { cell: run.cell, phase: run.phase, index: run.index, ok: false, durationMs: 0, at: new Date().toISOString() };
  if (blocked.kind === 'unsupported') record.unsupported = blocked.reason;
  else record.error = blocked.reason;
  return record;
}

/** Runs one sample with the launch it is given; `checkInvalidBody` false for unrecorded runs. */
export type Measure = (launch: Launch, checkInvalidBody: boolean) => Promise<SampleRecord>;

/**
 * The compile-cache directories of one run, under its scratch folder: `cold` gets a fresh empty
 * one per run (removed after it), `warm` one per cell, filled by an unrecorded run before the
 * cell's first planned run. Everything goes with cleanup() (and with the scratch folder).
 */
export class LeverSession {
  private readonly root: string;
  private readonly warmDirs = new Map<string, string>();
  /** the unrecorded runs that filled warm caches: cellKey → what happened */
  readonly fills = new Map<string, SampleRecord>();

  constructor(
    private readonly prepared: PreparedLevers,
    private readonly scratch: string,
    private readonly env: NodeJS.ProcessEnv,
    /** true once the run is interrupted: no sample starts after a warm cache's fill */
    private readonly stopped: () => boolean = () => false,
  ) {
    this.root = path.join(scratch, 'compile-cache');
  }

  launch(cell: Cell, cacheDir?: string): Launch {
    return leverLaunch(this.prepared, cell, this.scratch, this.env, cacheDir);
  }

  /** One planned run: a blocked cell's record, or a real sample with the right cache directory. */
  async sample(run: PlannedRun, measure: Measure): Promise<SampleRecord> {
    const key = cellKey(run.cell);
    const blocked = this.prepared.blocked.get(key);
    if (blocked) return blockedRecord(run, blocked);
    switch (run.cell.compileCache) {
      case 'cold': {
        mkdirSync(this.root, { recursive: true });
        const dir = mkdtempSync(path.join(this.root, 'cold-'));
        try {
          return await measure(this.launch(run.cell, dir), run.checkInvalidBody);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      case 'warm': {
        let dir = this.warmDirs.get(key);
        if (!dir) {
          mkdirSync(this.root, { recursive: true });
          dir = mkdtempSync(path.join(this.root, 'warm-'));
          this.warmDirs.set(key, dir);
          const fill = await measure(this.launch(run.cell, dir), false);
          this.fills.set(key, fill);
          if (this.stopped()) return fill;
        }
        return measure(this.launch(run.cell, dir), run.checkInvalidBody);
      }
      default:
        return measure(this.launch(run.cell), run.checkInvalidBody);
    }
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
    this.warmDirs.clear();
  }
}
