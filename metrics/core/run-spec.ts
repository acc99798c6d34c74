/**
 * RunSpec: the one typed options object every use case takes (run, measure, hyperfine, the Lambda
 * commands take parts of it). Every field is required: a default is applied here, once, in
 * DEFAULT_SPEC, and nowhere downstream. The CLI builds a spec from its option groups; tests build one
 * with runSpec({...}). The rules between options (an option that has no effect in the chosen
 * selection is refused) are checked by specRefusal, one table.
 */
import path from 'node:path';
import type { AppSpec } from './app.ts';
import type { Metric } from './samples.ts';
import { cellBlock, type CellRunValues } from './cell-exclusions.ts';
import { cellsOf, stageDimensions } from './cell-space.ts';
import {
  cliDefault,
  countsInstructions,
  countsTime,
  RUN_DIMENSIONS,
  type Bootstrap,
  type InitMode,
  type Build,
  type CompileCache,
  type FileCache,
  type Measure,
  type Order,
  type RuntimeName,
  type Target,
  type Variant,
  type Schema,
  type Shape,
} from './dimensions.ts';
import type { Architecture, LambdaRuntimeLine, LOCAL_NODE } from './lambda-platform.ts';
import { targetKind } from './kinds.ts';
import type { WebRates } from './web-platform.ts';

// the value types of the dimensions, declared once (core/dimensions.ts, core/lambda-platform.ts)
export type { Architecture, Bootstrap, Build, CompileCache, FileCache, Measure, Order, RuntimeName };
/** A Lambda cell's runtime: a Lambda line, or `node` (the node running coldstart, not a Lambda line). */
export type LambdaLine = LambdaRuntimeLine | typeof LOCAL_NODE;
export type ExportMetric = Metric;

/** `--shard i/n`: the i-th of n parts (1-based). */
export interface Shard {
  index: number;
  count: number;
}

export interface GeneratedSource {
  kind: 'generated';
  /** names, or every framework whose packages are installed */
  frameworks: readonly string[] | 'all';
  routes: number[];
  variants: Variant[];
  shapes: Shape[];
  schemas: Schema[];
}

/** `measure`: the user's own server entries and Lambda handlers. */
export interface AppsSource {
  kind: 'apps';
  apps: AppSpec[];
  /** the folder the apps were named from (--cwd, else where the command ran): meta.json records paths under it as `<cwd>/…` */
  cwd?: string;
}

export type Source = GeneratedSource | AppsSource;

/** What every cell is multiplied by. */
export interface CellSpec {
  /** generated cells: how the files run; apps: derived from the apps' kinds */
  targets: Target[];
  /** Lambda memory sizes in MB; empty = no limits (memory 0 in the cell) */
  memories: number[];
  measures: Measure[];
  /** server cells' runtimes */
  runtimes: RuntimeName[];
  /** Lambda cells' runtime lines (`node` = the node running coldstart) */
  lambdaRuntimes: LambdaLine[];
  builds: Build[];
  compileCaches: CompileCache[];
  /** Lambda cells' start */
  bootstraps: Bootstrap[];
  /**
   * Lambda cells' init modes: generated ones, and a user's handler with --init-export (a server, the
   * reference and a handler without it keep the row's stored one)
   */
  inits: InitMode[];
  /** every cell's OS file cache; `by-target` = warm for a server, cold for a Lambda cell */
  fileCaches: FileCache[] | 'by-target';
  /** with Lambda cells: also measure lambda-perf's hello-world reference under their settings */
  lambdaReference: boolean;
  /** the node binary of the `node` runtime */
  node: string;
  /** `--versions`: packages at other versions (`fastify@4.28.1`), each a cell of the cells whose file requires the package */
  versions: string[];
}

export interface PrecisionSpec {
  /** the target half-width of the 95 % CI as a share of the median (0.03 for ±3 %) */
  precision: number;
  minSamples: number;
  maxSamples: number;
}

export interface SamplingSpec {
  /** timed samples per cell, or rounds until every median is known to `precision` */
  samples: number | 'auto';
  precision: PrecisionSpec;
  warmup: number;
  /** samples per counted cell */
  countSamples: number;
  /** counted cells also under valgrind's cache simulation: estimated cycles beside the instructions (about 1.8× slower) */
  cacheSim: boolean;
  /** counted cells also cut at each npm package's CommonJS loading: each package's own instructions (measure/package-cuts.ts) */
  countPackages: boolean;
  /** counted children with V8's major GC atomic, not incremental (measure/counting.ts ATOMIC_GC_FLAGS) */
  atomicGc: boolean;
  timeoutMs: number;
  order: Order;
  seed: string;
  /** requests to further routes after each sample's timed answer */
  firstHits: number;
  /** runs in flight at once; `auto` = the cores when every cell is counted, else 1 */
  jobs: number | 'auto';
  /** measure only this part of the cells */
  shard: Shard | undefined;
}

/** With memory sizes: the INIT CPU and the CPU quota period. */
export interface LimitSpec {
  initCpus: number;
  cpuPeriodUs: number;
}

/** The cost model of the report. */
export interface CostSpec {
  memoryMB: number;
  /** the architectures Lambda cells are estimated for, in the order given; the first prices the cost table */
  architectures: Architecture[];
  /** $ per GB-second; undefined = the architecture's on-demand price */
  pricePerGBs: number | undefined;
  /** --budget: the cold start (first response, ms) the report counts routes against; undefined = none */
  budgetMs: number | undefined;
  /** --calibration: the calibration table the Lambda estimates use (lambda:calibrate's); undefined = the shipped one */
  calibrationFile: CalibrationFileSpec | undefined;
  /** --price-file or --web-*-price: the user's Lambda Web Functions rates; undefined = none, so no $ for them */
  webRates: WebRates | undefined;
}

/** A calibration file: where it is, and how meta.json names it (relative to where the user ran the command). */
export interface CalibrationFileSpec {
  path: string;
  name: string;
}

export interface OutputSpec {
  /** the run folder; undefined = results/<timestamp>/ */
  out: string | undefined;
  /** also write the results in hyperfine's --export-json shape */
  exportJson: { file: string; metric: ExportMetric } | undefined;
  /** one more, unrecorded, profiled run per cell, attributed to packages */
  attribute: boolean;
  /** exit 0 even when samples failed */
  allowFailures: boolean;
  /** start a run into results/published/ although the machine is busy (pipeline/publish.ts) */
  forcePublish: boolean;
}

export interface RunSpec {
  /** the command line, for meta.json */
  command: string;
  source: Source;
  cells: CellSpec;
  sampling: SamplingSpec;
  limits: LimitSpec;
  cost: CostSpec;
  output: OutputSpec;
}

/** What a caller gives: any group in part, the source whole. */
export type SpecInput = {
  command?: string;
  source?: Source;
} & { [G in Exclude<keyof RunSpec, 'command' | 'source'>]?: Partial<RunSpec[G]> };

/** A dimension's default list, as its row in core/dimensions.ts says (`cli`): for a server cell unless `target` says. */
function byRow<K extends Parameters<typeof cliDefault>[0]>(d: K, target: Target = 'server') {
  return cliDefault(d, target) ?? [];
}

/** The generated cells of a run that selects none: every installed framework at the default route counts. */
export const DEFAULT_SOURCE: Readonly<GeneratedSource> = {
  kind: 'generated',
  frameworks: 'all',
  routes: byRow('routes'),
  variants: byRow('variant'),
  shapes: byRow('shape'),
  schemas: byRow('schema'),
};

/** THE defaults of every option: the CLI's `--help` shows these, and nothing downstream applies another. */
export const DEFAULT_SPEC: Readonly<RunSpec> = {
  command: 'coldstart run',
  source: DEFAULT_SOURCE,
  cells: {
    // the generated targets (the table's values hold aws-lambda too: imported cells), servers' and Lambda cells' runtimes
    targets: byRow('target') as Target[],
    memories: byRow('memory'),
    measures: byRow('measure'),
    runtimes: byRow('runtime') as RuntimeName[],
    lambdaRuntimes: byRow('runtime', 'lambda') as LambdaLine[],
    builds: byRow('build'),
    compileCaches: byRow('compileCache'),
    bootstraps: byRow('bootstrap', 'lambda'),
    inits: byRow('init', 'lambda'),
    fileCaches: 'by-target',
    lambdaReference: true,
    node: process.execPath,
    versions: byRow('version'),
  },
  sampling: {
    samples: 5,
    precision: { precision: 0.03, minSamples: 5, maxSamples: 30 },
    warmup: 1,
    countSamples: 1,
    cacheSim: false,
    countPackages: false,
    atomicGc: false,
    timeoutMs: 120_000,
    order: RUN_DIMENSIONS.order.cli[0],
    seed: 'coldstart',
    firstHits: 10,
    jobs: 'auto',
    shard: undefined,
  },
  limits: { initCpus: 2, cpuPeriodUs: 100_000 },
  cost: {
    memoryMB: RUN_DIMENSIONS.costMemory.cli[0],
    architectures: [...RUN_DIMENSIONS.architecture.cli],
    pricePerGBs: undefined,
    budgetMs: undefined,
    calibrationFile: undefined,
    webRates: undefined,
  },
  output: { out: undefined, exportJson: undefined, attribute: false, allowFailures: false, forcePublish: false },
};

/** A whole spec: DEFAULT_SPEC with `input` over it, group by group. */
export function runSpec(input: SpecInput = {}): RunSpec {
  const d = DEFAULT_SPEC;
  return {
    command: input.command ?? d.command,
    source: input.source ?? d.source,
    cells: { ...d.cells, ...input.cells },
    sampling: { ...d.sampling, ...input.sampling, precision: { ...d.sampling.precision, ...input.sampling?.precision } },
    limits: { ...d.limits, ...input.limits },
    cost: { ...d.cost, ...input.cost },
    output: { ...d.output, ...input.output },
  };
}

/** The targets of a spec's cells: the apps' kinds for `measure`, else `cells.targets`. */
export function targetsOf(spec: Pick<RunSpec, 'source' | 'cells'>): Target[] {
  if (spec.source.kind === 'generated') return spec.cells.targets;
  const kinds = spec.source.apps.map((a) => a.kind);
  return [...new Set<Target>(kinds)];
}

/** The lever lists of a spec's cells (what plan/levers.ts multiplies the base cells by). */
export type LeverSpec = Pick<CellSpec, 'runtimes' | 'lambdaRuntimes' | 'builds' | 'compileCaches' | 'bootstraps' | 'fileCaches'>;

/** `--first-hits` of a spec's samples: generated route tables only (a user's app has no further routes coldstart knows). */
export function firstHitsOf(spec: Pick<RunSpec, 'source' | 'sampling'>): number {
  return spec.source.kind === 'generated' ? spec.sampling.firstHits : 0;
}

/** Whether any cell of the spec is counted (instructions under valgrind) or timed. */
export function hasCounted(spec: Pick<RunSpec, 'cells'>): boolean {
  return countsInstructions(spec.cells.measures);
}
export function hasTimed(spec: Pick<RunSpec, 'cells'>): boolean {
  return countsTime(spec.cells.measures);
}
/** Whether some cell of the spec runs as a handler (`handler`) or as a server (`!handler`): the targets' kinds say which. */
function hasTarget(spec: RunSpec, handler: boolean): boolean {
  return targetsOf(spec).some((t) => targetKind(t).handler === handler);
}
/** Whether the spec measures a user's app that is a handler (or a server). */
function hasApp(spec: RunSpec, handler: boolean): boolean {
  return spec.source.kind === 'apps' && spec.source.apps.some((a) => targetKind(a.kind).handler === handler);
}
const HANDLER = true;
const SERVER = false;
function hasInitExport(spec: RunSpec): boolean {
  return spec.source.kind === 'apps' && spec.source.apps.some((a) => targetKind(a.kind).initModes && a.initExport !== undefined);
}
function runsLocalNode(spec: RunSpec): boolean {
  const server = hasTarget(spec, SERVER) && spec.cells.runtimes.includes('node');
  return server || (hasTarget(spec, HANDLER) && spec.cells.lambdaRuntimes.includes('node'));
}

/**
 * With counted cells only, `--samples N` (and no `--count-samples`) is their sample count: what a user
 * who asks for `--measure instructions --samples 1` means. Said in --help of --samples.
 */
export function countedSamples(spec: RunSpec, given: ReadonlySet<string>): RunSpec {
  const { samples } = spec.sampling;
  if (hasTimed(spec) || !given.has('--samples') || given.has('--count-samples') || samples === 'auto') return spec;
  return { ...spec, sampling: { ...spec.sampling, countSamples: samples } };
}

/**
 * A rule between options: `flags`, given on the command line, have an effect only when `applies`
 * holds of the spec; otherwise they are refused with "FLAGS do(es) nothing without WITHOUT".
 * Flags are the long ones (`--seed`); a command that has none of them is never concerned.
 */
export interface OptionRule {
  flags: readonly string[];
  /** `given`: the long flags the user typed */
  applies: (spec: RunSpec, given: ReadonlySet<string>) => boolean;
  without: string;
  /** a flag that sets what `flags` would: refused as "FLAGS cannot be given with OVERRIDDEN" instead */
  overriddenBy?: string;
}

export const OPTION_RULES: readonly OptionRule[] = [
  {
    // measure --levers sets every lever list itself: an explicit list would be silently overridden
    flags: ['--build', '--compile-cache', '--runtime'],
    applies: (_s, given) => !given.has('--levers'),
    without: '',
    overriddenBy: '--levers, which tries every build, compile cache and installed Node line',
  },
  { flags: ['--seed'], applies: (s) => s.sampling.order === 'random', without: '--order random' },
  { flags: ['--precision', '--min-samples', '--max-samples'], applies: (s) => s.sampling.samples === 'auto', without: '--samples auto' },
  { flags: ['--init-cpus', '--cpu-period'], applies: (s) => s.cells.memories.length > 0, without: '--lambda-memory' },
  { flags: ['--export-metric'], applies: (s) => s.output.exportJson !== undefined, without: '--export-json' },
  {
    flags: ['--warmup', '--precision', '--min-samples', '--max-samples'],
    applies: hasTimed,
    without: 'a timed cell (--measure time): counted cells take no warm-up and a fixed --count-samples',
  },
  {
    // counted cells only: --samples N is their count (countedSamples), unless --count-samples says it
    flags: ['--samples'],
    applies: (s, given) => hasTimed(s) || (!given.has('--count-samples') && s.sampling.samples !== 'auto'),
    without: 'a timed cell (--measure time) when --count-samples gives the counted cells theirs (and counted cells take no auto)',
  },
  {
    flags: ['--count-samples', '--cache-sim', '--count-packages', '--atomic-gc'],
    applies: hasCounted,
    without: 'a counted cell (--measure instructions)',
  },
  { flags: ['--jobs'], applies: hasCounted, without: 'a counted cell (--measure instructions): timed cells run one at a time' },
  {
    flags: ['--init'],
    applies: (s) => (s.source.kind === 'generated' && s.cells.targets.some((t) => targetKind(t).initModes)) || hasInitExport(s),
    without:
      "a generated Lambda cell (--target lambda), or measure --handler with --init-export: a user's handler without it " +
      'initialises as it is written',
  },
  { flags: ['--init-export'], applies: (s) => hasApp(s, HANDLER), without: '--handler (a server entry has no INIT)' },
  {
    flags: ['--init-export'],
    applies: (s) => s.cells.inits.includes('eager'),
    without: 'an eager cell (--init eager): the lazy cell runs the handler as written',
  },
  {
    flags: ['--lambda-runtime', '--lambda-bootstrap', '--lambda-reference', '--no-lambda-reference'],
    applies: (s) => hasTarget(s, HANDLER),
    without: 'a Lambda cell (--target lambda, or measure --handler)',
  },
  {
    flags: ['--calibration'],
    applies: (s) => hasTarget(s, HANDLER),
    without: 'a Lambda cell (--target lambda, or measure --handler): the calibration makes the Lambda estimates',
  },
  {
    flags: ['--runtime'],
    applies: (s) => targetsOf(s).some((t) => !targetKind(t).handler && targetKind(t).runtimeLine === undefined),
    without: 'a server cell (Lambda cells run on --lambda-runtime, Web Functions on nodejs24.x)',
  },
  {
    flags: ['--lambda-memory'],
    applies: (s) => targetsOf(s).some((t) => targetKind(t).caps === undefined),
    without: 'a cell with a memory size (a Lambda Web Function has its fixed 2 vCPUs and 2 GB)',
  },
  {
    flags: ['--price-file', '--web-cpu-price', '--web-gb-price', '--web-request-price'],
    applies: (s) => targetsOf(s).some((t) => targetKind(t).caps !== undefined),
    without: 'a Lambda Web Functions cell (--target lambda-web): the rates price its cold starts',
  },
  { flags: ['--node'], applies: runsLocalNode, without: 'a cell on the node runtime (--runtime node or --lambda-runtime node)' },
  {
    flags: ['--first-hits'],
    applies: (s) => s.source.kind === 'generated' && s.source.routes.some((n) => n > 1),
    without: 'a route table of more than one route (--routes)',
  },
  {
    // the budget is read off the fitted curve, which needs 3 route counts (analyse/scaling.ts MIN_FIT_POINTS)
    flags: ['--budget'],
    applies: (s) => s.source.kind === 'generated' && new Set(s.source.routes).size >= 3,
    without: 'at least 3 route counts (--routes): the budget is read off the curve fitted over them',
  },
  { flags: ['--event'], applies: (s) => hasApp(s, HANDLER), without: '--handler (a server entry gets --request)' },
  {
    flags: ['--request', '--port', '--body', '--content-type'],
    applies: (s) => hasApp(s, SERVER),
    without: '--entry (a handler gets --event)',
  },
  {
    flags: ['--cwd'],
    applies: (s) =>
      s.source.kind === 'apps' && s.source.apps.some((a) => !targetKind(a.kind).handler || a.taskRoot !== path.dirname(a.file)),
    without: "--entry, or a --handler below it (a handler's task root is then --cwd, not the handler's own folder)",
  },
  {
    flags: ['--content-type'],
    applies: (s) => s.source.kind === 'apps' && s.source.apps.some((a) => a.request?.body !== undefined),
    without: '--body (the content type is that of the body sent)',
  },
];

/** Why a spec leaves no cell that can run (every one would be unsupported), or undefined. */
export function selectionRefusal(spec: RunSpec): string | undefined {
  const reasons = new Set<string>();
  // each target's cells at every value of the run and lever stages (core/cell-space.ts), as the planner makes them
  const bases = targetsOf(spec).map((target) => ({ target }));
  const dimensions = [...stageDimensions('run'), ...stageDimensions('lever')];
  for (const cell of cellsOf(bases, dimensions, { ...spec.source, ...spec.cells })) {
    const why = cellBlock(cell as unknown as CellRunValues, cell.runtime === 'bun' ? 'bun' : 'node');
    if (why === undefined) return undefined;
    reasons.add(why);
  }
  if (reasons.size === 0) return 'the selection has no cell to run';
  return `every cell would be unsupported, nothing would be measured: ${[...reasons].join('; ')}`;
}

/**
 * The first reason the options cannot stand together, or undefined: an option given (`given`: the
 * long flags the user typed) that has no effect in the spec's selection, or a selection that leaves
 * nothing to measure.
 */
export function specRefusal(spec: RunSpec, given: ReadonlySet<string>): string | undefined {
  for (const rule of OPTION_RULES) {
    const flags = rule.flags.filter((f) => given.has(f));
    if (flags.length === 0 || rule.applies(spec, given)) continue;
    const many = flags.length > 1;
    if (rule.overriddenBy) return `${flags.join(', ')} cannot be given with ${rule.overriddenBy}: leave ${many ? 'them' : 'it'} out`;
    return `${flags.join(', ')} ${many ? 'do' : 'does'} nothing without ${rule.without}: give it, or leave ${many ? 'them' : 'it'} out`;
  }
  return selectionRefusal(spec);
}

/** The CFS bandwidth periods the kernel accepts, µs: 1 ms to 1 s (and no quota under 1 ms). */
export const MIN_CPU_PERIOD_US = 1_000;
export const MAX_CPU_PERIOD_US = 1_000_000;
