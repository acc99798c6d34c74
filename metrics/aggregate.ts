/** From samples to one summary per cell. Only phase 'sample' counts; failures are counted, never dropped. */
import { max, mean, median, min, sampleStandardDeviation } from 'simple-statistics';
import { cellKey, compareCells, type Cell } from './cell.ts';
import { METRICS, type InvalidBodyCheck, type Metric, type SampleRecord } from './samples.ts';

export interface Stats {
  n: number;
  median: number;
  mean: number;
  /** sample standard deviation (n - 1); undefined with one value */
  stddev: number | undefined;
  min: number;
  max: number;
  values: number[];
}

export interface CellSummary {
  cell: Cell;
  /** samples that answered correctly */
  ok: number;
  failed: number;
  /** distinct failure reasons with their counts */
  errors: { reason: string; count: number }[];
  metrics: Partial<Record<Metric, Stats>>;
  rssMedian: number | undefined;
  heapUsedMedian: number | undefined;
  /** the once-per-cell invalid body check; undefined when the cell does not validate or it never ran */
  invalidBody: InvalidBodyCheck | undefined;
  runtimeVersion: string | undefined;
}

export function describe(values: number[]): Stats | undefined {
  if (values.length === 0) return undefined;
  return {
    n: values.length,
    median: median(values),
    mean: mean(values),
    stddev: values.length > 1 ? sampleStandardDeviation(values) : undefined,
    min: min(values),
    max: max(values),
    values,
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
  for (const group of groups.values()) {
    const measured = group.filter((s) => s.phase === 'sample');
    const good = measured.filter((s) => s.ok && s.marks);
    const bad = measured.filter((s) => !s.ok);
    const reasons = new Map<string, number>();
    for (const s of bad) reasons.set(s.error ?? 'unknown', (reasons.get(s.error ?? 'unknown') ?? 0) + 1);
    const metrics: Partial<Record<Metric, Stats>> = {};
    for (const metric of METRICS) {
      const stats = describe(good.map((s) => s.marks![metric]));
      if (stats) metrics[metric] = stats;
    }
    const checks = group.filter((s) => s.invalidBody);
    summaries.push({
      cell: group[0]!.cell,
      ok: good.length,
      failed: bad.length,
      errors: [...reasons].map(([reason, count]) => ({ reason, count })),
      metrics,
      rssMedian: describe(good.flatMap((s) => (s.rss === undefined ? [] : [s.rss])))?.median,
      heapUsedMedian: describe(good.flatMap((s) => (s.heapUsed === undefined ? [] : [s.heapUsed])))?.median,
      // any failed check fails the cell's check
      invalidBody: checks.find((s) => !s.invalidBody!.ok)?.invalidBody ?? checks[0]?.invalidBody,
      runtimeVersion: good[0]?.runtimeVersion ?? group.find((s) => s.runtimeVersion)?.runtimeVersion,
    });
  }
  return summaries.sort((a, b) => compareCells(a.cell, b.cell));
}
