/**
 * meta.json: what a run was, on what machine, with which versions, and what the children did not get.
 * Version 2 records what was asked as a typed `spec` (core/meta-spec.ts); a meta.json without a
 * version is v1 (a flat `options` object) and is upgraded when read, so old run folders report the
 * same; a version newer than this tool reads is refused with one line (exit 2). The types and the
 * parsing are here; reading and writing the file, and the machine's facts, are in store/meta-file.ts.
 */
import { UsageError } from './errors.ts';
import { oneLine } from './escape.ts';
import type { LoadSummary } from './load.ts';
import { parseMetaSpec, upgradeV1Options, type MetaSpec } from './meta-spec.ts';
import { metaSchema } from './meta-schema.ts';
import { checkState } from './state-schema.ts';

/** The meta.json version this tool writes and reads; v1 (no version) is read by upgrading it. */
export const META_VERSION = 2;

export interface FrameworkMeta {
  version: string;
  packages: Record<string, string>;
  validation: string;
  alwaysValidates: boolean;
  /** package → the commit it was built from (its package.json's gitHead), when recorded */
  commits?: Record<string, string>;
}

/**
 * This machine's CPU time for the CPU reference's loop (calibration/lambda-cpu-reference.ts) on one
 * runtime (measure/cpu-speed.ts), as meta.json keeps it.
 */
export interface LocalCpuSpeed {
  iterations: number;
  /** each process's CPU time for the loop, ms */
  cpuMs: number[];
}

/** What meta.json says of a run's Lambda cells (runs without Lambda cells have none). */

export interface LambdaMeta {
  /** each cell (by label): how it started and its events' payload format; for `ric`, the node flags and the variables the bootstrap adds */
  starts: Record<string, { bootstrap: string; runtime: string; eventFormat: string; flags?: string[]; env?: Record<string, string> }>;
  /** the client, when a cell started with it */
  client?: string;
  /** the variables every Lambda child gets (values per sample: the Runtime API's address, the log stream) */
  variables: string[];
  /**
   * by the cells' runtime: this machine's CPU time for the CPU reference's loop on that runtime's node
   * (measure/cpu-speed.ts), which converts the cells' invocation CPU time to Lambda's speed
   */
  cpuSpeed?: Record<string, LocalCpuSpeed>;
}

/** What one cell's build ships: its bytes (absent when they could not be found) and what they are, in words. */
export interface ShippedCode {
  bytes?: number;
  what: string;
}

/** The bytes each cell would ship (the levers' answer table); runs before it was recorded have none. */
export interface ShippedMeta {
  /** cellKey → its build's code */
  code: Record<string, ShippedCode>;
  /** cellKey → the bytes its warm compile cache held after the fill (a cache made at build time ships beside the code) */
  compileCache?: Record<string, number>;
}

export interface RunMeta {
  version: typeof META_VERSION;
  tool: string;
  toolVersion: string;
  startedAt: string;
  finishedAt?: string;
  /** wall time of the whole run, generation included */
  durationMs?: number;
  /** the sum of every run's own duration (warm-ups included) */
  samplesDurationMs?: number;
  interrupted?: boolean;
  command: string;
  /** what was asked, typed */
  spec: MetaSpec;
  machine: { os: string; cpu: string; cores: number; memoryGB: number };
  runner: { node: string };
  /** runtime name → exact version the children ran */
  runtimes: Record<string, string>;
  frameworks: Record<string, FrameworkMeta>;
  skipped: Record<string, string>;
  environment: { passed: string[]; dropped: string[] };
  /** the machine's load before, during and after the samples (runs before it was recorded have none) */
  load?: LoadSummary;
  /** how the Lambda cells started (runs without Lambda cells, and older runs, have none) */
  lambda?: unknown;
  /** how the file lists of a run with cold cells were found and evicted */
  fileCache?: unknown;
  /** what each cell would ship, when a lever of the answer table varies */
  shipped?: ShippedMeta;
  /** `--versions`: each package at a version the cells ran, as npm installed it (runs without it have none) */
  versions?: Record<string, VersionMeta>;
  /** `--calibration`: the calibration table that made the Lambda estimates (runs on the shipped one, and older runs, have none) */
  calibration?: CalibrationMeta;
  /** counted runs: the published fit their estimated ms come from (runs before it was recorded have none, and no estimate) */
  timeEstimate?: TimeEstimateMeta;
}

/**
 * A fit of a count to quiet CPU time (analyse/proxy-fit.ts), as a counted run records the one its report's estimated
 * ms use: ms = `msPerMillion` × millions counted to the first answer, with how far it missed the cells it was fitted
 * on, and what those cells were (a cell outside them is beyond the fit's evidence).
 */
export interface TimeEstimateMeta {
  /** the count it multiplies: instructions, or estimated cycles (--cache-sim) */
  count: 'instructions' | 'cycles';
  msPerMillion: number;
  /** median absolute error over the fit's cells, % */
  medianErrorPct: number;
  /** the cell it missed most, and by how much (% of the measured ms, signed) */
  worst: { cell: string; errorPct: number };
  /** how many cells it was fitted on */
  cells: number;
  /** the largest count of those cells: a larger one is beyond the fit */
  largestCount: number;
  /** dimension → the values the fit's cells had (framework, variant, target, runtime, …) */
  dimensions: Readonly<Record<string, readonly string[]>>;
  /** the runtimes the fit's cells ran (`node v20.20.2`) */
  runtimeVersions: readonly string[];
  machine: string;
  /** where it is published */
  finding: string;
  date: string;
}

/** A calibration file: its path relative to where the run was started, the sha256 of its bytes, and the fit's own source and dates. */
export interface CalibrationMeta {
  file: string;
  sha256: string;
  source?: string;
  from?: string;
  to?: string;
}

function parseCalibrationMeta(v: unknown): CalibrationMeta | undefined {
  if (!isJsonObject(v) || typeof v.file !== 'string' || typeof v.sha256 !== 'string') return undefined;
  const optional = (key: 'source' | 'from' | 'to') => (typeof v[key] === 'string' ? { [key]: v[key] } : {});
  return { file: v.file, sha256: v.sha256, ...optional('source'), ...optional('from'), ...optional('to') };
}

/** A package at a version as installed: where npm took it from and the tarball's integrity. */
export interface VersionMeta {
  resolved: string;
  integrity: string;
}

export const META_FILE = 'meta.json';

/**
 * meta.json's text as the reports read it (store/meta-file.ts reads the file): text that is not JSON,
 * JSON that is not an object, or a version newer than this tool reads is a UsageError naming `file`.
 */
export function parseMetaText(text: string, file: string): RunMeta {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // corrupt is not missing: the run's environment would be reported as unknown while the file says otherwise
    const why = oneLine((error as Error).message).slice(0, 120);
    throw new UsageError(`${file} is not valid JSON (${why}): repair or remove it, and the samples report without it`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const found = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new UsageError(`${file} is not a run's meta.json (a JSON object expected, found ${found})`);
  }
  const version = metaVersionOf(value as Json);
  if (version === undefined || version > META_VERSION) {
    const found = JSON.stringify((value as Json).version).slice(0, 40);
    throw new UsageError(
      `${file} is meta.json version ${found}; this coldstart reads versions 1 to ${META_VERSION}: update coldstart to report this run`,
    );
  }
  // every field a report reads, of its type and range (one line naming the field), before it is read
  return normalizeMeta(checkState(metaSchema, value, file));
}

/** 1 for a meta.json without a version (v1), its version when a known one, undefined when not one this tool knows. */
function metaVersionOf(value: Json): number | undefined {
  if (!('version' in value)) return 1;
  const version = value.version;
  return typeof version === 'number' && Number.isInteger(version) && version >= 1 ? version : undefined;
}

type Json = Record<string, unknown>;
const isJsonObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown, otherwise = 'unknown'): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : otherwise;
const texts = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const textRecord = (v: unknown): Record<string, string> =>
  isJsonObject(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
const finite = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

const byteCount = (v: unknown): number | undefined => {
  const n = finite(v);
  return n !== undefined && n >= 0 && Number.isInteger(n) ? n : undefined;
};

/** meta.json's `shipped`, every entry of its type (an entry that is not one is left out). */
function parseShipped(value: unknown): ShippedMeta | undefined {
  if (!isJsonObject(value)) return undefined;
  const code: Record<string, ShippedCode> = {};
  for (const [key, entry] of Object.entries(isJsonObject(value.code) ? value.code : {})) {
    if (!isJsonObject(entry) || typeof entry.what !== 'string') continue;
    const bytes = byteCount(entry.bytes);
    code[key] = bytes === undefined ? { what: entry.what } : { bytes, what: entry.what };
  }
  const caches = isJsonObject(value.compileCache) ? value.compileCache : undefined;
  const compileCache = caches
    ? Object.fromEntries(Object.entries(caches).flatMap(([key, v]) => (byteCount(v) === undefined ? [] : [[key, byteCount(v)!]])))
    : undefined;
  return { code, ...(compileCache ? { compileCache } : {}) };
}

/**
 * meta.json as the reports read it: a run folder may come from anywhere, so every field a report
 * shows gets the type it needs (a text that is not one reads `unknown`, a list or map that is not one
 * reads empty); the rest is kept as it is for the readers that check their own fields.
 */
export function normalizeMeta(value: Json): RunMeta {
  const { options, calibration: calibrationValue, ...rest } = value;
  const calibration = parseCalibrationMeta(calibrationValue);
  const spec = metaVersionOf(value) === 1 ? upgradeV1Options(options) : parseMetaSpec(value.spec);
  const machine = isJsonObject(value.machine) ? value.machine : {};
  const runner = isJsonObject(value.runner) ? value.runner : {};
  const environment = isJsonObject(value.environment) ? value.environment : {};
  const frameworks = isJsonObject(value.frameworks) ? value.frameworks : {};
  const durationMs = finite(value.durationMs);
  const samplesDurationMs = finite(value.samplesDurationMs);
  const shipped = parseShipped(value.shipped);
  return {
    ...rest,
    ...(calibration ? { calibration } : {}),
    version: META_VERSION,
    tool: text(value.tool),
    toolVersion: text(value.toolVersion),
    startedAt: text(value.startedAt),
    ...(typeof value.finishedAt === 'string' ? { finishedAt: value.finishedAt } : { finishedAt: undefined }),
    durationMs,
    samplesDurationMs,
    interrupted: value.interrupted === true,
    command: text(value.command, ''),
    spec,
    machine: { os: text(machine.os), cpu: text(machine.cpu), cores: finite(machine.cores) ?? 0, memoryGB: finite(machine.memoryGB) ?? 0 },
    runner: { node: text(runner.node) },
    runtimes: textRecord(value.runtimes),
    frameworks: Object.fromEntries(
      Object.entries(frameworks)
        .filter((e): e is [string, Json] => isJsonObject(e[1]))
        .map(([name, f]) => [
          name,
          {
            version: text(f.version),
            packages: textRecord(f.packages),
            validation: text(f.validation, ''),
            alwaysValidates: f.alwaysValidates === true,
            ...(isJsonObject(f.commits) ? { commits: textRecord(f.commits) } : {}),
          },
        ]),
    ),
    skipped: textRecord(value.skipped),
    environment: { passed: texts(environment.passed), dropped: texts(environment.dropped) },
    ...(shipped ? { shipped } : { shipped: undefined }),
    ...(isJsonObject(value.versions) ? { versions: parseVersionsMeta(value.versions) } : { versions: undefined }),
  };
}

/** meta.json's `versions`: each package at a version with its source and integrity (an entry that is not one is left out). */
function parseVersionsMeta(value: Json): Record<string, VersionMeta> {
  return Object.fromEntries(
    Object.entries(value).flatMap(([name, v]) =>
      isJsonObject(v) && typeof v.resolved === 'string' && typeof v.integrity === 'string'
        ? [[name, { resolved: v.resolved, integrity: v.integrity }]]
        : [],
    ),
  );
}

/** The dropped names worth a line in a report: the ones that change how node starts. */
export function notableDropped(dropped: string[]): string[] {
  return dropped.filter((name) => /^(NODE_|UV_|BUN_)/.test(name) || name === 'TZ');
}
