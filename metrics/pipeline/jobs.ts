/**
 * How a run's cells are spread: `--shard i/n` (a deterministic part of the cells, for a matrix of
 * machines) and `--jobs` (counted cells side by side).
 */
import os from 'node:os';
import { UsageError } from '../core/errors.ts';
import type { PlannedCell } from '../plan/cells.ts';
import { isCounted } from '../core/dimensions.ts';
import type { Shard } from '../core/run-spec.ts';

/**
 * How many runs go at once. Timed samples side by side would take each other's cores and time each
 * other: with a timed cell, more than one job is refused.
 */
export function resolveJobs(jobs: number | 'auto', cells: readonly PlannedCell[], cores = os.availableParallelism()): number {
  const timed = cells.some((c) => !isCounted(c.cell));
  if (jobs === 'auto') return timed ? 1 : cores;
  if (jobs > 1 && timed) {
    throw new UsageError(
      `--jobs ${jobs}: timed cells run one at a time (side by side they would slow each other down); ` +
        'use --jobs with --measure instructions only',
    );
  }
  return jobs;
}

/** The cells of shard i/n: every n-th cell of the run's order, starting at the i-th (framework × N spread over the shards). */
export function shardCells<T>(cells: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...cells];
  return cells.filter((_, k) => k % shard.count === shard.index - 1);
}
