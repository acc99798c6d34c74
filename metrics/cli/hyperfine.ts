/** `hyperfine` (npm run metrics:hyperfine): its options and its last line; the cross-check is pipeline/hyperfine.ts. */
import path from 'node:path';
import type { Command } from 'commander';
import { EXIT_INTERRUPTED } from '../core/errors.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { runHyperfine, type HyperfineRun } from '../pipeline/hyperfine.ts';
import { addLeverOptions, addMeasureOptions, addSelectionOptions, leverListsOf, selectionOf } from './options.ts';
import { commandLine, displayPath } from './shared.ts';

type HyperfineOpts = Record<string, unknown> & { samples: number; warmup: number; timeout: number; node: string; out?: string };

/** Where the results are, whether the report shows both, and how many cells failed. */
function lastLine(result: HyperfineRun): string {
  const failed = result.failed.length ? `; ${result.failed.length} cells failed` : '';
  const where = displayPath(result.file);
  const next = result.merged
    ? `; report merged (${displayPath(path.join(result.dir, 'summary.md'))})`
    : ` (no ${SAMPLES_FILE} there: \`npm run metrics -- --out ${displayPath(result.dir)}\` ` +
      "with the same selection adds the runner's figures)";
  return `${result.interrupted ? 'interrupted; partial hyperfine results in' : 'hyperfine results in'} ${where}${next}${failed}`;
}

export function registerHyperfineCommand(program: Command): void {
  const command = program
    .command('hyperfine')
    .description(
      "cross-check: time every generated file with hyperfine (exec to exit) into DIR/hyperfine.json; a run folder's report then shows both",
    );
  addSelectionOptions(command);
  addMeasureOptions(command, { samples: 'hyperfine --runs per cell', timeout: 'limit per run; a cell gets it × (warm-up + samples)' });
  addLeverOptions(command);
  command
    .option(
      '-o, --out <dir>',
      'a run folder to add hyperfine.json to (its report then merges both), or a new folder (default results/<timestamp>/)',
    )
    .action(async (opts: HyperfineOpts) => {
      const result = await runHyperfine(
        {
          ...selectionOf(opts),
          samples: opts.samples,
          warmup: opts.warmup,
          timeoutMs: opts.timeout * 1000,
          node: opts.node,
          levers: leverListsOf(opts),
          out: opts.out,
          command: commandLine(process.argv, 'metrics:hyperfine'),
        },
        { env: process.env, progress: process.stderr, now: () => new Date() },
      );
      process.stdout.write(`${lastLine(result)}\n`);
      if (result.interrupted) process.exitCode = EXIT_INTERRUPTED;
      else if (result.measured === 0) process.exitCode = 1;
    });
}
