/**
 * The serverless levers as dimensions of a run: which runtime runs the file (`--runtime`), whether
 * it is bundled first (`--build`), and Node's module compile cache (`--compile-cache`). Every cell
 * of the selection is multiplied by every lever value; this module resolves the runtimes, builds
 * the bundles and decides which cells cannot run (a bundle that fails, a cache the runtime lacks).
 */
import { bundleFile, bundlePath, type BundleOutcome } from './bundle.ts';
import { cellFile, cellFilePath, cellKey, makeCell, type AnyCell, type Cell } from '../core/cell.ts';
import { cliList, DIMENSION_TABLE, type DimensionTable } from '../core/dimensions.ts';
import path from 'node:path';
import type { ResolvedRuntime } from './runtimes.ts';
import { versionDir, versionGeneratedDir, versionOf } from './versions.ts';
import { leversOfTarget, type LeverSpec } from '../core/run-spec.ts';

export type { CompileCache } from '../core/dimensions.ts';
export { BUILDS, COMPILE_CACHES } from '../core/dimensions.ts';

/**
 * Every base cell × each list of a row with `expand: 'levers'`, in the table's order (runtime × build ×
 * compile cache × bootstrap × file cache): a new lever dimension is multiplied here by its row alone.
 */
export function expandCells(base: Cell[], levers: LeverSpec): Cell[] {
  return expandCellsOf(base, levers, DIMENSION_TABLE).map((cell) => makeCell(cell as Cell));
}

/**
 * The lists a cell of `target` is multiplied by, per row with `expand: 'levers'`: those a target resolves
 * differently (core/run-spec.ts leversOfTarget), else the spec's cell list the row's `metaList` names, else its `cli`.
 */
export function leverListsOf(levers: LeverSpec, target: string, table: DimensionTable): [string, readonly (string | number)[]][] {
  const resolved = leversOfTarget(levers, target);
  const byTarget: Record<string, readonly (string | number)[]> = {
    runtime: resolved.runtimes,
    build: resolved.builds,
    compileCache: resolved.compileCaches,
    bootstrap: resolved.bootstraps,
    fileCache: resolved.fileCaches,
  };
  const listed = (row: DimensionTable[string]) => {
    const list = row.metaList === undefined ? undefined : (levers as unknown as Record<string, unknown>)[row.metaList];
    return Array.isArray(list) ? (list as (string | number)[]) : undefined;
  };
  return Object.entries(table)
    .filter(([, row]) => row.expand === 'levers')
    .map(([d, row]) => [d, byTarget[d] ?? listed(row) ?? cliList(row, 'server') ?? []]);
}

/** `expandCells` over any table (a test's, with a row of its own): the cells as plain records, not yet made. */
export function expandCellsOf(base: readonly AnyCell[], levers: LeverSpec, table: DimensionTable): AnyCell[] {
  return base.flatMap((cell) =>
    leverListsOf(levers, String(cell.target), table).reduce<AnyCell[]>(
      (cells, [d, list]) => cells.flatMap((c) => list.map((value) => ({ ...c, [d]: value }))),
      [cell],
    ),
  );
}

/** Every runtime the cells of these targets run on: `--runtime` for servers, the Lambda lines for Lambda cells. */
export function runtimesOfTargets(levers: LeverSpec, targets: readonly string[]): string[] {
  return [...new Set(targets.flatMap((t) => leversOfTarget(levers, t).runtimes))];
}

/**
 * The file a generated cell runs as written (before any build): under generated/, or, at another
 * version of a package (`--versions`), under that version's folder; and its path as a bundle's name
 * (`versions/<package>@<version>/…` for the latter, so two versions never share a bundle).
 */
export function sourceFileOf(cell: Cell): { file: string; relative: string } {
  const version = versionOf(cell);
  if (!version) return { file: cellFilePath(cell), relative: cellFile(cell) };
  return {
    file: path.join(versionGeneratedDir(version), cellFile(cell)),
    relative: path.posix.join('versions', path.basename(versionDir(version)), cellFile(cell)),
  };
}

/** A cell that will not spawn anything: it failed before running, or cannot be measured here. */
export type BlockedCell = { kind: 'failed'; reason: string } | { kind: 'unsupported'; reason: string };

export interface PreparedLevers {
  cells: Cell[];
  runtimes: Map<string, ResolvedRuntime>;
  /** cellKey → the file the cell runs (the generated file, or its bundle) */
  files: Map<string, string>;
  /** cellKey → why the cell does not run */
  blocked: Map<string, BlockedCell>;
}

/**
 * Why a generated cell has no snapshot build: its framework loads node:http at its top level, which
 * no Node line can put into a snapshot yet (Node 20: the builder fails inside node:http; Node 22 and
 * 24: its parser binding is a handle V8 cannot serialize); plan/snapshot.ts builds one for `measure`'s
 * server entries, where it is tried and the reason reported.
 */
const SNAPSHOT_GENERATED =
  'a startup snapshot is built for measure --entry only: every generated server loads node:http at its top level, ' +
  'which no Node line can snapshot yet';

/** What builds a bundle (bundleFile; the fake source's only names the file). */
export type Bundler = typeof bundleFile;

/**
 * Multiply the cells by the levers and bundle what is bundled, with the runtimes already resolved
 * (plan/runtimes.ts). A bundle that fails blocks only its cells.
 */
export async function prepareLevers(
  base: Cell[],
  lists: LeverSpec,
  options: { runtimes: Map<string, ResolvedRuntime>; log: (line: string) => void; bundle?: Bundler },
): Promise<PreparedLevers> {
  const { runtimes } = options;
  const bundle = options.bundle ?? bundleFile;
  const cells = expandCells(base, lists);
  const files = new Map<string, string>();
  const blocked = new Map<string, BlockedCell>();

  for (const runtime of runtimes.values()) {
    if (runtime.compileCacheUnsupported && lists.compileCaches.some((c) => c !== 'off')) {
      options.log(
        `${runtime.name} (${runtime.version}): compile cache unsupported (${runtime.compileCacheUnsupported}); ` +
          'those cells say "unsupported"',
      );
    }
  }

  const bundles = new Map<string, { label: string; outcome: Promise<BundleOutcome> }>();
  if (cells.some((c) => c.build !== 'plain')) options.log('bundling with esbuild (cached in generated/bundle/)…');
  for (const cell of cells) {
    const key = cellKey(cell);
    const runtime = runtimes.get(cell.runtime)!;
    if (cell.compileCache !== 'off' && runtime.compileCacheUnsupported) {
      blocked.set(key, { kind: 'unsupported', reason: runtime.compileCacheUnsupported });
      continue;
    }
    const source = sourceFileOf(cell);
    if (cell.build === 'plain') {
      files.set(key, source.file);
      continue;
    }
    if (cell.build === 'snapshot') {
      blocked.set(key, { kind: 'unsupported', reason: SNAPSHOT_GENERATED });
      continue;
    }
    // cells that differ only in compile cache (or in runtimes of one node line) share one bundle
    const output = bundlePath(source.relative, runtime.bundleTarget, cell.build);
    let entry = bundles.get(output);
    if (!entry) {
      entry = {
        label: `${source.relative} (${cell.build}, target ${runtime.bundleTarget})`,
        outcome: bundle(source.file, output, runtime.bundleTarget, cell.build),
      };
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
  return { cells, runtimes, files, blocked };
}

/** Exact version per runtime, for meta.json. */
export function runtimeVersions(prepared: Pick<PreparedLevers, 'runtimes'>): Record<string, string> {
  return Object.fromEntries([...prepared.runtimes].map(([name, r]) => [name, r.version]));
}

/** Where each runtime came from, for meta.json. */
export function runtimeSources(prepared: Pick<PreparedLevers, 'runtimes'>): Record<string, string> {
  return Object.fromEntries([...prepared.runtimes].map(([name, r]) => [name, r.source]));
}
