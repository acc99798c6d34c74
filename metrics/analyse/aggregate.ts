/** From samples to one summary per cell. Only phase 'sample' counts; failures are counted, never dropped. */
import { max, mean, min, quantileSorted, sampleStandardDeviation } from 'simple-statistics';
import { cellKey, compareCells, type Cell } from '../core/cell.ts';
import {
  CPU_METRICS,
  METRICS,
  type CpuMetric,
  type InvalidBodyCheck,
  type LambdaFigures,
  type Metric,
  type SampleRecord,
} from '../core/samples.ts';
import { INSTRUCTION_FIGURES, instructionFigures, type InstructionFigure } from './instructions.ts';
import { float64s, type Column } from '../core/column.ts';
import { bootstrapMedianCI, isWideSpread, madOutliers, medianOf, type Interval } from './stats.ts';

/** The marks summarised again from the child's `start` mark (CellSummary.fromStart). */
export const FROM_START_METRICS = ['startup', 'listen'] as const satisfies readonly Metric[];
export type FromStartMetric = (typeof FROM_START_METRICS)[number];

/** A sample's FROM_START_METRICS: each mark minus its `start` mark, where the sample has both. */
export function fromStartFigures(marks: Partial<Record<Metric, number>>): Partial<Record<FromStartMetric, number>> {
  const figures: Partial<Record<FromStartMetric, number>> = {};
  if (marks.start === undefined) return figures;
  for (const metric of FROM_START_METRICS) {
    const value = marks[metric];
    if (value !== undefined) figures[metric] = value - marks.start;
  }
  return figures;
}

export interface Stats {
  n: number;
  median: number;
  mean: number;
  /** sample standard deviation (n - 1); undefined with one value */
  stddev: number | undefined;
  min: number;
  max: number;
  /** in sample order; every metric of a cell lists the same samples in the same order */
  values: number[];
  /** 95 % bootstrap CI of the median (seeded, percentile method); undefined with one value */
  ci95: Interval | undefined;
  /** values flagged by the MAD test (|0.6745·(x − median)/MAD| > 3.5) */
  outliers: number[];
  /** max/min > 1.5: too noisy to read the median as a fact */
  wide: boolean;
}

export interface CellSummary {
  cell: Cell;
  /** samples that answered correctly */
  ok: number;
  failed: number;
  /** distinct failure reasons with their counts */
  errors: { reason: string; count: number }[];
  metrics: Partial<Record<Metric, Stats>>;
  /**
   * The child's CPU time (user + system, ms since its process started) at each mark, with the same
   * statistics as wall time, over the successful samples that reported it (runs recorded before the
   * child reported CPU have none; `values` can then be fewer than the wall metrics')
   */
  cpu?: Partial<Record<CpuMetric, Stats>>;
  /**
   * `startup` and `listen` from the child's first statement (its `start` mark) instead of from the
   * runner's spawn: the clock of the seed's table (MionKit/Benchmarks starts `process.hrtime()` on the
   * route file's first line), over the successful samples that have both marks; absent when none has
   */
  fromStart?: Partial<Record<FromStartMetric, Stats>>;
  /** counted cells: the instructions of each phase and the total, over the successful samples */
  instructions?: Partial<Record<InstructionFigure, Stats>>;
  /** counted cells under --cache-sim: the estimated cycles of each phase and the total */
  cycles?: Partial<Record<InstructionFigure, Stats>>;
  rssMedian: number | undefined;
  heapUsedMedian: number | undefined;
  /** the once-per-cell invalid body check; undefined when the cell does not validate or it never ran */
  invalidBody: InvalidBodyCheck | undefined;
  runtimeVersion: string | undefined;
  /** set when the cell cannot be measured on its runtime (e.g. compile cache on Node 20): why; never a failure */
  unsupported?: string;
  /** Lambda-shaped cells: the REPORT figures over the successful samples */
  lambda?: LambdaSummary;
  /** runs with --first-hits: every first-hit latency of the successful samples pooled, and when all were warm (ms from spawn) */
  firstHits?: { latencyMs: Stats; allWarmMs: Stats };
  /** servers probed from outside (lambda-web): when the address accepted less the server's own listen mark, ms */
  acceptGapMs?: Stats;
}

/** What Lambda's REPORT lines of a cell's samples say, summarised. */
export interface LambdaSummary {
  initMs: Stats;
  durationMs: Stats;
  billedMs: Stats;
  /** the largest Max Memory Used of the samples, MB */
  maxMemoryUsedMB: number | undefined;
  memorySizeMB: number | undefined;
  /** the invocation's CPU time, over the samples that recorded it (absent in older runs) */
  invokeCpuMs?: Stats;
  /** each Init value's sample index (`initMs.values` order): pairs a cell's samples with another cell's of the same round */
  sampleIndex?: number[];
  /** INIT split into loading and running, over the samples that recorded it (absent in older runs and for a user's handler) */
  split?: InitSplitSummary;
}

/** INIT's split over a cell's samples (samples.ts initLoadingMs…): each figure's stats, and Init less running per sample. */
export interface InitSplitSummary {
  loadingMs: Stats;
  runningMs: Stats;
  modules: Stats;
  moduleBytes: Stats;
  /** each sample's Init less its running part (what loading code and the runtime took), in `index` order */
  initLessRunningMs: Stats;
  /** each of those values' sample index: pairs them with the reference's of the same round */
  index: number[];
  /**
   * the running part in the process's CPU time (samples.ts initRunningCpuMs), only when every sample of
   * the split recorded it (runs before it have none): the estimate then scales it, not the wall time
   */
  runningCpuMs?: Stats;
}

/** The first hits of a cell's successful samples: every latency pooled, and when each sample had them all warm. */
export function firstHitStats(samples: readonly SampleRecord[], key: string): { latencyMs: Stats; allWarmMs: Stats } | undefined {
  const withHits = samples.filter((s) => s.firstHits);
  const latencyMs = describe(
    withHits.flatMap((s) => s.firstHits!.latencyMs),
    `${key}|firstHits`,
  );
  const allWarmMs = describe(
    withHits.map((s) => s.firstHits!.allWarm),
    `${key}|allWarm`,
  );
  return latencyMs && allWarmMs ? { latencyMs, allWarmMs } : undefined;
}

/** The 25th and 75th percentiles of a metric's values (simple-statistics' quantile of the sorted values); with one value, both are it. */
export function quartiles(stats: Stats): { p25: number; p75: number } {
  // a typed copy, outside the JS heap (a cell may hold a million values)
  const sorted = Float64Array.from(stats.values).sort() as unknown as number[];
  return { p25: quantileSorted(sorted, 0.25), p75: quantileSorted(sorted, 0.75) };
}

/**
 * `seed` makes the bootstrap reproducible: aggregate passes the cell key and the metric. The bootstrap
 * interval (2,000 seeded resamples, most of a report's CPU time) is computed when first read, once:
 * many described columns (rss, heap, CPU marks) are read only for their median.
 */
export function describe(values: number[], seed = ''): Stats | undefined {
  if (values.length === 0) return undefined;
  const lowest = min(values);
  const highest = max(values);
  let ci95: { value: Interval | undefined } | undefined;
  return {
    n: values.length,
    median: medianOf(values),
    mean: mean(values),
    stddev: values.length > 1 ? sampleStandardDeviation(values) : undefined,
    min: lowest,
    max: highest,
    values,
    get ci95() {
      ci95 ??= { value: bootstrapMedianCI(values, `coldstart|${seed}`) };
      return ci95.value;
    },
    outliers: madOutliers(values),
    wide: isWideSpread(lowest, highest),
  };
}

/** The successful samples' Lambda figures of one cell, column by column. */
class LambdaColumns {
  readonly initMs = float64s();
  readonly durationMs = float64s();
  readonly billedMs = float64s();
  readonly invokeCpuMs = float64s();
  /** a column, not an array pushed to: a million indices grow no array in the JS heap */
  readonly sampleIndex = float64s();
  readonly split = columnsOf(['loadingMs', 'runningMs', 'modules', 'moduleBytes', 'initLessRunningMs'] as const);
  readonly splitIndex: number[] = [];
  readonly runningCpuMs = float64s();
  maxMemoryUsedMB: number | undefined;
  memorySizeMB: number | undefined;

  add(f: LambdaFigures, index: number): void {
    this.initMs.push(f.initMs);
    this.sampleIndex.push(index);
    this.durationMs.push(f.durationMs);
    this.billedMs.push(f.billedMs);
    if (f.invokeCpuMs !== undefined) this.invokeCpuMs.push(f.invokeCpuMs);
    if (f.initLoadingMs !== undefined && f.initRunningMs !== undefined) {
      pushFigures(this.split, {
        loadingMs: f.initLoadingMs,
        runningMs: f.initRunningMs,
        modules: f.initModules,
        moduleBytes: f.initModuleBytes,
        initLessRunningMs: f.initMs - f.initRunningMs,
      });
      this.splitIndex.push(index);
      if (f.initRunningCpuMs !== undefined) this.runningCpuMs.push(f.initRunningCpuMs);
    }
    // a running maximum, not Math.max(...memory): an import of many cold starts must not overflow the stack
    if (f.maxMemoryUsedMB !== undefined) this.maxMemoryUsedMB = Math.max(this.maxMemoryUsedMB ?? -Infinity, f.maxMemoryUsedMB);
    if (this.memorySizeMB === undefined && f.memorySizeMB !== undefined) this.memorySizeMB = f.memorySizeMB;
  }

  summary(key: string): LambdaSummary | undefined {
    const initMs = describe(this.initMs.take(), `${key}|lambda.init`);
    const durationMs = describe(this.durationMs.take(), `${key}|lambda.duration`);
    const billedMs = describe(this.billedMs.take(), `${key}|lambda.billed`);
    if (!initMs || !durationMs || !billedMs) return undefined;
    const invokeCpuMs = describe(this.invokeCpuMs.take(), `${key}|lambda.invokeCpu`);
    const split = this.splitSummary(key);
    return {
      initMs,
      durationMs,
      billedMs,
      maxMemoryUsedMB: this.maxMemoryUsedMB,
      memorySizeMB: this.memorySizeMB,
      ...(invokeCpuMs ? { invokeCpuMs } : {}),
      sampleIndex: this.sampleIndex.take(),
      ...(split ? { split } : {}),
    };
  }

  private splitSummary(key: string): InitSplitSummary | undefined {
    const stats = describeColumns(this.split, (name) => `${key}|lambda.split.${name}`);
    const { loadingMs, runningMs, modules, moduleBytes, initLessRunningMs } = stats;
    if (!loadingMs || !runningMs || !modules || !moduleBytes || !initLessRunningMs) return undefined;
    const cpu = this.runningCpuMs.take();
    const runningCpuMs = cpu.length === this.splitIndex.length ? describe(cpu, `${key}|lambda.split.runningCpuMs`) : undefined;
    return {
      loadingMs,
      runningMs,
      modules,
      moduleBytes,
      initLessRunningMs,
      index: this.splitIndex,
      ...(runningCpuMs ? { runningCpuMs } : {}),
    };
  }
}

type Columns<K extends string> = Record<K, Column<Float64Array>>;

function columnsOf<K extends string>(names: readonly K[]): Columns<K> {
  return Object.fromEntries(names.map((name) => [name, float64s()])) as unknown as Columns<K>;
}

/** Push each defined figure onto its column. */
function pushFigures<K extends string>(columns: Columns<K>, figures: Partial<Record<K, number>> | undefined): void {
  if (!figures) return;
  for (const name of Object.keys(columns) as K[]) {
    const value = figures[name];
    if (value !== undefined) columns[name].push(value);
  }
}

function describeColumns<K extends string>(columns: Columns<K>, seed: (name: K) => string): Partial<Record<K, Stats>> {
  const stats: Partial<Record<K, Stats>> = {};
  for (const name of Object.keys(columns) as K[]) {
    const described = describe(columns[name].take(), seed(name));
    if (described) stats[name] = described;
  }
  return stats;
}

/**
 * One cell's samples as they are read: counts, failure reasons and one column of numbers per figure,
 * not the records (a run folder may hold a million samples of a cell).
 */
class CellAccumulator {
  private ok = 0;
  private failed = 0;
  private readonly reasons = new Map<string, number>();
  private unsupported: string | undefined;
  private failedCheck: InvalidBodyCheck | undefined;
  private firstCheck: InvalidBodyCheck | undefined;
  private firstGood: { runtimeVersion: string | undefined } | undefined;
  private anyRuntimeVersion: string | undefined;
  private readonly metrics = columnsOf(METRICS);
  private readonly cpu = columnsOf(CPU_METRICS);
  private readonly fromStart = columnsOf(FROM_START_METRICS);
  private readonly instructions = columnsOf(INSTRUCTION_FIGURES);
  private readonly cycles = columnsOf(INSTRUCTION_FIGURES);
  private readonly rss = float64s();
  private readonly acceptGap = float64s();
  private readonly heapUsed = float64s();
  private readonly lambda = new LambdaColumns();
  private hasLambda = false;
  private readonly firstHits: SampleRecord[] = [];

  constructor(
    readonly cell: Cell,
    private readonly key: string,
  ) {}

  add(s: SampleRecord): void {
    if (s.invalidBody) {
      this.firstCheck ??= s.invalidBody;
      if (!s.invalidBody.ok) this.failedCheck ??= s.invalidBody;
    }
    if (s.runtimeVersion && this.anyRuntimeVersion === undefined) this.anyRuntimeVersion = s.runtimeVersion;
    if (s.phase !== 'sample') return;
    if (s.unsupported && this.unsupported === undefined) this.unsupported = s.unsupported;
    if (!s.ok && !s.unsupported) {
      this.failed++;
      const reason = s.error ?? 'unknown';
      this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
    }
    if (s.ok && s.marks) this.addGood(s, s.marks);
  }

  private addGood(s: SampleRecord, marks: NonNullable<SampleRecord['marks']>): void {
    this.ok++;
    this.firstGood ??= { runtimeVersion: s.runtimeVersion };
    pushFigures(this.metrics, marks);
    pushFigures(this.cpu, s.cpu);
    pushFigures(this.fromStart, fromStartFigures(marks));
    if (s.instructions) pushFigures(this.instructions, instructionFigures(s.instructions));
    if (s.cycles) pushFigures(this.cycles, instructionFigures(s.cycles));
    if (s.rss !== undefined) this.rss.push(s.rss);
    if (s.heapUsed !== undefined) this.heapUsed.push(s.heapUsed);
    if (s.lambda) {
      this.hasLambda = true;
      this.lambda.add(s.lambda, s.index);
    }
    if (s.firstHits) this.firstHits.push(s);
    if (s.ownListen !== undefined && marks.listen !== undefined) this.acceptGap.push(marks.listen - s.ownListen);
  }

  summary(): CellSummary {
    const { key } = this;
    const cpu = describeColumns(this.cpu, (m) => `${key}|cpu.${m}`);
    const fromStart = describeColumns(this.fromStart, (m) => `${key}|fromStart.${m}`);
    const instructions = describeColumns(this.instructions, (f) => `${key}|instructions.${f}`);
    const cycles = describeColumns(this.cycles, (f) => `${key}|cycles.${f}`);
    const lambda = this.hasLambda ? this.lambda.summary(key) : undefined;
    const firstHits = firstHitStats(this.firstHits, key);
    const acceptGapMs = describe(this.acceptGap.take(), `${key}|acceptGap`);
    return {
      cell: this.cell,
      ok: this.ok,
      failed: this.failed,
      errors: [...this.reasons].map(([reason, count]) => ({ reason, count })),
      metrics: describeColumns(this.metrics, (m) => `${key}|${m}`),
      ...(Object.keys(cpu).length ? { cpu } : {}),
      ...(Object.keys(fromStart).length ? { fromStart } : {}),
      ...(Object.keys(instructions).length ? { instructions } : {}),
      ...(Object.keys(cycles).length ? { cycles } : {}),
      rssMedian: describe(this.rss.take())?.median,
      heapUsedMedian: describe(this.heapUsed.take())?.median,
      // any failed check fails the cell's check
      invalidBody: this.failedCheck ?? this.firstCheck,
      runtimeVersion: this.firstGood?.runtimeVersion ?? this.anyRuntimeVersion,
      ...(this.unsupported !== undefined ? { unsupported: this.unsupported } : {}),
      ...(lambda ? { lambda } : {}),
      ...(firstHits ? { firstHits } : {}),
      ...(acceptGapMs ? { acceptGapMs } : {}),
    };
  }
}

/**
 * Samples in, one at a time (a run folder is read line by line), one summary per cell out. Only
 * phase 'sample' counts; failures are counted, never dropped; every metric of a cell lists the same
 * samples in the same order.
 */
export class Aggregator {
  private readonly cells = new Map<string, CellAccumulator>();

  add(sample: SampleRecord): void {
    const key = cellKey(sample.cell);
    let cell = this.cells.get(key);
    if (!cell) this.cells.set(key, (cell = new CellAccumulator(sample.cell, key)));
    cell.add(sample);
  }

  summaries(): CellSummary[] {
    return [...this.cells.values()].map((cell) => cell.summary()).sort((a, b) => compareCells(a.cell, b.cell));
  }
}

export function aggregate(samples: readonly SampleRecord[]): CellSummary[] {
  const aggregator = new Aggregator();
  for (const sample of samples) aggregator.add(sample);
  return aggregator.summaries();
}
