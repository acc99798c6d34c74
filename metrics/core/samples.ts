/**
 * One line of samples.jsonl: one run of one generated file. Read back, each line is untrusted JSON (a
 * run folder may come from anywhere, be edited by hand or be torn): a record is taken only when every
 * figure a report computes with is a finite, non-negative number within what a timeline can hold, so
 * no table shows `-Infinity` or `NaN`; otherwise the error names the line, the field and its value.
 * Appending and reading the file are store/samples-file.ts.
 */
import { parseCell, type Cell } from './cell.ts';

/** The file of a run folder that holds every sample, one JSON record per line. */
export const SAMPLES_FILE = 'samples.jsonl';

/** Metrics on the sample's timeline: milliseconds since the runner's spawn call. */
export const METRICS = ['processStart', 'start', 'imported', 'startup', 'listen', 'init', 'firstResponse'] as const;
export type Metric = (typeof METRICS)[number];
/** The three the tables lead with. */
export const HEADLINE_METRICS = ['startup', 'listen', 'firstResponse'] as const satisfies readonly Metric[];

/**
 * A sample's marks. Every target has firstResponse; a server has `listen` (bound and accepting), a
 * Lambda handler `init` (its first `next` to the Runtime API: where Lambda ends INIT); a record
 * imported from CloudWatch has only `init` and `firstResponse`.
 */
export type Marks = { firstResponse: number } & Partial<Record<Metric, number>>;

/** A sample run in its own cgroup at a memory size: what the limits did. */
export interface LimitsRecord {
  memoryMB: number;
  /** the cgroup's memory peak, bytes (page cache the child read counts too) */
  peakBytes?: number;
  outOfMemory: boolean;
  /** CPU time the child used during INIT (at the INIT share) and for the first request (at the memory's share), ms */
  initCpuMs?: number;
  requestCpuMs?: number;
  /** time the memory's CPU share held the first request back, ms, and in how many quota periods */
  requestThrottledMs?: number;
  requestThrottledPeriods?: number;
}

/** What Lambda's REPORT line says of an invocation, for targets that run as Lambda does. */
export interface LambdaFigures {
  /** Init Duration: spawn → the first `next` */
  initMs: number;
  /** Duration: the event handed out → its response received */
  durationMs: number;
  /** Billed Duration: init + duration, each rounded up to 1 ms (Lambda bills INIT of on-demand functions since 1 Aug 2025) */
  billedMs: number;
  /** Max Memory Used: the child's peak resident set, MB */
  maxMemoryUsedMB?: number;
  /** Memory Size of the function, MB */
  memorySizeMB?: number;
  /** CPU time the child used during the invocation (its threads' scheduled time, event handed out → response), ms; absent in older runs */
  invokeCpuMs?: number;
  /**
   * INIT's split (from the probe; absent in older runs, for a user's handler before it had it and for an ES module handler): the
   * time inside require from the file's first statement to its `startup` mark (resolving, reading,
   * compiling and running the required modules), ms on the child's clock
   */
  initLoadingMs?: number;
  /** the rest of the file's own INIT, `start` → `startup` less the loading: the app's own work once its modules are loaded, ms */
  initRunningMs?: number;
  /**
   * the loading part in the process's CPU time (process.cpuUsage user + system over the same require
   * calls), ms; absent from runs before it
   */
  initLoadingCpuMs?: number;
  /**
   * the running part in the process's CPU time (the CPU marks `start` → `startup` less initLoadingCpuMs):
   * the kind of time the CPU reference's loop is timed in, which load inflates far less than wall time; ms
   */
  initRunningCpuMs?: number;
  /** modules compiled in that time (CommonJS: each Module#_compile) */
  initModules?: number;
  /** their source size (characters compiled; bytes for ASCII sources) */
  initModuleBytes?: number;
}

/**
 * CPU time (user + system) the child had used at each mark, in ms since its process started, as
 * process.cpuUsage() reports it in the child. Every one is optional: runs recorded before the
 * child reported CPU have none, a child that never wrote its after-answer line has no
 * firstResponse, and a target without a listening server has no listen.
 */
export const CPU_METRICS = ['start', 'imported', 'startup', 'listen', 'firstResponse'] as const;
export type CpuMetric = (typeof CPU_METRICS)[number];
export type CpuMarks = Partial<Record<CpuMetric, number>>;

/**
 * The first hits of a sample: after its timed first answer, one request each to K further distinct
 * routes (routes.ts firstHitRoutes), sent one after the other, each answer verified.
 */
export interface FirstHits {
  /** the routes hit, in order */
  routes: number[];
  /** each one's latency, request sent → whole answer received, ms */
  latencyMs: number[];
  /** when the last of them was answered, ms on the spawn timeline: all K routes warm */
  allWarm: number;
}

/**
 * Instructions the child had executed at each mark, counted under valgrind (callgrind's Ir: every
 * guest instruction of every thread since exec), for cells with measure `instructions`. Cumulative
 * like `cpu`; the phases are their differences. A server has `listen`, a Lambda handler `init`.
 */
export const INSTRUCTION_MARKS = ['start', 'imported', 'startup', 'listen', 'init', 'firstResponse'] as const;
export type InstructionMark = (typeof INSTRUCTION_MARKS)[number];
export type InstructionMarks = Partial<Record<InstructionMark, number>>;

export interface InvalidBodyCheck {
  ok: boolean;
  status?: number;
  reason?: string;
}

export interface SampleRecord {
  cell: Cell;
  /** warm-up runs are written too (for diagnosis) but never aggregated */
  phase: 'warmup' | 'sample';
  /** 1-based sample number within the cell (warm-ups count separately) */
  index: number;
  ok: boolean;
  /** why the sample failed, one line */
  error?: string;
  /**
   * set (with ok false) when the cell cannot be measured on its runtime (e.g. the compile cache on
   * Node 20): a property of the runtime, not a failure of the framework; never counted as failed
   */
  unsupported?: string;
  /** the last lines the child wrote on stderr, for failed samples */
  stderrTail?: string;
  marks?: Marks;
  /** the REPORT figures, for Lambda-shaped targets */
  lambda?: LambdaFigures;
  /** what the memory size's limits did, for cells run at one (--lambda-memory) */
  limits?: LimitsRecord;
  /** the child's CPU time at its marks (absent in older runs) */
  cpu?: CpuMarks;
  /** instructions at the marks, for counted cells (measure `instructions`) */
  instructions?: InstructionMarks;
  /** estimated cycles at the marks, for counted cells under `--cache-sim` (measure/counting.ts estimatedCycles) */
  cycles?: InstructionMarks;
  /** under `--count-packages`: each npm package's own instructions while its CommonJS loading ran, `(app)` the rest, to the first answer */
  packages?: Record<string, number>;
  rss?: number;
  heapUsed?: number;
  /** `node v20.20.2` as the child reported it */
  runtimeVersion?: string;
  /** wall time from spawn until the child and its group were gone */
  durationMs: number;
  /** ISO time the sample started */
  at: string;
  /** the once-per-cell check that an invalid body gets 4xx, on the run that did it */
  invalidBody?: InvalidBodyCheck;
  /** the first hits after the timed answer (runs with --first-hits above 0) */
  firstHits?: FirstHits;
  /**
   * a server whose readiness was probed from outside (a Lambda Web Function): its own listen mark, ms on
   * the timeline; `marks.listen` is when its address accepted a connection, as Lambda sees it
   */
  ownListen?: number;
}

/** The largest time a record may hold, ms: about 11.6 days, far beyond any sample's limit. */
export const MAX_RECORD_MS = 1e9;

export type ParsedRecord = { ok: true; record: SampleRecord } | { ok: false; reason: string };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Why `value` at `where` is not a figure (a finite number from 0 to max), or undefined when it is one. */
function badNumber(where: string, value: unknown, max = MAX_RECORD_MS): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= max) return undefined;
  const shown = typeof value === 'number' || value === undefined ? String(value) : JSON.stringify(value);
  return `${where} is ${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown}, not a number from 0 to ${max}`;
}

/**
 * Every own key of an optional object of figures must be one; `names` limits which keys count, and
 * `text` lets text and flags stand beside the figures (the REPORT figures' function name, the limits' outOfMemory).
 */
function badFigures(
  where: string,
  value: unknown,
  options: { names?: readonly string[]; max?: number; text?: boolean } = {},
): string | undefined {
  const { names, max, text } = options;
  if (value === undefined) return undefined;
  if (!isObject(value)) return `${where} is not an object`;
  for (const [name, figure] of Object.entries(value)) {
    if (names && !names.includes(name)) continue;
    if (text && (typeof figure === 'boolean' || typeof figure === 'string')) continue;
    const bad = badNumber(`${where}.${name}`, figure, max);
    if (bad) return bad;
  }
  return undefined;
}

/** The finite, non-negative numbers of a stored `cpu` object under known names; undefined when there are none. */
export function parseCpuMarks(value: unknown): CpuMarks | undefined {
  if (!isObject(value)) return undefined;
  const marks: CpuMarks = {};
  for (const name of CPU_METRICS) {
    const ms = value[name];
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 && ms <= MAX_RECORD_MS) marks[name] = ms;
  }
  return Object.keys(marks).length ? marks : undefined;
}

/** A stored `firstHits` object when it is one (routes and latencies of equal length, finite numbers); else undefined. */
export function parseFirstHits(value: unknown): FirstHits | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { routes, latencyMs, allWarm } = value as Record<string, unknown>;
  const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
  if (!Array.isArray(routes) || !Array.isArray(latencyMs) || routes.length !== latencyMs.length || !finite(allWarm)) return undefined;
  if (!routes.every((r) => Number.isInteger(r)) || !latencyMs.every(finite)) return undefined;
  return { routes: routes.map(Number), latencyMs: latencyMs.map(Number), allWarm };
}

/** One parsed JSON value of samples.jsonl as a record, or why it is not one. */
export function parseSampleRecord(value: unknown): ParsedRecord {
  if (!isObject(value)) return { ok: false, reason: 'not a JSON object' };
  const cell = parseCell(value.cell);
  if (!cell) return { ok: false, reason: 'no valid cell (framework, variant, routes and names of letters, digits and ._+:@/-)' };
  if (typeof value.ok !== 'boolean') return { ok: false, reason: '"ok" is not true or false' };
  if (value.phase !== 'sample' && value.phase !== 'warmup') return { ok: false, reason: '"phase" is neither sample nor warmup' };
  if (typeof value.index !== 'number' || !Number.isInteger(value.index) || value.index < 0)
    return { ok: false, reason: '"index" is not a whole number' };
  for (const name of ['error', 'unsupported', 'stderrTail', 'runtimeVersion', 'at'] as const) {
    if (value[name] !== undefined && typeof value[name] !== 'string') return { ok: false, reason: `"${name}" is not text` };
  }
  const bad =
    badFigures('marks', value.marks, { names: METRICS }) ??
    (value.ok && !isObject(value.marks) ? 'a successful sample without marks' : undefined) ??
    (value.ok && isObject(value.marks) && value.marks.firstResponse === undefined
      ? 'a successful sample without marks.firstResponse'
      : undefined) ??
    badFigures('lambda', value.lambda, { text: true }) ??
    badFigures('limits', value.limits, { max: Number.MAX_SAFE_INTEGER, text: true }) ??
    (value.rss === undefined ? undefined : badNumber('rss', value.rss, Number.MAX_SAFE_INTEGER)) ??
    (value.heapUsed === undefined ? undefined : badNumber('heapUsed', value.heapUsed, Number.MAX_SAFE_INTEGER)) ??
    (value.durationMs === undefined ? undefined : badNumber('durationMs', value.durationMs)) ??
    (value.ownListen === undefined ? undefined : badNumber('ownListen', value.ownListen));
  if (bad) return { ok: false, reason: bad };
  const { cpu, marks, instructions, cycles, packages, firstHits, ...rest } = value as unknown as SampleRecord;
  const cpuMarks = parseCpuMarks(cpu);
  const counts = parseInstructionMarks(instructions);
  const cycleCounts = parseInstructionMarks(cycles);
  const packageCounts = parsePackageCounts(packages);
  const hits = parseFirstHits(firstHits);
  // only the marks of known names go on (all checked above): an unknown key never reaches a table
  const known = isObject(marks)
    ? (Object.fromEntries(METRICS.filter((m) => marks[m] !== undefined).map((m) => [m, marks[m]])) as Marks)
    : undefined;
  return {
    ok: true,
    record: {
      ...rest,
      cell,
      ...(known ? { marks: known } : {}),
      ...(cpuMarks ? { cpu: cpuMarks } : {}),
      ...(counts ? { instructions: counts } : {}),
      ...(cycleCounts ? { cycles: cycleCounts } : {}),
      ...(packageCounts ? { packages: packageCounts } : {}),
      ...(hits ? { firstHits: hits } : {}),
    },
  };
}

/** The non-negative integers of a stored `instructions` object under known names; undefined when there are none. */
export function parseInstructionMarks(value: unknown): InstructionMarks | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const marks: InstructionMarks = {};
  for (const name of INSTRUCTION_MARKS) {
    const count = (value as Record<string, unknown>)[name];
    if (typeof count === 'number' && Number.isSafeInteger(count) && count >= 0) marks[name] = count;
  }
  return Object.keys(marks).length ? marks : undefined;
}

/** A stored `packages` object: its non-negative integer counts (any name: a package's); undefined when there are none. */
function parsePackageCounts(value: unknown): Record<string, number> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const counts = Object.entries(value as Record<string, unknown>).filter(
    (entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isSafeInteger(entry[1]) && entry[1] >= 0,
  );
  return counts.length ? Object.fromEntries(counts) : undefined;
}

/** The metric --export-json writes as times when --export-metric is not given. */
export const DEFAULT_EXPORT_METRIC: Metric = 'firstResponse';
