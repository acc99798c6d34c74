/** `--shard i/n`: a deterministic part of the cells, for a matrix of machines (groups/sampling.ts adds it). */
import { UsageError } from '../core/errors.ts';
import type { Shard } from '../pipeline/jobs.ts';

export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || count > 1000 || index < 1 || index > count) {
    throw new UsageError(`--shard: "${text}" is not i/n with 1 <= i <= n <= 1000 (e.g. 2/4)`);
  }
  return { index, count };
}
