/**
 * The dimensions of a run, declared once. A cell (one measured configuration) has one value of every
 * cell dimension; a run has one value of every run dimension. Each row says what its values may be,
 * what an absent field of an old record means (`stored`, which never changes: keys, labels and CSV
 * columns of old run folders rest on it), what a run takes when its flag is absent (`cli`, per target
 * where they differ), its flags and help, its place in the cell key and label, its lever table, and
 * the meta.json list that keeps the order it was given in. The value lists every module validates
 * and loops over are exported from here; cell.ts turns the table into keys, labels and parsing.
 *
 * Adding a dimension: one row here (and its value list), then the code that acts on it.
 */
import {
  ARCHITECTURES,
  DEFAULT_ARCHITECTURE,
  DEFAULT_LAMBDA_RUNTIME,
  DEFAULT_MEMORY_MB,
  KNOWN_LAMBDA_RUNTIME_LINES,
  LAMBDA_RUNTIME_NAMES,
  MAX_MEMORY_MB,
  MB_PER_VCPU,
  MIN_MEMORY_MB,
  type Architecture,
  type KnownLambdaRuntimeLine,
} from './lambda-platform.ts';

// ---- the value lists ----

/** With the framework's validation of each body, or without (the same routes answering unchecked). */
export const VARIANTS = ['validated', 'plain'] as const;
export type Variant = (typeof VARIANTS)[number];

/** The route shapes of a generated file (generators/routes.ts says what each one is). */
export const SHAPES = ['flat', 'params', 'nested', 'rest'] as const;
export type Shape = (typeof SHAPES)[number];
/** The schema weight of the bodies: small (one field) or user (the ~1 KB User model). */
export const SCHEMAS = ['small', 'user'] as const;
export type Schema = (typeof SCHEMAS)[number];

/** Route counts a generated file may have. */
export const MIN_ROUTES = 1;
export const MAX_ROUTES = 100_000;
/** The route counts of a run that does not name any. */
export const DEFAULT_ROUTES: readonly number[] = [1, 10, 100, 500, 1000, 2000, 3000, 5000];

/**
 * Where a generated file runs: `server` is a long-running HTTP server on `listen`; `lambda` is an
 * AWS Lambda handler (`exports.handler`) behind the framework's adapter, driven through the Lambda
 * Runtime API. Each has its own folder of generators (generators/<target>/) and is a `--target`.
 */
export const TARGETS = ['server', 'lambda'] as const;
export type Target = (typeof TARGETS)[number];
/** The target of cells imported from AWS's REPORT lines (lambda:import): they ran the Lambda file on Lambda itself. */
export const AWS_LAMBDA_TARGET = 'aws-lambda';
/** Every target a cell may have, in the order tables show them: the server, the local Lambda, AWS's figures. */
export const CELL_TARGETS = [...TARGETS, AWS_LAMBDA_TARGET] as const;
export type CellTarget = (typeof CELL_TARGETS)[number];

/** The generated target of a cell (its generators' folder); a cell imported from AWS has none: an error to ask. */
export function generatedTarget(target: CellTarget): Target {
  if (target === AWS_LAMBDA_TARGET) throw new Error('a cell imported from AWS (aws-lambda) has no generated file');
  return target;
}

/** The runtime binaries a server cell (or `--lambda-runtime node`) runs on (plan/runtimes.ts installs them). */
export const RUNTIME_NAMES = ['node', 'node22', 'node24', 'bun'] as const;
export type RuntimeName = (typeof RUNTIME_NAMES)[number];
/** A cell's runtime: a binary, or the Lambda runtime line of a Lambda cell (the deprecated ones too: an old run may hold them). */
export const CELL_RUNTIMES = [...RUNTIME_NAMES, ...KNOWN_LAMBDA_RUNTIME_LINES] as const;
export type CellRuntime = RuntimeName | KnownLambdaRuntimeLine;

/**
 * As written; bundled by esbuild into one file; the same bundle minified; the bundle run once into a
 * V8 startup snapshot that the start deserializes (`measure`'s server entries only: plan/snapshot.ts).
 */
export const BUILDS = ['plain', 'bundle', 'bundle-min', 'snapshot'] as const;
export type Build = (typeof BUILDS)[number];
export const COMPILE_CACHES = ['off', 'cold', 'warm'] as const;
export type CompileCache = (typeof COMPILE_CACHES)[number];
/** How a Lambda cell's process starts (plan/lambda-bootstrap.ts). */
export const BOOTSTRAPS = ['ric', 'ric-noflags', 'probe'] as const;
export type Bootstrap = (typeof BOOTSTRAPS)[number];
export const FILE_CACHES = ['warm', 'cold'] as const;
export type FileCache = (typeof FILE_CACHES)[number];
/** How a cell is measured: timed (wall and CPU time) or counted (instructions under valgrind). */
export const MEASURES = ['time', 'instructions'] as const;
export type Measure = (typeof MEASURES)[number];
/** Where a cell's file comes from: generated for framework × N, or the user's own app (`measure`). */
export const SOURCES = ['generated', 'app'] as const;
export type Source = (typeof SOURCES)[number];
/** The `source` of a cell measured from the user's own entry or handler. */
export const APP_SOURCE = 'app' satisfies Source;

/** The shape and schema of a file when the run or the record does not say. */
export const DEFAULT_SHAPE: Shape = 'flat';
export const DEFAULT_SCHEMA: Schema = 'small';

/** The order of a run's samples. */
export const ORDERS = ['interleaved', 'sequential', 'random'] as const;
export type Order = (typeof ORDERS)[number];

export { ARCHITECTURES, type Architecture } from './lambda-platform.ts';

/**
 * A framework's name (or an app's, for `measure`): open, any registered generator or app. The name
 * rule (letters, digits and `._+:@/-`) keeps labels, file names and reports free of markup and paths.
 */
export type FrameworkName = string;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._+:@/-]{0,99}$/;
export function isName(x: unknown): x is string {
  return typeof x === 'string' && NAME.test(x) && !x.includes('..');
}

// ---- the table ----

/** The two targets a run chooses between; the other rows' CLI defaults may differ by it. */
export type TargetName = Target;
export type FlagGroup = 'selection' | 'levers' | 'lambda' | 'count' | 'cost' | 'sampling';

/** One command-line flag of a dimension. */
export interface DimensionFlag {
  flag: `--${string}`;
  short?: `-${string}`;
  /** the argument's name in help (`<list>`) */
  arg: string;
  group: FlagGroup;
  /** when the flag sets the dimension only for cells of one target (`--runtime` servers, `--lambda-runtime` Lambda cells) */
  target?: TargetName;
  /** meta.json's options key for the list given */
  meta?: string;
  /** the --help text */
  help: string;
  /** the text --help shows for the default, when not the default list joined by commas */
  defaultText?: string;
}

export interface Dimension<V extends string | number> {
  /** the closed set of values (checked on the command line and in samples.jsonl), or `open` with a check */
  values: readonly V[] | 'open';
  /** for open dimensions: whether an untrusted value is one */
  valid?: (value: unknown) => value is V;
  /** what an absent field in a stored record means; absent: every record holds the field. NEVER changes. */
  stored?: V;
  /** what a run takes when the flag is absent, per target where the targets differ; absent: no default (the command decides) */
  cli?: readonly V[] | Readonly<Record<TargetName, readonly V[]>>;
  flags: readonly DimensionFlag[];
  /** what the dimension is, in a few words */
  help: string;
  /**
   * Its place in the cell key; `tagged` ones (added after runs were first recorded) appear as
   * `name=value`, and only when they leave `stored`, so older keys stay what they were.
   */
  key?: { at: number; tagged?: true };
  /** its place among the `[name=value, …]` extras of a cell's label (shown when ≠ stored), and how its value reads there */
  label?: { at: number; show?: (value: V) => string; inFileName?: (value: V) => boolean };
  /** tables sort its values in the order of `values` (else numbers numerically, text alphabetically) */
  sortByValues?: true;
  /**
   * its lever table's place in levers.md; `workload`: it describes the app, so it never counts as "the lever that helps";
   * `change`: a choice of how the app is built or deployed, so each of its values is a variant of the levers' answer table
   */
  lever?: { rank: number; workload?: true; change?: true };
  /** meta.json's options list that holds its values in the order given (the lever tables' column order) */
  metaList?: string;
}

/** The type of a row's values, carried by the row's type alone. */
declare const VALUE: unique symbol;
type Typed<V> = { readonly [VALUE]?: V };
/** A row: checked against Dimension<V>, its literal shape kept (so types can ask which rows have a lever, a stored value…). */
const dimension =
  <V extends string | number>() =>
  <const R extends Dimension<V>>(row: R): R & Typed<V> =>
    row;
const isNonNegativeInteger = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const list = (values: readonly (string | number)[]) => values.join(', ');

/** The cell dimensions, in the order tables show and sort them. */
export const DIMENSIONS = {
  framework: dimension<FrameworkName>()({
    values: 'open',
    valid: isName,
    flags: [
      {
        flag: '--frameworks',
        short: '-f',
        arg: '<list>',
        group: 'selection',
        meta: 'frameworks',
        help: 'comma-separated frameworks, or all (those whose packages are installed)',
        defaultText: 'all',
      },
    ],
    help: "the framework (or, for measure, the app's name)",
    key: { at: 0 },
    metaList: 'frameworks',
  }),
  variant: dimension<Variant>()({
    values: VARIANTS,
    cli: ['validated'],
    flags: [
      { flag: '--variant', arg: '<variant>', group: 'selection', meta: 'variants', help: `${VARIANTS.join(', ')} or all (comma list)` },
    ],
    help: 'with or without validation of the bodies',
    key: { at: 1 },
    lever: { rank: 6 },
    metaList: 'variants',
  }),
  shape: dimension<Shape>()({
    values: SHAPES,
    stored: DEFAULT_SHAPE,
    cli: [DEFAULT_SHAPE],
    flags: [
      {
        flag: '--shape',
        arg: '<list>',
        group: 'selection',
        meta: 'shapes',
        help: `route shapes, comma list of ${SHAPES.join(', ')} or all`,
      },
    ],
    help: 'the route shape of the file',
    key: { at: 10, tagged: true },
    sortByValues: true,
    lever: { rank: 7, workload: true },
    metaList: 'shapes',
  }),
  schema: dimension<Schema>()({
    values: SCHEMAS,
    stored: DEFAULT_SCHEMA,
    cli: [DEFAULT_SCHEMA],
    flags: [
      {
        flag: '--schema',
        arg: '<list>',
        group: 'selection',
        meta: 'schemas',
        help: `schema weights of the bodies, comma list of ${SCHEMAS.join(', ')} or all`,
      },
    ],
    help: 'the schema weight of the bodies',
    key: { at: 11, tagged: true },
    sortByValues: true,
    lever: { rank: 8, workload: true },
    metaList: 'schemas',
  }),
  routes: dimension<number>()({
    values: 'open',
    valid: isNonNegativeInteger,
    cli: DEFAULT_ROUTES,
    flags: [
      {
        flag: '--routes',
        short: '-r',
        arg: '<list>',
        group: 'selection',
        meta: 'routes',
        help: `comma-separated route counts, each ${MIN_ROUTES}–${MAX_ROUTES}`,
      },
    ],
    help: 'the number of routes the file registers',
    key: { at: 2 },
    metaList: 'routes',
  }),
  target: dimension<CellTarget>()({
    values: CELL_TARGETS,
    stored: 'server',
    cli: ['server'],
    flags: [
      {
        flag: '--target',
        arg: '<list>',
        group: 'selection',
        meta: 'targets',
        help:
          `comma list of ${TARGETS.join(', ')}: a long-running HTTP server, ` +
          "or a handler behind the framework's Lambda adapter under a Runtime API the runner plays",
      },
    ],
    help: 'how the file runs: an HTTP server, a handler under the Runtime API, or imported from AWS',
    key: { at: 6, tagged: true },
    // a local Lambda cell's file (lambda/…) already says its target
    label: { at: 0, inFileName: (t) => t === 'lambda' },
    sortByValues: true,
    lever: { rank: 0 },
    metaList: 'targets',
  }),
  memory: dimension<number>()({
    values: 'open',
    valid: isNonNegativeInteger,
    stored: 0,
    cli: [0],
    flags: [
      {
        flag: '--lambda-memory',
        arg: '<list>',
        group: 'lambda',
        meta: 'lambdaMemory',
        help:
          `comma list of Lambda memory sizes in MB (${MIN_MEMORY_MB}–${MAX_MEMORY_MB}): ` +
          'each sample runs in a cgroup with that memory limit ' +
          `and, after INIT, that CPU share (MB / ${MB_PER_VCPU} vCPUs); absent = no limits`,
      },
    ],
    help: 'the Lambda memory size it ran at, MB (CPU share and memory limit); 0 = no limits',
    key: { at: 7, tagged: true },
    label: { at: 1, show: (mb) => `memory=${mb}MB` },
  }),
  measure: dimension<Measure>()({
    values: MEASURES,
    stored: 'time',
    cli: ['time'],
    flags: [
      {
        flag: '--measure',
        arg: '<list>',
        group: 'count',
        meta: 'measures',
        help:
          `comma list of ${MEASURES.join(', ')}: timed cells (wall and CPU time) and/or counted cells ` +
          '(instructions per phase under valgrind, deterministic)',
      },
    ],
    help: 'how it is measured: wall and CPU time, or instructions counted under valgrind',
    key: { at: 8, tagged: true },
    label: { at: 2 },
    metaList: 'measures',
  }),
  runtime: dimension<CellRuntime>()({
    values: CELL_RUNTIMES,
    stored: 'node',
    cli: { server: ['node'], lambda: [DEFAULT_LAMBDA_RUNTIME] },
    flags: [
      {
        flag: '--runtime',
        arg: '<list>',
        group: 'levers',
        target: 'server',
        meta: 'runtimes',
        help:
          `comma list of runtimes: ${RUNTIME_NAMES.join(', ')} ` +
          '(node = the node running coldstart, or --node; the others are installed on demand into .runtimes/)',
      },
      {
        flag: '--lambda-runtime',
        arg: '<list>',
        group: 'lambda',
        target: 'lambda',
        meta: 'lambdaRuntimes',
        help:
          `comma list of Lambda runtime lines for Lambda cells: ${LAMBDA_RUNTIME_NAMES.join(', ')} (default ${DEFAULT_LAMBDA_RUNTIME}; ` +
          'each runs on the pinned download of its Node line, installed on demand into .runtimes/; ' +
          'node = the node running coldstart or --node, not a Lambda line)',
      },
    ],
    help: 'which runtime binary runs the file (a Lambda cell: its Lambda runtime line)',
    key: { at: 3 },
    label: { at: 3 },
    lever: { rank: 1, change: true },
    metaList: 'runtimes',
  }),
  build: dimension<Build>()({
    values: BUILDS,
    stored: 'plain',
    cli: ['plain'],
    flags: [
      {
        flag: '--build',
        arg: '<list>',
        group: 'levers',
        meta: 'builds',
        help:
          `comma list of builds: ${BUILDS.join(', ')} ` +
          '(bundle = the file and all it requires in one file, by esbuild; bundle-min = the same, minified; ' +
          "snapshot = the bundle run once into a startup snapshot, node --build-snapshot: measure's server entries only)",
      },
    ],
    help: 'how the file is built before it runs',
    key: { at: 4 },
    label: { at: 4 },
    lever: { rank: 4, change: true },
    metaList: 'builds',
  }),
  compileCache: dimension<CompileCache>()({
    values: COMPILE_CACHES,
    stored: 'off',
    cli: ['off'],
    flags: [
      {
        flag: '--compile-cache',
        arg: '<list>',
        group: 'levers',
        meta: 'compileCaches',
        help:
          `comma list of ${COMPILE_CACHES.join(', ')}: Node's module compile cache (NODE_COMPILE_CACHE, Node >= 22.1); ` +
          'cold = a fresh empty cache per sample, warm = one filled by an unrecorded run first',
      },
    ],
    help: "Node's module compile cache",
    key: { at: 5 },
    label: { at: 5 },
    lever: { rank: 5, change: true },
    metaList: 'compileCaches',
  }),
  bootstrap: dimension<Bootstrap>()({
    values: BOOTSTRAPS,
    stored: 'probe',
    cli: { server: ['probe'], lambda: ['ric'] },
    flags: [
      {
        flag: '--lambda-bootstrap',
        arg: '<list>',
        group: 'lambda',
        target: 'lambda',
        meta: 'bootstraps',
        help:
          `comma list of ${BOOTSTRAPS.join(', ')}: how a Lambda cell starts (default ric); ric = AWS's Runtime ` +
          "Interface Client launched as the managed runtime's bootstrap does, ric-noflags = the same without the bootstrap's " +
          'node flags, probe = the file as its own Runtime API client',
      },
    ],
    help: "how a Lambda handler's process starts: its own Runtime API client (probe) or AWS's Runtime Interface Client (ric)",
    key: { at: 12, tagged: true },
    label: { at: 6 },
    lever: { rank: 2 },
    metaList: 'bootstraps',
  }),
  fileCache: dimension<FileCache>()({
    values: FILE_CACHES,
    stored: 'warm',
    cli: { server: ['warm'], lambda: ['cold'] },
    flags: [
      {
        flag: '--file-cache',
        arg: '<list>',
        group: 'lambda',
        meta: 'fileCaches',
        help:
          `comma list of ${FILE_CACHES.join(', ')}: the OS file cache before each sample (default warm for a server, ` +
          `cold for a Lambda cell); cold = the files that sample's process reads are evicted first`,
      },
    ],
    help: 'the OS file cache before each sample: as the warm-up left it, or the sample’s own files evicted',
    key: { at: 13, tagged: true },
    label: { at: 7 },
    lever: { rank: 3 },
    metaList: 'fileCaches',
  }),
  source: dimension<Source>()({
    values: SOURCES,
    stored: 'generated',
    // no flag: the command sets it (run: generated, measure: app)
    flags: [],
    help: "where the file comes from: generated by coldstart for framework × N, or the user's own app (measure)",
    key: { at: 9, tagged: true },
  }),
} as const;

/** The run dimensions: one value per run (no key, label or CSV column), each with its flag and meta.json key. */
export const RUN_DIMENSIONS = {
  architecture: dimension<Architecture>()({
    values: ARCHITECTURES,
    stored: DEFAULT_ARCHITECTURE,
    cli: [DEFAULT_ARCHITECTURE],
    flags: [
      {
        flag: '--arch',
        arg: '<list>',
        group: 'cost',
        meta: 'arch',
        help:
          `comma list of Lambda architectures, ${ARCHITECTURES.join(' and/or ')} (x86 is an alias of x86_64): an estimate ` +
          "each for Lambda cells (its calibration and its price); the first one's price is the cost table's",
      },
    ],
    // not a cell dimension: a local cell runs on this machine whatever the architecture; only the calibration and the price differ
    help: 'the Lambda architectures Lambda cells are estimated for; the first prices the cost table',
  }),
  costMemory: dimension<number>()({
    values: 'open',
    valid: (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= MIN_MEMORY_MB && v <= MAX_MEMORY_MB,
    stored: DEFAULT_MEMORY_MB,
    cli: [DEFAULT_MEMORY_MB],
    flags: [{ flag: '--memory', arg: '<MB>', group: 'cost', meta: 'memoryMB', help: 'Lambda memory for the cost table, in MB' }],
    help: 'the Lambda memory size the cost model prices, MB',
  }),
  order: dimension<Order>()({
    values: ORDERS,
    stored: 'interleaved',
    cli: ['interleaved'],
    flags: [{ flag: '--order', arg: '<order>', group: 'sampling', meta: 'order', help: `${list(ORDERS.slice(0, -1))} or random` }],
    help: 'the order of the samples: round by round across cells, cell after cell, or shuffled by a seed',
  }),
} as const;

export type CellDimension = keyof typeof DIMENSIONS;
export type RunDimension = keyof typeof RUN_DIMENSIONS;
type ValueOf<D> = D extends Typed<infer V> ? V : never;
export type DimensionValue<K extends CellDimension> = ValueOf<(typeof DIMENSIONS)[K]>;

/** A cell: one value of every cell dimension, each of its own type. */
export type Cell = { -readonly [K in CellDimension]: DimensionValue<K> };

/** The cell dimensions, in the order tables show and sort them. */
export const CELL_DIMENSIONS = Object.keys(DIMENSIONS) as CellDimension[];

/** Dimensions whose field every stored record holds (no `stored` value). */
export type RequiredDimension = { [K in CellDimension]: (typeof DIMENSIONS)[K] extends { stored: unknown } ? never : K }[CellDimension];

/** A row of the table, seen through its common shape (its value type widened). */
export function dimensionRow(d: CellDimension): Dimension<string | number> {
  return DIMENSIONS[d] as Dimension<string | number>;
}

/** Whether `value` is one of the dimension's values (for open dimensions: passes its check). */
export function isDimensionValue<K extends CellDimension>(d: K, value: unknown): value is DimensionValue<K> {
  const row = dimensionRow(d);
  if (row.values === 'open') return row.valid?.(value) ?? false;
  return (row.values as readonly unknown[]).includes(value);
}

/** What a run takes for dimension `d` when its flag is absent, for cells of `target`; undefined when the command decides. */
export function cliDefault<K extends CellDimension>(d: K, target: TargetName): readonly DimensionValue<K>[] | undefined {
  const cli = dimensionRow(d).cli;
  if (cli === undefined) return undefined;
  return (Array.isArray(cli) ? cli : (cli as Record<TargetName, readonly (string | number)[]>)[target]) as readonly DimensionValue<K>[];
}

/** The value of `d` a record without the field holds. */
export function storedValue<K extends CellDimension>(d: K): DimensionValue<K> | undefined {
  return dimensionRow(d).stored as DimensionValue<K> | undefined;
}

/** The cell dimensions in their cell-key order; tagged ones are shown only when they leave their stored value. */
export const KEY_DIMENSIONS: readonly CellDimension[] = CELL_DIMENSIONS.filter((d) => dimensionRow(d).key).sort(
  (a, b) => dimensionRow(a).key!.at - dimensionRow(b).key!.at,
);

/** Dimensions a key, label or CSV shows only when they leave their stored value (added after runs were first recorded). */
export const OPTIONAL_DIMENSIONS: readonly CellDimension[] = KEY_DIMENSIONS.filter((d) => dimensionRow(d).key?.tagged);

/** The dimensions of a label's `[name=value, …]` extras, in their order. */
export const LABEL_DIMENSIONS: readonly CellDimension[] = CELL_DIMENSIONS.filter((d) => dimensionRow(d).label).sort(
  (a, b) => dimensionRow(a).label!.at - dimensionRow(b).label!.at,
);

/** The dimensions a user pulls as levers (a table each in levers.md), in the order the tables come. */
export const LEVER_DIMENSIONS = CELL_DIMENSIONS.filter((d) => dimensionRow(d).lever).sort(
  (a, b) => dimensionRow(a).lever!.rank - dimensionRow(b).lever!.rank,
) as LeverDimension[];
export type LeverDimension = { [K in CellDimension]: (typeof DIMENSIONS)[K] extends { lever: object } ? K : never }[CellDimension];

/**
 * The levers the answer table varies (build, compile cache, runtime): the choices a user makes when
 * building or deploying the app; every other dimension describes what is measured (the app, its
 * target, its memory size, how it starts).
 */
export const CHANGE_DIMENSIONS = LEVER_DIMENSIONS.filter((d) => dimensionRow(d).lever?.change) as ChangeDimension[];
export type ChangeDimension = {
  [K in CellDimension]: (typeof DIMENSIONS)[K] extends { lever: { change: true } } ? K : never;
}[CellDimension];

/** A cell counted under valgrind rather than timed: the one test of the `measure` dimension's counted value. */
export function isCounted(cell: { readonly measure: string }): boolean {
  return cell.measure === 'instructions';
}

/** Whether a run's measures include counted cells. */
export function countsInstructions(measures: readonly Measure[]): boolean {
  return measures.includes('instructions');
}

/** The counted measure, for code that builds a counted cell. */
export const COUNTED_MEASURE: Measure = 'instructions';
