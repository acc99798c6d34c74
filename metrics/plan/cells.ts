/**
 * From what the user asked for to the cells of a run, each with its resolved launch: select the
 * frameworks, generate every file, multiply by the levers (runtimes installed on demand, bundles
 * built), and decide which cells cannot run. `run`, `hyperfine` and `generate` all start here.
 */
import path from 'node:path';
import { contractOf } from '../../generators/contract.ts';
import { referenceGenerator } from '../../generators/lambda-reference.ts';
import { REFERENCE_FRAMEWORK } from '../core/lambda-platform.ts';
import { installedVersion, loadGenerators } from '../../generators/registry.ts';
import type { Contract, FrameworkGenerator } from '../../generators/types.ts';
import { GENERATED_DIR, generatedRelativePath, unsupportedReason, writeGenerated } from '../../generators/write.ts';
import { checkGeneratedBounds, estimateBytes, ESTIMATE_AT, type PlannedFile } from './bounds.ts';
import { MAX_GENERATED_FILES } from '../core/run-bounds.ts';
import type { AppSpec } from '../core/app.ts';
import { cellKey, makeCell, type Cell, type CellFields } from '../core/cell.ts';
import { cellsOf, stageDimensions } from '../core/cell-space.ts';
import type { CellLaunch } from './launch.ts';
import { prepareLevers, runtimesOfTargets, type BlockedCell, type Bundler, type PreparedLevers } from './levers.ts';
import { isRicBootstrap, managedRuntimeStart, type ManagedStart } from './lambda-bootstrap.ts';
import { ensureRicAsync, type ResolvedRic } from './ric.ts';
import { resolveRuntimes, type ResolvedRuntime } from './runtimes.ts';
import { selectFrameworks } from './selection.ts';
import { ensureVersion, versionGeneratedDir, versionOf, versionsFor, type InstalledVersion, type VersionOutcome } from './versions.ts';
import { generatedTarget, splitPackageVersion, type Target, type Variant } from '../core/dimensions.ts';
import { isLambdaRuntimeLine, lambdaMemorySize } from '../core/lambda-platform.ts';
import { countBlocks, ricBlock } from '../core/cell-exclusions.ts';
import type { CellSpec, GeneratedSource } from '../core/run-spec.ts';
import { targetKind } from '../core/kinds.ts';

/** Why a `ric` cell cannot run (core/cell-exclusions.ts): the client starts only on a Lambda runtime line. */
export function ricUnsupported(cell: Cell): BlockedCell | undefined {
  const reason = ricBlock(cell);
  return reason === undefined ? undefined : { kind: 'unsupported', reason };
}

/** A `ric` cell's start: the bootstrap of its runtime line at its memory size, `taskRoot` the folder the client loads the handler from. */
export function ricStart(cell: Cell, ricDir: string, taskRoot: string): ManagedStart | undefined {
  if (!isLambdaRuntimeLine(cell.runtime) || !isRicBootstrap(cell.bootstrap)) return undefined;
  return managedRuntimeStart({
    bootstrap: cell.bootstrap,
    line: cell.runtime,
    memoryMB: lambdaMemorySize(cell.memory),
    ricDir,
    taskRoot,
  });
}

/** Whether one of `cells` starts with the Runtime Interface Client. */
export function needsRic(cells: readonly Cell[]): boolean {
  return cells.some((c) => isRicBootstrap(c.bootstrap) && !ricUnsupported(c));
}

/** The Runtime Interface Client, built on first use, only when one of `cells` starts with it. */
export async function ricFor(
  cells: readonly Cell[],
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<ResolvedRic | undefined> {
  return needsRic(cells) ? ensureRicAsync(env, log) : undefined;
}

/** The generated files of a selection (`run`, `hyperfine`, `generate`, `lambda:package`): a generated source's lists. */
export type Selection = Omit<GeneratedSource, 'kind'>;

/**
 * Why a counted cell cannot be counted (every reason, each with what to change), or undefined when it
 * can: core/cell-exclusions.ts countBlocks, at the runtime's resolved kind.
 */
export function uncountable(cell: Cell, runtimeKind: string): string | undefined {
  const reasons = countBlocks(cell, runtimeKind);
  return reasons.length ? reasons.join('; ') : undefined;
}

/** A cell ready to be measured: how it starts, what it must answer, whether it can run at all. */
export interface PlannedCell {
  cell: Cell;
  /** undefined when the cell is blocked */
  launch: CellLaunch | undefined;
  blocked: BlockedCell | undefined;
  contract: Contract;
  /** its server must reject an invalid body with 4xx */
  validates: boolean;
  /** the user's own app (`measure`): how it is asked and what it must answer (absent for generated files) */
  app?: AppSpec;
}

export interface PreparedCells {
  selected: FrameworkGenerator[];
  /** frameworks left out of `all`: name → reason */
  skipped: Map<string, string>;
  /** every selected framework × variant × route count × lever values */
  cells: PlannedCell[];
  levers: PreparedLevers;
  /** the Runtime Interface Client, when a cell starts with it */
  ric?: ResolvedRic;
  /** `--versions`: each package at a version the cells run, as installed */
  versions?: Map<string, InstalledVersion>;
}

export interface GeneratedCells {
  /** the frameworks selected, each once (by its server generator when the run has one) */
  selected: FrameworkGenerator[];
  /** frameworks (and framework targets) left out of `all`: name → reason */
  skipped: Map<string, string>;
  /** framework × variant × N × target, each file written */
  cells: Cell[];
  /** target → framework → its generator */
  generators: Map<Target, Map<string, FrameworkGenerator>>;
  /** cellKey → why it has no file (a framework without an adapter for that target) */
  unsupported: Map<string, string>;
}

/** Select and generate only: the base cells (framework × variant × N × target), each file written. */
export async function generateCells(
  options: Selection & Pick<CellSpec, 'targets' | 'lambdaReference' | 'inits'>,
  log: (line: string) => void,
  write = true,
): Promise<GeneratedCells> {
  const { targets } = options;
  const skipped = new Map<string, string>();
  const generators = new Map<Target, Map<string, FrameworkGenerator>>();
  const selected = new Map<string, FrameworkGenerator>();
  for (const target of targets) {
    const selection = selectFrameworks(options.frameworks, await loadGenerators(target));
    const label = (name: string) => (targets.length > 1 || !targetKind(target).plain ? `${name} (${target})` : name);
    for (const [name, reason] of selection.skipped) {
      skipped.set(label(name), reason);
      log(`${label(name)}: skipped (${reason})`);
    }
    generators.set(target, new Map(selection.selected.map((g) => [g.name, g])));
    for (const g of selection.selected) if (!selected.has(g.name)) selected.set(g.name, g);
  }
  const cells: Cell[] = [];
  const unsupported = new Map<string, string>();
  // framework × variant × shape × schema × routes × target × init mode (a generated Lambda file in each: eager is its
  // adapter's documented practice, where it has one), as the table's file stage says; a framework without a
  // generator for a target has no cell of it
  for (const fields of cellsOf([{}], stageDimensions('file'), { ...options, frameworks: [...selected.keys()] })) {
    const cell = makeCell(fields as CellFields);
    const generator = generators.get(generatedTarget(cell.target))!.get(cell.framework);
    if (!generator) continue;
    cells.push(cell);
    const why = unsupportedReason(generator, { shape: cell.shape, schema: cell.schema, init: cell.init });
    if (why) unsupported.set(cellKey(cell), why);
  }
  // the hello-world reference: one more Lambda cell, multiplied by the levers like the others
  const lambdaGenerators = generators.get('lambda');
  if (options.lambdaReference && lambdaGenerators && cells.some((c) => targetKind(c.target).handler)) {
    if (lambdaGenerators.has(REFERENCE_FRAMEWORK)) throw new Error(`a Lambda generator takes the reference's name ${REFERENCE_FRAMEWORK}`);
    lambdaGenerators.set(REFERENCE_FRAMEWORK, referenceGenerator);
    // the run's first variant, so that the variant does not seem to vary (the reference validates nothing either way)
    cells.push(makeCell({ framework: REFERENCE_FRAMEWORK, variant: options.variants[0]!, routes: 1, target: 'lambda' }));
  }
  if (write) {
    // the bounds first: the count, the bytes and the disk, before the first file is written
    checkGeneratedBounds(await plannedFiles(cells, unsupported, generators), GENERATED_DIR);
    log(`generating ${cells.length - unsupported.size} files…`);
  }
  for (const cell of write ? cells : []) {
    if (unsupported.has(cellKey(cell))) continue;
    const shaped = { shape: cell.shape, schema: cell.schema, init: cell.init };
    await writeGenerated(generators.get(generatedTarget(cell.target))!.get(cell.framework)!, cell.routes, cell.variant, undefined, shaped);
  }
  return { selected: [...selected.values()], skipped, cells, generators, unsupported };
}

/**
 * The files `cells` will be generated as, each with its estimated bytes (plan/bounds.ts): the count
 * first, so that a selection far over the bound is refused before any file is generated in memory;
 * then each generator's files at ESTIMATE_AT, once per generator, variant, shape and schema.
 */
async function plannedFiles(
  cells: readonly Cell[],
  unsupported: ReadonlyMap<string, string>,
  generators: ReadonlyMap<Target, ReadonlyMap<string, FrameworkGenerator>>,
): Promise<PlannedFile[]> {
  const written = cells.filter((cell) => !unsupported.has(cellKey(cell)));
  if (written.length > MAX_GENERATED_FILES) return written.map((cell) => ({ file: cellKey(cell), bytes: 0 }));
  const sizes = new Map<string, [number, number, number]>();
  const files: PlannedFile[] = [];
  for (const cell of written) {
    const generator = generators.get(generatedTarget(cell.target))!.get(cell.framework)!;
    const shaped = { shape: cell.shape, schema: cell.schema };
    const key = `${generator.target}|${generator.name}|${cell.variant}|${cell.shape}|${cell.schema}`;
    let size = sizes.get(key);
    if (!size) {
      const at = async (routes: number) =>
        Buffer.byteLength(await generator.generate({ routes, variant: cell.variant, ...shaped }), 'utf8');
      size = [await at(ESTIMATE_AT[0]), await at(ESTIMATE_AT[1]), await at(ESTIMATE_AT[2])];
      sizes.set(key, size);
    }
    const file = path.join(GENERATED_DIR, generatedRelativePath(generator.name, cell.variant, cell.routes, generator.target, shaped));
    files.push({ file, bytes: estimateBytes(size, cell.routes) });
  }
  return files;
}

/**
 * What preparing cells does outside the process: runtimes run (`--version`) or installed, files
 * written, bundles built, the Runtime Interface Client built. The fake source (fake-source.ts) plans
 * the same cells with none of it.
 */
export interface PrepareEffects {
  runtimes: typeof resolveRuntimes;
  /** write every generated file */
  write: boolean;
  bundle?: Bundler;
  ric: typeof ricFor;
  /** install a package at a version (`--versions`), or say why it does not install */
  version: (value: string, log: (line: string) => void) => VersionOutcome;
}

const REAL_EFFECTS: PrepareEffects = { runtimes: resolveRuntimes, write: true, ric: ricFor, version: ensureVersion };

/**
 * The cells at `--versions`: a base cell whose file requires a package given there becomes one cell
 * per version of it (its file written into that version's folder); a version that does not install
 * is skipped (its cells dropped, the reason in `skipped`), not measured at the installed version.
 */
export async function expandVersions(
  generated: Pick<GeneratedCells, 'cells' | 'generators' | 'unsupported'>,
  versions: readonly string[],
  effects: Pick<PrepareEffects, 'version' | 'write'>,
  log: (line: string) => void,
): Promise<{ cells: Cell[]; skipped: Map<string, string>; installed: Map<string, InstalledVersion> }> {
  const skipped = new Map<string, string>();
  const installed = new Map<string, InstalledVersion>();
  if (!versions.length) return { cells: generated.cells, skipped, installed };
  const used = new Set<string>();
  const cells: Cell[] = [];
  for (const cell of generated.cells) {
    const generator = generated.generators.get(generatedTarget(cell.target))!.get(cell.framework)!;
    const wanted = versionsFor(generator.packages, versions);
    for (const value of wanted) {
      used.add(value);
      if (skipped.has(value) || installed.has(value)) continue;
      const outcome = effects.version(value, log);
      if (outcome.ok) installed.set(value, outcome.installed);
      else {
        skipped.set(value, `does not install: ${outcome.reason}`);
        log(`${value}: skipped (does not install: ${outcome.reason})`);
      }
    }
    const at = wanted.filter((value) => installed.has(value));
    // every version it requires failed to install: the cell is dropped, not measured at the installed version
    if (wanted.length && !at.length) continue;
    // the table's version stage over the versions of its packages (none: the installed one)
    for (const fields of cellsOf([cell], stageDimensions('version'), { versions: at })) {
      const versioned = makeCell(fields as CellFields);
      cells.push(versioned);
      if (versioned.version === cell.version || !effects.write || generated.unsupported.has(cellKey(cell))) continue;
      const shaped = { shape: cell.shape, schema: cell.schema };
      await writeGenerated(generator, cell.routes, cell.variant, versionGeneratedDir(versioned.version), shaped);
    }
  }
  for (const value of versions) {
    if (!used.has(value)) {
      skipped.set(value, 'no selected cell requires this package');
      log(`${value}: skipped (no selected cell requires this package)`);
    }
  }
  return { cells, skipped, installed };
}

/**
 * Every cell of a run with its launch resolved. `env` is the children's clean environment (the
 * runtimes' `--version` runs with it). A runtime that cannot be installed is a UsageError.
 */
export async function prepareCells(
  selection: Selection,
  spec: CellSpec,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  effects: PrepareEffects = REAL_EFFECTS,
): Promise<PreparedCells> {
  // the runtimes first: a --node that does not run is an error before anything is generated
  const runtimes = effects.runtimes(runtimesOfTargets(spec, spec.targets), spec.node, env, log);
  const generated = await generateCells(
    { ...selection, targets: spec.targets, lambdaReference: spec.lambdaReference, inits: spec.inits },
    log,
    effects.write,
  );
  const { selected, skipped } = generated;
  const versioned = await expandVersions(generated, spec.versions, effects, log);
  for (const [value, reason] of versioned.skipped) skipped.set(value, reason);
  // each file at every memory size and measure (the table's run stage)
  const base = cellsOf(versioned.cells, stageDimensions('run'), spec).map((fields) => makeCell(fields as CellFields));
  const levers = await prepareLevers(base, spec, { runtimes, log, ...(effects.bundle ? { bundle: effects.bundle } : {}) });
  const ric = await effects.ric(levers.cells, env, log);
  const cells = levers.cells.map((cell): PlannedCell => {
    const generator = generated.generators.get(generatedTarget(cell.target))!.get(cell.framework)!;
    // the generated cell's key: its shape, schema and init mode decide what the framework can be written in
    const file = Object.fromEntries(stageDimensions('file').map((d) => [d, cell[d as keyof Cell]]));
    const generatedKey = cellKey(makeCell(file as CellFields));
    return planGeneratedCell(cell, levers, generator, ric, generated.unsupported.get(generatedKey));
  });
  return {
    selected,
    skipped,
    cells,
    levers,
    ...(ric ? { ric } : {}),
    ...(versioned.installed.size ? { versions: versioned.installed } : {}),
  };
}

/** The major of a version (`v24.21.0`, `11.1.0`), or undefined when it has none. */
function majorOf(version: string | undefined): number | undefined {
  const match = version === undefined ? null : /^v?(\d+)\./.exec(version);
  return match ? Number(match[1]) : undefined;
}

/**
 * Why a cell's framework cannot load on its Node line (FrameworkGenerator.nodeLimit: restify on Node
 * 24), or undefined: its runtime's major from what it reported, the package's from the cell's
 * `--versions` value or the installed package.
 */
export function nodeLimitReason(
  generator: FrameworkGenerator,
  cell: Cell,
  runtime: Pick<ResolvedRuntime, 'kind' | 'version'>,
): string | undefined {
  const limit = generator.nodeLimit;
  if (!limit || runtime.kind !== 'node') return undefined;
  const nodeMajor = majorOf(runtime.version);
  if (nodeMajor === undefined || nodeMajor < limit.fromNodeMajor) return undefined;
  const value = versionOf(cell);
  const at = value === undefined ? undefined : splitPackageVersion(value);
  const packageMajor = majorOf(at?.pkg === limit.package ? at.version : installedVersion(limit.package));
  if (packageMajor !== undefined && packageMajor > limit.throughMajor) return undefined;
  return limit.reason;
}

/**
 * A generated cell with its launch (under `ric`, the managed runtime's start with the file's folder as
 * the task root), or why it does not run: its generator cannot write it (`unsupported`), it cannot be
 * counted, the client cannot start on its runtime, or its bundle or runtime failed.
 */
export function planGeneratedCell(
  cell: Cell,
  levers: PreparedLevers,
  generator: FrameworkGenerator,
  ric: ResolvedRic | undefined,
  unsupported?: string,
): PlannedCell {
  const key = cellKey(cell);
  const runtime = levers.runtimes.get(cell.runtime)!;
  const why = unsupported ?? nodeLimitReason(generator, cell, runtime) ?? uncountable(cell, runtime.kind);
  const blocked: BlockedCell | undefined = why ? { kind: 'unsupported', reason: why } : (ricUnsupported(cell) ?? levers.blocked.get(key));
  const file = levers.files.get(key);
  const start = ric && file ? ricStart(cell, ric.dir, path.dirname(file)) : undefined;
  return {
    cell,
    launch:
      blocked || !file
        ? undefined
        : {
            command: levers.runtimes.get(cell.runtime)!.command,
            file,
            compileCache: cell.compileCache,
            ...(start ? { start } : {}),
          },
    blocked: blocked ?? (file ? undefined : { kind: 'failed', reason: 'no file to run' }),
    contract: contractOf(generator),
    validates: generator.neverValidates ? false : cell.variant === 'validated' || Boolean(generator.alwaysValidates),
  };
}

/**
 * The hello-world reference's cells under the levers of a run whose Lambda cells are not generated
 * (`measure`'s handlers): its file written, one cell per memory size × measure × lever values, each planned.
 */
export async function prepareReferenceCells(
  lists: CellSpec,
  options: { runtimes: PreparedLevers['runtimes']; log: (line: string) => void; variant: Variant },
): Promise<PreparedLevers> {
  await writeGenerated(referenceGenerator, 1, options.variant);
  const reference = makeCell({ framework: REFERENCE_FRAMEWORK, variant: options.variant, routes: 1, target: 'lambda' });
  const base = cellsOf([reference], stageDimensions('run'), lists).map((fields) => makeCell(fields as CellFields));
  return prepareLevers(base, lists, options);
}
