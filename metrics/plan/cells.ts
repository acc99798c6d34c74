/**
 * From what the user asked for to the cells of a run, each with its resolved launch: select the
 * frameworks, generate every file, multiply by the levers (runtimes installed on demand, bundles
 * built), and decide which cells cannot run. `run`, `hyperfine` and `generate` all start here.
 */
import path from 'node:path';
import { contractOf } from '../../generators/contract.ts';
import { referenceGenerator } from '../../generators/lambda-reference.ts';
import { REFERENCE_FRAMEWORK } from '../core/lambda-platform.ts';
import { loadGenerators } from '../../generators/registry.ts';
import type { Contract, FrameworkGenerator } from '../../generators/types.ts';
import { unsupportedReason, writeGenerated } from '../../generators/write.ts';
import type { AppSpec } from '../core/app.ts';
import { cellKey, makeCell, type Cell } from '../core/cell.ts';
import type { CellLaunch } from './launch.ts';
import {
  DEFAULT_LEVERS,
  prepareLevers,
  runtimesOfTargets,
  type BlockedCell,
  type Bundler,
  type LeverLists,
  type PreparedLevers,
} from './levers.ts';
import { isRicBootstrap, managedRuntimeStart, type ManagedStart } from './lambda-bootstrap.ts';
import { ensureRic, type ResolvedRic } from './ric.ts';
import { resolveRuntimes } from './runtimes.ts';
import { selectFrameworks } from './selection.ts';
import {
  type Measure,
  generatedTarget,
  isCounted,
  type Target,
  type Variant,
  DEFAULT_SCHEMA,
  DEFAULT_SHAPE,
  type Schema,
  type Shape,
} from '../core/dimensions.ts';
import { isLambdaRuntimeLine, LAMBDA_RUNTIME_NAMES, DEFAULT_MEMORY_MB } from '../core/lambda-platform.ts';

/** Why a `ric` cell cannot run: the client starts only on a Lambda runtime line (it needs Node >= 22). */
export function ricUnsupported(cell: Cell): BlockedCell | undefined {
  if (!isRicBootstrap(cell.bootstrap) || isLambdaRuntimeLine(cell.runtime)) return undefined;
  return {
    kind: 'unsupported',
    reason: `the Runtime Interface Client starts on a Lambda runtime line (${LAMBDA_RUNTIME_NAMES.join(', ')}), not on ${cell.runtime}`,
  };
}

/** A `ric` cell's start: the bootstrap of its runtime line at its memory size, `taskRoot` the folder the client loads the handler from. */
export function ricStart(cell: Cell, ricDir: string, taskRoot: string): ManagedStart | undefined {
  if (!isLambdaRuntimeLine(cell.runtime) || !isRicBootstrap(cell.bootstrap)) return undefined;
  return managedRuntimeStart({
    bootstrap: cell.bootstrap,
    line: cell.runtime,
    memoryMB: cell.memory || DEFAULT_MEMORY_MB,
    ricDir,
    taskRoot,
  });
}

/** Whether one of `cells` starts with the Runtime Interface Client. */
export function needsRic(cells: readonly Cell[]): boolean {
  return cells.some((c) => isRicBootstrap(c.bootstrap) && !ricUnsupported(c));
}

/** The Runtime Interface Client, built on first use, only when one of `cells` starts with it. */
export function ricFor(cells: readonly Cell[], env: NodeJS.ProcessEnv, log: (line: string) => void): ResolvedRic | undefined {
  return needsRic(cells) ? ensureRic(env, log) : undefined;
}

/** What every command that measures or generates cells is asked for. */
export interface CellOptions {
  frameworks: readonly string[] | 'all';
  routes: number[];
  variants: Variant[];
  /** the node binary of the `node` runtime */
  node: string;
  /** --runtime, --build, --compile-cache (default node, plain, off) */
  levers?: LeverLists;
  /** --target: how the files run (default server) */
  targets?: readonly Target[];
  /** --lambda-memory: memory sizes in MB (default none: no limits, 0) */
  memories?: readonly number[];
  /** --shape: route shapes (default flat) */
  shapes?: readonly Shape[];
  /** --schema: schema weights (default small) */
  schemas?: readonly Schema[];
  /** with Lambda cells, also measure the hello-world reference under their settings (default false) */
  lambdaReference?: boolean;
  /** --measure: `time` and/or `instructions` (default time) */
  measures?: readonly Measure[];
}

/**
 * Why a counted cell cannot be counted (every reason, each with what to change), or undefined when it
 * can. Generated cells and the user's apps alike: the cuts are the probe's (or the app preload's) marks.
 */
export function uncountable(cell: Cell, runtimeKind: string): string | undefined {
  if (!isCounted(cell)) return undefined;
  const reasons: string[] = [];
  if (runtimeKind !== 'node') reasons.push('instructions are counted for node runtimes only');
  if (cell.memory > 0) reasons.push('instruction counts do not depend on the CPU share or memory limit of a memory size');
  // the cuts are the probe's marks; the Runtime Interface Client prints none
  if (cell.target === 'lambda' && isRicBootstrap(cell.bootstrap))
    reasons.push("a Lambda cell is counted at the probe's marks: use --lambda-bootstrap probe");
  // the kernel's reading of the files is not counted, so an evicted file cache changes no count
  if (cell.fileCache === 'cold')
    reasons.push('a cold file cache changes no instruction count (the kernel is not counted): use --file-cache warm');
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
  options: Pick<CellOptions, 'frameworks' | 'routes' | 'variants' | 'targets' | 'shapes' | 'schemas' | 'lambdaReference'>,
  log: (line: string) => void,
  write = true,
): Promise<GeneratedCells> {
  const targets = options.targets ?? ['server'];
  const skipped = new Map<string, string>();
  const generators = new Map<Target, Map<string, FrameworkGenerator>>();
  const selected = new Map<string, FrameworkGenerator>();
  for (const target of targets) {
    const selection = selectFrameworks(options.frameworks, await loadGenerators(target));
    const label = (name: string) => (targets.length > 1 || target !== 'server' ? `${name} (${target})` : name);
    for (const [name, reason] of selection.skipped) {
      skipped.set(label(name), reason);
      log(`${label(name)}: skipped (${reason})`);
    }
    generators.set(target, new Map(selection.selected.map((g) => [g.name, g])));
    for (const g of selection.selected) if (!selected.has(g.name)) selected.set(g.name, g);
  }
  const cells: Cell[] = [];
  const unsupported = new Map<string, string>();
  const shapes = options.shapes ?? [DEFAULT_SHAPE];
  const schemas = options.schemas ?? [DEFAULT_SCHEMA];
  for (const name of selected.keys()) {
    for (const variant of options.variants) {
      for (const shape of shapes) {
        for (const schema of schemas) {
          for (const routes of options.routes) {
            for (const target of targets) {
              const generator = generators.get(target)!.get(name);
              if (!generator) continue;
              const cell = makeCell({ framework: name, variant, shape, schema, routes, target });
              cells.push(cell);
              const why = unsupportedReason(generator, { shape, schema });
              if (why) unsupported.set(cellKey(cell), why);
            }
          }
        }
      }
    }
  }
  // the hello-world reference: one more Lambda cell, multiplied by the levers like the others
  const lambdaGenerators = generators.get('lambda');
  if (options.lambdaReference && lambdaGenerators && cells.some((c) => c.target === 'lambda')) {
    if (lambdaGenerators.has(REFERENCE_FRAMEWORK)) throw new Error(`a Lambda generator takes the reference's name ${REFERENCE_FRAMEWORK}`);
    lambdaGenerators.set(REFERENCE_FRAMEWORK, referenceGenerator);
    // the run's first variant, so that the variant does not seem to vary (the reference validates nothing either way)
    cells.push(makeCell({ framework: REFERENCE_FRAMEWORK, variant: options.variants[0] ?? 'plain', routes: 1, target: 'lambda' }));
  }
  if (write) log(`generating ${cells.length - unsupported.size} files…`);
  for (const cell of write ? cells : []) {
    if (unsupported.has(cellKey(cell))) continue;
    const shaped = { shape: cell.shape, schema: cell.schema };
    await writeGenerated(generators.get(generatedTarget(cell.target))!.get(cell.framework)!, cell.routes, cell.variant, undefined, shaped);
  }
  return { selected: [...selected.values()], skipped, cells, generators, unsupported };
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
}

const REAL_EFFECTS: PrepareEffects = { runtimes: resolveRuntimes, write: true, ric: ricFor };

/**
 * Every cell of a run with its launch resolved. `env` is the children's clean environment (the
 * runtimes' `--version` runs with it). A runtime that cannot be installed is a UsageError.
 */
export async function prepareCells(
  options: CellOptions,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  effects: PrepareEffects = REAL_EFFECTS,
): Promise<PreparedCells> {
  // the runtimes first: a --node that does not run is an error before anything is generated
  const leverLists = options.levers ?? DEFAULT_LEVERS;
  const runtimes = effects.runtimes(runtimesOfTargets(leverLists, options.targets ?? ['server']), options.node, env, log);
  const generated = await generateCells(options, log, effects.write);
  const { selected, skipped } = generated;
  const memories = options.memories ?? [0];
  const measures = options.measures ?? ['time'];
  const base = generated.cells.flatMap((cell) =>
    memories.flatMap((memory) => measures.map((measure) => makeCell({ ...cell, memory, measure }))),
  );
  const levers = await prepareLevers(base, leverLists, { runtimes, log, ...(effects.bundle ? { bundle: effects.bundle } : {}) });
  const ric = effects.ric(levers.cells, env, log);
  const cells = levers.cells.map((cell): PlannedCell => {
    const generator = generated.generators.get(generatedTarget(cell.target))!.get(cell.framework)!;
    // the generated cell's key: its shape and schema decide what the framework can be written in
    const generatedKey = cellKey(
      makeCell({
        framework: cell.framework,
        variant: cell.variant,
        shape: cell.shape,
        schema: cell.schema,
        routes: cell.routes,
        target: cell.target,
      }),
    );
    return planGeneratedCell(cell, levers, generator, ric, generated.unsupported.get(generatedKey));
  });
  return { selected, skipped, cells, levers, ...(ric ? { ric } : {}) };
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
  const why = unsupported ?? uncountable(cell, levers.runtimes.get(cell.runtime)!.kind);
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
  memories: readonly number[],
  lists: LeverLists,
  options: { runtimes: PreparedLevers['runtimes']; log: (line: string) => void; variant: Variant; measures?: readonly Measure[] },
): Promise<PreparedLevers> {
  await writeGenerated(referenceGenerator, 1, options.variant);
  const base = memories.flatMap((memory) =>
    (options.measures ?? ['time']).map((measure) =>
      makeCell({ framework: REFERENCE_FRAMEWORK, variant: options.variant, routes: 1, target: 'lambda', memory, measure }),
    ),
  );
  return prepareLevers(base, lists, options);
}
