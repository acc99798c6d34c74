/**
 * meta.json v2's `spec`: what a run was asked, typed, in the groups of the run spec (core/run-spec.ts),
 * with what was resolved from it (the frameworks selected, the limits' mechanism, the runtimes'
 * sources, the jobs). Readers use it as typed; a run folder may come from anywhere, so parseMetaSpec
 * gives every field its type (a value of the wrong type is left out, a list keeps its valid items),
 * and upgradeV1Options reads the `options` of a v1 meta.json (before `version`) into the same shape.
 */
import type { WebRates } from './web-platform.ts';
import type { AppSpec } from './app.ts';
import { listName, plannedDimensions } from './cell-space.ts';
import {
  DIMENSION_TABLE,
  isDimensionValue,
  ORDERS,
  TARGETS,
  rowHolds,
  type CellDimension,
  type DimensionTable,
  type DimensionValue,
  type Order,
} from './dimensions.ts';
import { DEFAULT_SOURCE } from './run-spec.ts';
import { toArchitecture, type Architecture } from './lambda-platform.ts';

type Json = Record<string, unknown>;

/** A user's app as meta.json records it: its variables by name only (values may be secrets). */
export type MetaApp = Omit<AppSpec, 'env'> & { env?: string[] };

export type MetaSource =
  | {
      kind: 'generated';
      frameworks: string[];
      routes: number[];
      variants: DimensionValue<'variant'>[];
      shapes: DimensionValue<'shape'>[];
      schemas: DimensionValue<'schema'>[];
    }
  | { kind: 'apps'; apps: MetaApp[] }
  | {
      /** lambda:import: CloudWatch REPORT lines read into samples */
      kind: 'imported';
      files: string[];
      importedAt: string;
      functionName?: string;
      frameworks: string[];
      routes: number[];
      variants: DimensionValue<'variant'>[];
      lambdaRuntime?: string;
      /** lambda:run: what it deployed (absent in a lambda:import and in a run from before it said) */
      input?: RecordedLambdaRunInput;
      /** what was read, in words (the Method line's samples, warm-up and order) */
      samples: string;
      warmup: string;
      order: string;
    };

/** What a lambda:run deployed: a lambda:package folder, the user's handlers (bundled), or generated cells. */
export type RecordedLambdaRunInput =
  | { kind: 'package'; folder: string }
  | { kind: 'handler'; handlers: string[]; event: string }
  | { kind: 'generated'; frameworks: string[]; routes: number[]; variants: string[]; inits: string[] };

/** A recorded input read back: one of the three kinds with its fields typed, else undefined. */
function parseRunInput(v: unknown): RecordedLambdaRunInput | undefined {
  if (!isObject(v)) return undefined;
  if (v.kind === 'package' && typeof v.folder === 'string') return { kind: 'package', folder: v.folder };
  if (v.kind === 'handler' && typeof v.event === 'string') return { kind: 'handler', handlers: strings(v.handlers), event: v.event };
  if (v.kind === 'generated') {
    return {
      kind: 'generated',
      frameworks: strings(v.frameworks),
      routes: numbers(v.routes),
      variants: strings(v.variants),
      inits: strings(v.inits),
    };
  }
  return undefined;
}

/** The lists every cell is multiplied by, in the order given (the lever tables' column order). */
export interface MetaCells {
  targets: DimensionValue<'target'>[];
  /** Lambda memory sizes in MB; empty: no limits */
  memories: number[];
  measures: DimensionValue<'measure'>[];
  runtimes: DimensionValue<'runtime'>[];
  builds: DimensionValue<'build'>[];
  compileCaches: DimensionValue<'compileCache'>[];
  /** only when some cell is a Lambda cell */
  lambdaRuntimes?: DimensionValue<'runtime'>[];
  bootstraps?: DimensionValue<'bootstrap'>[];
  /** only when some generated Lambda cell is eager (a run from before the row: every file lazy) */
  inits?: DimensionValue<'init'>[];
  /** only when some cell's file cache is not warm */
  fileCaches?: DimensionValue<'fileCache'>[];
  /** `--versions`, when given: the packages at other versions, in the order given */
  versions?: DimensionValue<'version'>[];
  /** a newer row's list (its `metaList`), once some cell leaves the row's stored value (metaCellsOfTable) */
  [metaList: string]: readonly (string | number)[] | undefined;
}

/** A run writes every field; a folder from an older tool may lack one (its report then says `undefined`, as it did). */
export interface MetaSampling {
  samples?: number | 'auto';
  /** with `samples: auto`: the precision asked and the metric it was judged on */
  precision?: { precision: number; minSamples: number; maxSamples: number; metric: string };
  warmup?: number;
  timeoutMs?: number;
  order?: Order;
  seed?: string;
  /** requests to further routes after each timed answer (0: none) */
  firstHits: number;
  /** with counted cells: samples per counted cell */
  countSamples?: number;
  /** with counted cells under the cache simulation (--cache-sim): true */
  cacheSim?: boolean;
  /** with counted cells cut at each npm package's CommonJS loading (--count-packages): true; the cuts add their own work */
  countPackages?: boolean;
  /** runs in flight at once, when more than one */
  jobs?: number;
  /** `i/n`: the part of the cells this run measured */
  shard?: string;
}

/** With memory sizes: how each sample was limited (the mechanism's own facts beside the settings). */
export interface MetaLimits {
  kind?: string;
  initCpus?: number;
  cpuPeriodUs?: number;
  mbPerVcpu?: number;
  join?: string;
  [fact: string]: unknown;
}

/** The cost model the report prices with; absent fields take its defaults (an import records only the architecture). */
export interface MetaCost {
  memoryMB?: number;
  /** the first architecture asked: the cost table's price */
  architecture?: Architecture;
  /** every architecture asked, when more than one (--arch x86_64,arm64): an estimate each */
  architectures?: Architecture[];
  pricePerGBs?: number;
  /** --budget, ms: the route budget the curves count against (absent in runs without one, and in older runs) */
  budgetMs?: number;
  /** the user's Web Functions rates (absent without them, and in older runs) */
  webRates?: WebRates;
}

export interface MetaSpec {
  source: MetaSource;
  cells: MetaCells;
  /** how the samples were taken (an import took none) */
  sampling?: MetaSampling;
  limits?: MetaLimits;
  cost: MetaCost;
  /** one more, unrecorded, profiled run per cell */
  attribute?: true;
  /** with counted cells: the V8 flags every counted child ran with */
  countFlags?: string[];
  /** runtime name → where its binary came from */
  runtimeSources: Record<string, string>;
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const numbers = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => num(x) !== undefined) : []);
const textRecord = (v: unknown): Record<string, string> =>
  isObject(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

/** A list of `d`'s values (invalid items left out); `otherwise` when absent or not a list. */
function values<K extends CellDimension>(d: K, v: unknown, otherwise: DimensionValue<K>[] = []): DimensionValue<K>[] {
  return Array.isArray(v) ? v.filter((x): x is DimensionValue<K> => isDimensionValue(d, x)) : otherwise;
}

/** An optional list: absent stays absent. */
function optionalValues<K extends CellDimension>(d: K, v: unknown): DimensionValue<K>[] | undefined {
  return Array.isArray(v) ? values(d, v) : undefined;
}

function present<T extends Json>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as T;
}

function parseSource(v: Json): MetaSource {
  if (v.kind === 'apps') {
    // an app as recorded: its name, kind and file at least (the report names it by them)
    const recorded = (a: unknown): a is Json =>
      isObject(a) && typeof a.name === 'string' && (TARGETS as readonly unknown[]).includes(a.kind) && typeof a.file === 'string';
    const apps = Array.isArray(v.apps) ? v.apps.filter(recorded) : [];
    return { kind: 'apps', apps: apps as unknown as MetaApp[] };
  }
  const selection = {
    frameworks: strings(v.frameworks),
    routes: numbers(v.routes),
    variants: values('variant', v.variants),
  };
  if (v.kind === 'imported') {
    return present({
      kind: 'imported' as const,
      files: strings(v.files),
      importedAt: str(v.importedAt) ?? 'unknown',
      functionName: str(v.functionName),
      ...selection,
      lambdaRuntime: str(v.lambdaRuntime),
      input: parseRunInput(v.input),
      samples: str(v.samples) ?? 'unknown',
      warmup: str(v.warmup) ?? 'unknown',
      order: str(v.order) ?? 'unknown',
    });
  }
  return {
    kind: 'generated',
    ...selection,
    // a run from before shapes and schemas ran the flat shape and the small schema
    shapes: values('shape', v.shapes, ['flat']),
    schemas: values('schema', v.schemas, ['small']),
  };
}

function parseCells(v: Json, table: DimensionTable): MetaCells {
  const known = {
    // a run from before targets ran servers, before --measure timed them, before the levers ran plain node
    targets: values('target', v.targets, ['server']),
    memories: numbers(v.memories),
    measures: values('measure', v.measures, ['time']),
    runtimes: values('runtime', v.runtimes, ['node']),
    builds: values('build', v.builds, ['plain']),
    compileCaches: values('compileCache', v.compileCaches, ['off']),
    lambdaRuntimes: optionalValues('runtime', v.lambdaRuntimes),
    bootstraps: optionalValues('bootstrap', v.bootstraps),
    inits: optionalValues('init', v.inits),
    fileCaches: optionalValues('fileCache', v.fileCaches),
    versions: optionalValues('version', v.versions),
  };
  // every other planned row's list, as its row names it and checks its values
  const more: Record<string, (string | number)[]> = {};
  for (const d of plannedDimensions(table)) {
    const name = table[d]!.metaList;
    const list: unknown = name === undefined || name in known ? undefined : v[name];
    if (name && Array.isArray(list)) more[name] = list.filter((x): x is string | number => rowHolds(table[d]!, x));
  }
  return present({ ...known, ...more });
}

/**
 * meta.json's `cells` as a run writes it: `written` (the lists it has always written), and the list of
 * every other planned row of `table` (by its `metaList`; a generated source's lists are the source's)
 * once some cell leaves the row's stored value, in the order the spec gave it: a new row is recorded
 * with no change here or in pipeline/meta.ts.
 */
export function metaCellsOfTable(
  written: MetaCells,
  lists: object,
  cells: readonly Readonly<Record<string, unknown>>[],
  table: DimensionTable = DIMENSION_TABLE,
): MetaCells {
  const more: Record<string, (string | number)[]> = {};
  for (const d of plannedDimensions(table)) {
    const row = table[d]!;
    const name = listName(d, 'server', table);
    if (!row.metaList || row.metaList in written || name === undefined || name in DEFAULT_SOURCE) continue;
    const list: unknown = (lists as Readonly<Record<string, unknown>>)[name];
    const leaves = cells.some((cell) => cell[d] !== row.stored);
    if (leaves && Array.isArray(list)) more[row.metaList] = list.filter((x): x is string | number => rowHolds(row, x));
  }
  return { ...written, ...more };
}

function parseSampling(v: Json): MetaSampling | undefined {
  if (Object.values(v).every((x) => x === undefined)) return undefined;
  const p = isObject(v.precision) ? v.precision : undefined;
  const precision = p && num(p.precision) !== undefined && num(p.minSamples) !== undefined && num(p.maxSamples) !== undefined;
  return present({
    samples: v.samples === 'auto' ? ('auto' as const) : num(v.samples),
    precision: precision
      ? {
          precision: num(p.precision)!,
          minSamples: num(p.minSamples)!,
          maxSamples: num(p.maxSamples)!,
          metric: str(p.metric) ?? 'firstResponse',
        }
      : undefined,
    warmup: num(v.warmup),
    timeoutMs: num(v.timeoutMs),
    order: ORDERS.find((o) => o === v.order),
    seed: str(v.seed),
    firstHits: num(v.firstHits) ?? 0,
    countSamples: num(v.countSamples),
    cacheSim: v.cacheSim === true ? true : undefined,
    countPackages: v.countPackages === true ? true : undefined,
    jobs: num(v.jobs),
    shard: str(v.shard),
  });
}

function parseLimits(v: unknown): MetaLimits | undefined {
  if (!isObject(v)) return undefined;
  const { kind, initCpus, cpuPeriodUs, mbPerVcpu, join, ...facts } = v;
  return {
    ...facts,
    ...present({ kind: str(kind), initCpus: num(initCpus), cpuPeriodUs: num(cpuPeriodUs), mbPerVcpu: num(mbPerVcpu), join: str(join) }),
  };
}

/** A list of architectures from outside: each a Lambda name or an alias, once; undefined when none is. */
function architecturesOf(value: unknown): Architecture[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const list = [...new Set(value.flatMap((a) => (typeof a === 'string' ? (toArchitecture(a) ?? []) : [])))];
  return list.length ? list : undefined;
}

function parseCost(v: unknown): MetaCost {
  if (!isObject(v)) return {};
  const memoryMB = num(v.memoryMB);
  const pricePerGBs = num(v.pricePerGBs);
  const budgetMs = num(v.budgetMs);
  return present({
    memoryMB: memoryMB !== undefined && memoryMB > 0 ? memoryMB : undefined,
    architecture: typeof v.architecture === 'string' ? toArchitecture(v.architecture) : undefined,
    architectures: architecturesOf(v.architectures),
    pricePerGBs: pricePerGBs !== undefined && pricePerGBs > 0 ? pricePerGBs : undefined,
    budgetMs: budgetMs !== undefined && budgetMs > 0 ? budgetMs : undefined,
    webRates: webRatesOf(v.webRates),
  });
}

/** Stored Web Functions rates, each a $ figure from 0 to under 1; anything else is none (never a rate of ours). */
function webRatesOf(v: unknown): WebRates | undefined {
  if (!isObject(v)) return undefined;
  const rate = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 && x < 1 ? x : undefined);
  const [activeCpuSecond, gbSecond, request] = [rate(v.activeCpuSecond), rate(v.gbSecond), rate(v.request)];
  if (activeCpuSecond === undefined || gbSecond === undefined || request === undefined) return undefined;
  return { activeCpuSecond, gbSecond, request };
}

/** A v2 meta.json's `spec`, every field of its type. */
export function parseMetaSpec(value: unknown, table: DimensionTable = DIMENSION_TABLE): MetaSpec {
  const v = isObject(value) ? value : {};
  const countFlags = Array.isArray(v.countFlags) ? strings(v.countFlags) : undefined;
  return present({
    source: parseSource(isObject(v.source) ? v.source : {}),
    cells: parseCells(isObject(v.cells) ? v.cells : {}, table),
    sampling: parseSampling(isObject(v.sampling) ? v.sampling : {}),
    limits: parseLimits(v.limits),
    cost: parseCost(v.cost),
    attribute: v.attribute === true ? (true as const) : undefined,
    countFlags,
    runtimeSources: textRecord(v.runtimeSources),
  });
}

/** The source a v1 `options` describes: the user's apps, REPORT lines imported, or generated files. */
function v1Source(o: Json): Json {
  if (Array.isArray(o.apps)) return { kind: 'apps', apps: o.apps };
  const selection = { frameworks: o.frameworks, routes: o.routes, variants: o.variants };
  if (typeof o.source === 'string' && /imported/.test(o.source)) {
    const { files, importedAt, functionName, lambdaRuntime, samples, warmup, order } = o;
    return { kind: 'imported', files, importedAt, functionName, ...selection, lambdaRuntime, samples, warmup, order };
  }
  return { kind: 'generated', ...selection, shapes: o.shapes, schemas: o.schemas };
}

/**
 * A v1 meta.json's `options` (one flat object, written until meta.json had a version) as v2's
 * `spec`: the same facts under their groups, `arch` (the cost model's x86 or arm64) as an
 * architecture, `lambdaMemory` as the cells' memories, the precision settings as one object.
 */
export function upgradeV1Options(options: unknown): MetaSpec {
  const o = isObject(options) ? options : {};
  const auto = o.samples === 'auto';
  const source = v1Source(o);
  return parseMetaSpec({
    source,
    cells: {
      targets: o.targets,
      // an import's memory sizes are its cells' (memorySizesMB)
      memories: o.lambdaMemory ?? o.memorySizesMB,
      measures: o.measures,
      runtimes: o.runtimes,
      builds: o.builds,
      compileCaches: o.compileCaches,
      lambdaRuntimes: o.lambdaRuntimes,
      bootstraps: o.bootstraps,
      fileCaches: o.fileCaches,
    },
    // an import took no samples: its samples, warm-up and order are words, in its source
    sampling:
      source.kind === 'imported'
        ? undefined
        : {
            samples: o.samples,
            ...(auto
              ? { precision: { precision: o.precision, minSamples: o.minSamples, maxSamples: o.maxSamples, metric: o.precisionMetric } }
              : {}),
            warmup: o.warmup,
            timeoutMs: o.timeoutMs,
            order: o.order,
            seed: o.seed,
            firstHits: o.firstHits,
            countSamples: o.countSamples,
            jobs: o.jobs,
            shard: o.shard,
          },
    limits: o.limits,
    cost: { memoryMB: o.memoryMB, architecture: o.architecture ?? o.arch, pricePerGBs: o.pricePerGBs },
    attribute: o.attribute,
    countFlags: o.countFlags,
    runtimeSources: o.runtimeSources,
  });
}
