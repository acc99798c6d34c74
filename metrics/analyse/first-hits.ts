/**
 * The first hits of a cell's samples, summarised: every first-hit latency of its successful samples
 * pooled (a sample's K hits are K first requests to K distinct routes), and the time until all K
 * were warm (ms from spawn), one value per sample.
 */
import { cellKey } from '../core/cell.ts';
import type { SampleRecord } from '../core/samples.ts';
import { firstHitStats, type Stats } from './aggregate.ts';

export interface FirstHitSummary {
  /** first hits per sample (K, or N-1 when the table is smaller) */
  hits: number;
  /** samples that recorded first hits */
  samples: number;
  /** every first-hit latency of those samples, ms */
  latency: Stats;
  /** when the last first hit was answered, ms from spawn, per sample */
  allWarm: Stats;
}

/** cellKey → its first hits, for the cells whose successful samples recorded any. */
export function firstHitSummaries(samples: readonly SampleRecord[]): Map<string, FirstHitSummary> {
  const byCell = new Map<string, SampleRecord[]>();
  for (const s of samples) {
    if (s.phase !== 'sample' || !s.ok || !s.firstHits) continue;
    const key = cellKey(s.cell);
    byCell.set(key, [...(byCell.get(key) ?? []), s]);
  }
  const out = new Map<string, FirstHitSummary>();
  for (const [key, group] of byCell) {
    const stats = firstHitStats(group, key);
    if (!stats) continue;
    out.set(key, {
      hits: Math.max(...group.map((s) => s.firstHits!.routes.length)),
      samples: group.length,
      latency: stats.latencyMs,
      allWarm: stats.allWarmMs,
    });
  }
  return out;
}
