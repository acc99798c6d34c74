/**
 * The options of `run` that decide how cells are measured and where: `--measure` (timed and/or
 * counted cells), `--count-samples`, `--jobs` (counted cells side by side) and `--shard i/n` (a
 * deterministic part of the cells, for a matrix of machines).
 */
import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.ts';
import type { Shard } from '../pipeline/jobs.ts';
import { parseChoiceList, parseInteger } from './parse.ts';
import { MEASURES, type Measure } from '../core/dimensions.ts';

export interface CountOptions {
  measures: Measure[];
  /** samples of each counted cell (default 1; 2 checks determinism) */
  countSamples: number;
  /** runs in flight at once; undefined: the cores when every cell is counted, else 1 */
  jobs: number | undefined;
  shard: Shard | undefined;
}

export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || count > 1000 || index < 1 || index > count) {
    throw new UsageError(`--shard: "${text}" is not i/n with 1 <= i <= n <= 1000 (e.g. 2/4)`);
  }
  return { index, count };
}

export function addCountOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--measure <list>',
        `comma list of ${MEASURES.join(', ')}: timed cells (wall and CPU time) and/or counted cells ` +
          '(instructions per phase under valgrind, deterministic)',
      )
        .default(['time'], 'time')
        .argParser(parseChoiceList('--measure', MEASURES)),
    )
    .option(
      '--count-samples <n>',
      'samples per counted cell (no warm-up); 2 or more reports their spread',
      parseInteger('--count-samples', 1, 100),
      1,
    )
    .option(
      '--jobs <n>',
      'runs in flight at once: counted cells only (default: the cores when every cell is counted, else 1)',
      parseInteger('--jobs', 1, 256),
    )
    .option('--shard <i/n>', 'measure only the i-th of n deterministic parts of the cells (join the run folders with merge)', parseShard);
}

export function countOptionsOf(opts: Record<string, unknown>): CountOptions {
  return {
    measures: opts.measure as Measure[],
    countSamples: opts.countSamples as number,
    jobs: opts.jobs as number | undefined,
    shard: opts.shard as Shard | undefined,
  };
}
