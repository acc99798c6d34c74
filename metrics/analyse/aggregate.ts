/** From samples to one summary per cell. Only phase 'sample' counts; failures are counted, never dropped. */
import { max, mean, median, min, sampleStandardDeviation } from 'simple-statistics';
import { cellKey, compareCells, type Cell } from '../core/cell.ts';
import { CPU_METRICS, METRICS, type CpuMetric, type InvalidBodyCheck, type Metric, type SampleRecord } from '../core/samples.ts';
import { INSTRUCTION_FIGURES, instructionFigures, type InstructionFigure } from './instructions.ts';
import { bootstrapMedianCI, isWideSpread, madOutliers, type Interval } from './stats.ts';

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
  /** counted cells: the instructions of each phase and the total, over the successful samples */
  instructions?: Partial<Record<InstructionFigure, Stats>>;
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
}

function lambdaSummary(samples: SampleRecord[], key: string): LambdaSummary | undefined {
  const figures = samples.flatMap((s) => (s.lambda ? [s.lambda] : []));
  const initMs = describe(
    figures.map((f) => f.initMs),
    `${key}|lambda.init`,
  );
  const durationMs = describe(
    figures.map((f) => f.durationMs),
    `${key}|lambda.duration`,
  );
  const billedMs = describe(
    figures.map((f) => f.billedMs),
    `${key}|lambda.billed`,
  );
  if (!initMs || !durationMs || !billedMs) return undefined;
  const invokeCpuMs = describe(
    figures.flatMap((f) => (f.invokeCpuMs === undefined ? [] : [f.invokeCpuMs])),
    `${key}|lambda.invokeCpu`,
  );
  const memory = figures.flatMap((f) => (f.maxMemoryUsedMB === undefined ? [] : [f.maxMemoryUsedMB]));
  return {
    initMs,
    durationMs,
    billedMs,
    // a loop, not Math.max(...memory): an import of many cold starts must not overflow the stack
    maxMemoryUsedMB: memory.length ? memory.reduce((a, b) => Math.max(a, b)) : undefined,
    memorySizeMB: figures.find((f) => f.memorySizeMB !== undefined)?.memorySizeMB,
    ...(invokeCpuMs ? { invokeCpuMs } : {}),
  };
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

/** `seed` makes the bootstrap reproducible: aggregate passes the cell key and the metric. */
export function describe(values: number[], seed = ''): Stats | undefined {
  if (values.length === 0) return undefined;
  const lowest = min(values);
  const highest = max(values);
  return {
    n: values.length,
    median: median(values),
    mean: mean(values),
    stddev: values.length > 1 ? sampleStandardDeviation(values) : undefined,
    min: lowest,
    max: highest,
    values,
    ci95: bootstrapMedianCI(values, `coldstart|${seed}`),
    outliers: madOutliers(values),
    wide: isWideSpread(lowest, highest),
  };
}

export function aggregate(samples: SampleRecord[]): CellSummary[] {
  const groups = new Map<string, SampleRecord[]>();
  for (const sample of samples) {
    const key = cellKey(sample.cell);
    const group = groups.get(key);
    if (group) group.push(sample);
    else groups.set(key, [sample]);
  }
  const summaries: CellSummary[] = [];
  for (const [key, group] of groups) {
    const measured = group.filter((s) => s.phase === 'sample');
    const good = measured.filter((s) => s.ok && s.marks);
    const bad = measured.filter((s) => !s.ok && !s.unsupported);
    const unsupported = measured.find((s) => s.unsupported)?.unsupported;
    const reasons = new Map<string, number>();
    for (const s of bad) reasons.set(s.error ?? 'unknown', (reasons.get(s.error ?? 'unknown') ?? 0) + 1);
    const metrics: Partial<Record<Metric, Stats>> = {};
    for (const metric of METRICS) {
      const stats = describe(
        good.flatMap((s) => (s.marks![metric] === undefined ? [] : [s.marks![metric]])),
        `${key}|${metric}`,
      );
      if (stats) metrics[metric] = stats;
    }
    const cpu: Partial<Record<CpuMetric, Stats>> = {};
    for (const metric of CPU_METRICS) {
      const stats = describe(
        good.flatMap((s) => (s.cpu?.[metric] === undefined ? [] : [s.cpu[metric]])),
        `${key}|cpu.${metric}`,
      );
      if (stats) cpu[metric] = stats;
    }
    const instructions: Partial<Record<InstructionFigure, Stats>> = {};
    const figures = good.flatMap((s) => (s.instructions ? [instructionFigures(s.instructions)] : []));
    for (const figure of INSTRUCTION_FIGURES) {
      const stats = describe(
        figures.flatMap((f) => (f[figure] === undefined ? [] : [f[figure]])),
        `${key}|instructions.${figure}`,
      );
      if (stats) instructions[figure] = stats;
    }
    const checks = group.filter((s) => s.invalidBody);
    const lambda = lambdaSummary(good, key);
    const firstHits = firstHitStats(good, key);
    summaries.push({
      cell: group[0]!.cell,
      ok: good.length,
      failed: bad.length,
      errors: [...reasons].map(([reason, count]) => ({ reason, count })),
      metrics,
      ...(Object.keys(cpu).length ? { cpu } : {}),
      ...(Object.keys(instructions).length ? { instructions } : {}),
      rssMedian: describe(good.flatMap((s) => (s.rss === undefined ? [] : [s.rss])))?.median,
      heapUsedMedian: describe(good.flatMap((s) => (s.heapUsed === undefined ? [] : [s.heapUsed])))?.median,
      // any failed check fails the cell's check
      invalidBody: checks.find((s) => !s.invalidBody!.ok)?.invalidBody ?? checks[0]?.invalidBody,
      runtimeVersion: good[0]?.runtimeVersion ?? group.find((s) => s.runtimeVersion)?.runtimeVersion,
      ...(unsupported !== undefined ? { unsupported } : {}),
      ...(lambda ? { lambda } : {}),
      ...(firstHits ? { firstHits } : {}),
    });
  }
  return summaries.sort((a, b) => compareCells(a.cell, b.cell));
}
