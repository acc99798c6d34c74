/**
 * The dimensions of a run, declared once. A cell (one measured configuration) has one value of every
 * cell dimension; a run has one value of every run dimension. Each row says what its values may be,
 * what an absent field of an old record means (`stored`, which never changes: keys, labels and CSV
 * columns of old run folders rest on it), what a run takes when its flag is absent (`cli`, per target
 * where they differ), its flags and help, its place in the cell key and label, its lever table, and
 * the meta.json list that keeps the order it was given in. The value lists every module validates
 * and loops over are exported from here (test/unit/dimension-lists.test.ts fails on a copy
 * elsewhere); cell.ts turns the table into keys, labels, parsing, order and CSV columns, the CLI's
 * option groups declare each flag from its row (cli/groups/common.ts dimensionOption), and
 * DEFAULT_SPEC takes the rows' `cli`.
 *
 * The value lists are spelled in dimension-values.ts, the row's shape in dimension-row.ts and the run
 * dimensions in run-dimensions.ts; this module re-exports them, so every other module imports from here.
 *
 * Adding a dimension: one row here (and its value list), then the code that acts on it
 * (docs/dev/adding-a-target-or-dimension.md).
 */
import { DEFAULT_LAMBDA_RUNTIME, LAMBDA_RUNTIME_NAMES, MAX_MEMORY_MB, MB_PER_VCPU, MIN_MEMORY_MB } from './lambda-platform.ts';
import {
  VARIANTS,
  type Variant,
  SHAPES,
  type Shape,
  SCHEMAS,
  type Schema,
  MIN_ROUTES,
  MAX_ROUTES,
  DEFAULT_ROUTES,
  TARGETS,
  type Target,
  CELL_TARGETS,
  type CellTarget,
  RUNTIME_NAMES,
  CELL_RUNTIMES,
  type CellRuntime,
  BUILDS,
  type Build,
  COMPILE_CACHES,
  type CompileCache,
  BOOTSTRAPS,
  type Bootstrap,
  INIT_MODES,
  type InitMode,
  FILE_CACHES,
  type FileCache,
  MEASURES,
  type Measure,
  SOURCES,
  type Source,
  INSTALLED_VERSION,
  isPackageVersion,
  DEFAULT_SHAPE,
  DEFAULT_SCHEMA,
  type FrameworkName,
  isName,
} from './dimension-values.ts';
import { cliList, dimension, isNonNegativeInteger, list, rowHolds, type Dimension, type TargetName, type Typed } from './dimension-row.ts';
import { measureKind, targetInName, targetKind, WEB_FUNCTION_RUNTIME } from './kinds.ts';
import { MAX_ROUTE_COUNTS, MAX_VERSIONS, RUN_BOUNDS_TEXT } from './run-bounds.ts';

export * from './dimension-values.ts';
export * from './dimension-row.ts';
export { RUN_DIMENSIONS } from './run-dimensions.ts';

/** The generated target of a cell (its generators' folder); a cell imported from AWS has none: an error to ask. */
export function generatedTarget(target: CellTarget): Target {
  if (!targetKind(target).local) throw new Error(`a cell imported from AWS (${target}) has no generated file`);
  return fileTargetOf(target);
}
/** The generators' folder of the file a cell of `target` ran (a cell imported from AWS: the Lambda file). */
export function fileTargetOf(target: CellTarget): Target {
  return targetKind(target).fileTarget as Target;
}

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
        help: 'comma-separated frameworks, or all (those whose packages are installed)',
        defaultText: 'all',
      },
    ],
    help: "the framework (or, for measure, the app's name)",
    toggle: false,
    key: { at: 0 },
    label: 'file',
    metaList: 'frameworks',
    plan: { stage: 'file', list: 'frameworks' },
  }),
  variant: dimension<Variant>()({
    values: VARIANTS,
    cli: ['validated'],
    flags: [{ flag: '--variant', arg: '<variant>', group: 'selection', help: `${list(VARIANTS)} or all (comma list)` }],
    help: 'with or without validation of the bodies',
    key: { at: 1 },
    label: 'file',
    lever: { rank: 6 },
    metaList: 'variants',
    plan: { stage: 'file', list: 'variants' },
  }),
  shape: dimension<Shape>()({
    values: SHAPES,
    stored: DEFAULT_SHAPE,
    cli: [DEFAULT_SHAPE],
    flags: [{ flag: '--shape', arg: '<list>', group: 'selection', help: `route shapes, comma list of ${list(SHAPES)} or all` }],
    help: 'the route shape of the file',
    key: { at: 10, tagged: true },
    label: 'file',
    sortByValues: true,
    lever: { rank: 7, workload: true },
    metaList: 'shapes',
    plan: { stage: 'file', list: 'shapes' },
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
        help: `schema weights of the bodies, comma list of ${list(SCHEMAS)} or all`,
      },
    ],
    help: 'the schema weight of the bodies',
    key: { at: 11, tagged: true },
    label: 'file',
    sortByValues: true,
    lever: { rank: 8, workload: true },
    metaList: 'schemas',
    plan: { stage: 'file', list: 'schemas' },
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
        help: `comma-separated route counts, each ${MIN_ROUTES}–${MAX_ROUTES}, at most ${MAX_ROUTE_COUNTS} of them (${RUN_BOUNDS_TEXT})`,
      },
    ],
    help: 'the number of routes the file registers',
    toggle: false,
    key: { at: 2 },
    label: 'file',
    metaList: 'routes',
    plan: { stage: 'file', list: 'routes' },
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
        help: (on) =>
          (on.what === 'app'
            ? 'what every --entry runs as, comma list of server, lambda-web: a server on PORT, '
            : `comma list of ${list(TARGETS)}: a long-running HTTP server, a handler behind the framework's Lambda ` +
              'adapter under a Runtime API the runner plays, ') +
          'or the server as a Lambda Web Function (on AWS_LAMBDA_HTTP_ENDPOINT, ready when it accepts, within 10 s, ' +
          '2 vCPUs, 2 GB, nodejs24.x)',
      },
    ],
    help: 'how the file runs: an HTTP server, a handler under the Runtime API, a Lambda Web Function, or imported from AWS',
    key: { at: 6, tagged: true },
    label: { at: 0, inFileName: targetInName },
    sortByValues: true,
    lever: { rank: 0 },
    metaList: 'targets',
    plan: { stage: 'file', list: 'targets' },
  }),
  memory: dimension<number>()({
    values: 'open',
    valid: isNonNegativeInteger,
    stored: 0,
    cli: [],
    flags: [
      {
        flag: '--lambda-memory',
        arg: '<list>',
        group: 'lambda',
        help:
          `comma list of Lambda memory sizes in MB (${MIN_MEMORY_MB}–${MAX_MEMORY_MB}): each sample, a server's too, runs in a cgroup ` +
          `with that memory limit and, after INIT, that CPU share (MB / ${MB_PER_VCPU} vCPUs); absent = no limits`,
        defaultText: '',
      },
    ],
    help: 'the Lambda memory size it ran at, MB (CPU share and memory limit); 0 = no limits',
    key: { at: 7, tagged: true },
    label: { at: 1, show: (mb) => `memory=${mb}MB` },
    plan: { stage: 'run', list: 'memories' },
  }),
  measure: dimension<Measure>()({
    values: MEASURES,
    stored: 'time',
    cli: ['time'],
    flags: [
      {
        flag: '--measure',
        arg: '<list>',
        group: 'selection',
        help:
          `comma list of ${list(MEASURES)}: timed cells (wall and CPU time) and/or counted cells ` +
          '(instructions per phase under valgrind, deterministic); the same dimension on run and measure',
      },
    ],
    help: 'how it is measured: wall and CPU time, or instructions counted under valgrind',
    toggle: false,
    key: { at: 8, tagged: true },
    label: { at: 2 },
    counted: 'instructions',
    metaList: 'measures',
    plan: { stage: 'run', list: 'measures' },
  }),
  runtime: dimension<CellRuntime>()({
    values: CELL_RUNTIMES,
    stored: 'node',
    cli: { server: ['node'], lambda: [DEFAULT_LAMBDA_RUNTIME], 'lambda-web': [WEB_FUNCTION_RUNTIME as CellRuntime] },
    flags: [
      {
        flag: '--runtime',
        arg: '<list>',
        group: 'levers',
        target: 'server',
        help: (on) =>
          `comma list of runtimes${on.lambda ? ' of server cells' : ''}: ${list(RUNTIME_NAMES)} ` +
          `(node = the node running coldstart, or --node; the others are installed on demand into .runtimes/` +
          `${on.lambda ? '; Lambda cells run on --lambda-runtime' : ''})`,
      },
      {
        flag: '--lambda-runtime',
        arg: '<list>',
        group: 'lambda',
        target: 'lambda',
        help:
          `comma list of Lambda runtime lines for Lambda cells: ${list(LAMBDA_RUNTIME_NAMES)} ` +
          '(each runs on the pinned download of its Node line, installed on demand into .runtimes/; ' +
          'node = the node running coldstart or --node, not a Lambda line)',
      },
    ],
    help: 'which runtime binary runs the file (a Lambda cell: its Lambda runtime line)',
    key: { at: 3 },
    label: { at: 3 },
    lever: { rank: 1, change: true },
    metaList: 'runtimes',
    plan: { stage: 'lever', list: { server: 'runtimes', lambda: 'lambdaRuntimes', 'lambda-web': 'lambdaRuntimes' } },
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
        help:
          `comma list of builds: ${list(BUILDS)} (bundle = the file and all it requires in one file, by esbuild; ` +
          'bundle-min = the same, minified; snapshot = the bundle run once into a startup snapshot, node --build-snapshot: ' +
          "measure's server entries only)",
      },
    ],
    help: 'how the file is built before it runs',
    key: { at: 4 },
    label: { at: 4 },
    lever: { rank: 4, change: true },
    metaList: 'builds',
    plan: { stage: 'lever', list: 'builds' },
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
        help:
          `comma list of ${list(COMPILE_CACHES)}: Node's module compile cache (NODE_COMPILE_CACHE, Node >= 22.1); ` +
          'cold = a fresh empty cache per sample, warm = one filled by an unrecorded run first',
      },
    ],
    help: "Node's module compile cache",
    key: { at: 5 },
    label: { at: 5 },
    lever: { rank: 5, change: true },
    metaList: 'compileCaches',
    plan: { stage: 'lever', list: 'compileCaches' },
  }),
  bootstrap: dimension<Bootstrap>()({
    values: BOOTSTRAPS,
    stored: 'probe',
    cli: { server: ['probe'], lambda: ['ric'], 'lambda-web': ['probe'] },
    flags: [
      {
        flag: '--lambda-bootstrap',
        arg: '<list>',
        group: 'lambda',
        target: 'lambda',
        help:
          `comma list of ${list(BOOTSTRAPS)}: how a Lambda cell starts; ric = AWS's Runtime ` +
          "Interface Client launched as the managed runtime's bootstrap does, ric-noflags = the same without the bootstrap's " +
          'node flags, probe = the file as its own Runtime API client',
      },
    ],
    help: "how a Lambda handler's process starts: its own Runtime API client (probe) or AWS's Runtime Interface Client (ric)",
    key: { at: 12, tagged: true },
    label: { at: 6 },
    lever: { rank: 2 },
    metaList: 'bootstraps',
    plan: { stage: 'lever', list: 'bootstraps' },
  }),
  fileCache: dimension<FileCache>()({
    values: FILE_CACHES,
    stored: 'warm',
    cli: { server: ['warm'], lambda: ['cold'], 'lambda-web': ['cold'] },
    flags: [
      {
        flag: '--file-cache',
        arg: '<list>',
        group: 'levers',
        help:
          `comma list of ${list(FILE_CACHES)}: the OS file cache before each sample; ` +
          "cold = the files that sample's process reads are evicted first",
      },
    ],
    help: 'the OS file cache before each sample: as the warm-up left it, or the sample’s own files evicted',
    key: { at: 13, tagged: true },
    label: { at: 7 },
    lever: { rank: 3 },
    metaList: 'fileCaches',
    plan: { stage: 'lever', list: 'fileCaches' },
  }),
  init: dimension<InitMode>()({
    values: INIT_MODES,
    // what every Lambda file did before the row existed: fastify's ready() on the first event
    stored: 'lazy',
    cli: { server: ['lazy'], lambda: ['eager', 'lazy'], 'lambda-web': ['lazy'] },
    flags: [
      {
        flag: '--init',
        arg: '<list>',
        group: 'lambda',
        target: 'lambda',
        help:
          `comma list of ${list(INIT_MODES)}: when a generated Lambda handler initialises its framework; eager = in INIT as ` +
          "its adapter's documentation advises for cold starts (fastify's await app.ready() at the top level of an ES module, " +
          "hapi's await server.initialize()), lazy = on the first event; a framework with nothing to initialise has no eager cell; " +
          'measure: a handler with --init-export, whose eager cell awaits that export in INIT',
      },
    ],
    help: "when a Lambda handler initialises its framework: on the first event (lazy) or in INIT (eager, its adapter's documented way)",
    key: { at: 14, tagged: true },
    // an eager file lives in lambda/eager/ (an ES module, .mjs): its file name says it
    label: { at: 8, inFileName: (mode) => mode === 'eager' },
    sortByValues: true,
    lever: { rank: 9 },
    metaList: 'inits',
    plan: { stage: 'file', list: 'inits' },
  }),
  version: dimension<string>()({
    values: 'open',
    valid: (v: unknown): v is string => v === INSTALLED_VERSION || isPackageVersion(v),
    stored: INSTALLED_VERSION,
    cli: [],
    flags: [
      {
        flag: '--versions',
        arg: '<pkg@v1,v2...>',
        group: 'levers',
        help:
          'npm packages at other versions than the installed ones, each a cell of its own: `fastify@4.28.1,5.6.1` ' +
          '(a bare version continues the package before it; several packages as `fastify@4.28.1,5.6.1 express@4.21.2,5.1.0`, ' +
          'or the flag repeated). A generated cell gets each version of its framework, adapter or validator package; a measured app, ' +
          `of any of its dependencies. Exact versions, at most ${MAX_VERSIONS} in a run, installed once into .versions/ ` +
          '(outside generated/ and your project)',
        defaultText: 'the installed versions',
      },
    ],
    help: 'the version of one npm package of the cell, when not the installed one',
    sortNumeric: true,
    key: { at: 15, tagged: true },
    label: { at: 9 },
    lever: { rank: 10 },
    metaList: 'versions',
    plan: { stage: 'version', list: 'versions' },
  }),
  source: dimension<Source>()({
    values: SOURCES,
    stored: 'generated',
    // no flag: the command sets it (run: generated, measure: app)
    flags: [],
    help: "where the file comes from: generated by coldstart for framework × N, or the user's own app (measure)",
    key: { at: 9, tagged: true },
    label: 'file',
  }),
} as const;

export type CellDimension = keyof typeof DIMENSIONS;
type ValueOf<D> = D extends Typed<infer V> ? V : never;
export type DimensionValue<K extends CellDimension> = ValueOf<(typeof DIMENSIONS)[K]>;

/** A cell: one value of every cell dimension, each of its own type. */
export type Cell = { -readonly [K in CellDimension]: DimensionValue<K> };

/**
 * A table of cell dimensions as the cell functions (core/cell.ts) read it: DIMENSIONS, or a test's
 * table with a row more. Every row has a place in the key and says how the label shows it, so two
 * cells that differ in a dimension never share a key or a label.
 */
export type DimensionTable = Readonly<Record<string, Dimension<string | number> & Required<Pick<Dimension<string>, 'key' | 'label'>>>>;
/** DIMENSIONS, seen through the common shape of its rows (their value types widened). */
export const DIMENSION_TABLE: DimensionTable = DIMENSIONS as unknown as DimensionTable;
// every cell row declares its key place and its label: tsc asks a new row for both
DIMENSIONS satisfies Record<string, { key: object; label: object | 'file' }>;

/** The cell dimensions, in the order tables show and sort them. */
export const CELL_DIMENSIONS = Object.keys(DIMENSIONS) as CellDimension[];

/** Dimensions whose field every stored record holds (no `stored` value). */
export type RequiredDimension = { [K in CellDimension]: (typeof DIMENSIONS)[K] extends { stored: unknown } ? never : K }[CellDimension];
/** Dimensions an old record may lack: it then holds the row's `stored` value. */
export type StoredDimension = Exclude<CellDimension, RequiredDimension>;

/** A row of the table, seen through its common shape (its value type widened). */
export function dimensionRow(d: CellDimension): Dimension<string | number> {
  return DIMENSION_TABLE[d]!;
}

/** Whether `value` is one of the dimension's values (for open dimensions: passes its check). */
export function isDimensionValue<K extends CellDimension>(d: K, value: unknown): value is DimensionValue<K> {
  return rowHolds(dimensionRow(d), value);
}

/** What a run takes for dimension `d` when its flag is absent, for cells of `target`; undefined when the command decides. */
export function cliDefault<K extends CellDimension>(d: K, target: TargetName): DimensionValue<K>[] | undefined {
  return cliList(dimensionRow(d), target) as DimensionValue<K>[] | undefined;
}

/** The value of `d` a record without the field holds. */
export function storedValue<K extends StoredDimension>(d: K): DimensionValue<K> {
  return dimensionRow(d).stored as DimensionValue<K>;
}

/** The dimensions of a table a user pulls as levers (a table each in levers.md), in the order the tables come. */
export function leverDimensionsOf(table: DimensionTable): string[] {
  return Object.keys(table)
    .filter((d) => table[d]!.lever)
    .sort((a, b) => table[a]!.lever!.rank - table[b]!.lever!.rank);
}
export const LEVER_DIMENSIONS = leverDimensionsOf(DIMENSION_TABLE) as LeverDimension[];
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

/** The counted measure (instructions under valgrind), as the measure row says: for code that builds a counted cell. */
export const COUNTED_MEASURE: Measure = DIMENSIONS.measure.counted;
/** The timed measure: the measure row's other value. */
export const TIMED_MEASURE: Measure = MEASURES.find((m) => !measureKind(m).counted)!;

/** A cell counted under valgrind rather than timed: the one test of the `measure` dimension's counted value. */
export function isCounted(cell: { readonly measure: string }): boolean {
  return measureKind(cell.measure).counted;
}

/** Whether a run's measures include counted cells. */
export function countsInstructions(measures: readonly string[]): boolean {
  return measures.includes(COUNTED_MEASURE);
}

/** Whether a run's measures include timed cells. */
export function countsTime(measures: readonly string[]): boolean {
  return measures.includes(TIMED_MEASURE);
}
