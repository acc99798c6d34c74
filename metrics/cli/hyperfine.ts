/** `hyperfine` (npm run metrics:hyperfine): its options and its last line; the cross-check is pipeline/hyperfine.ts. */
import { toolCommand } from '../core/speak.ts';
import path from 'node:path';
import type { Command as PlainCommand } from 'commander';
import { Command, Option } from '@commander-js/extra-typings';
import { EXIT_INTERRUPTED } from '../core/errors.ts';
import { MAX_TIMEOUT_S, parseInteger, parseSeconds } from '../core/parse.ts';
import { DEFAULT_SPEC, runSpec } from '../core/run-spec.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { hyperfineRuns, runHyperfine, type HyperfineRun } from '../pipeline/hyperfine.ts';
import { realDeps } from '../pipeline/ports.ts';
import { addTypedCommand, byDefault } from './groups/common.ts';
import { addProcessLevers, leversOf } from './groups/levers.ts';
import { addSourceGroup, sourceOf } from './groups/selection.ts';
import { commandLine, displayPath, say } from './shared.ts';
import { EXIT_NOTHING_MADE } from '../core/exit-codes.ts';

const d = DEFAULT_SPEC.sampling;
/** hyperfine's --runs by default: run's default number of samples (a fixed number: hyperfine has no auto) */
const RUNS = hyperfineRuns(DEFAULT_SPEC);

/** Where the results are, whether the report shows both, and how many cells failed. */
function lastLine(result: HyperfineRun): string {
  const failed = result.failed.length ? `; ${result.failed.length} cells failed` : '';
  const where = displayPath(result.file);
  const next = result.merged
    ? `; report merged (${displayPath(path.join(result.dir, 'summary.md'))})`
    : ` (no ${SAMPLES_FILE} there: \`${toolCommand('metrics', ['--out', displayPath(result.dir)])}\` ` +
      "with the same selection adds the runner's figures)";
  return `${result.interrupted ? 'interrupted; partial hyperfine results in' : 'hyperfine results in'} ${where}${next}${failed}`;
}

function hyperfineCommand() {
  const hyperfine = new Command('hyperfine').description(
    "cross-check: time every generated file with hyperfine (exec to exit) into DIR/hyperfine.json; a run folder's report then shows both",
  );
  const sampled = addSourceGroup(hyperfine)
    .optionsGroup('Sampling:')
    .addOption(
      new Option('-s, --samples <n>', 'hyperfine --runs per cell' + byDefault(RUNS)).argParser(parseInteger('--samples', 1, 10_000)),
    )
    .addOption(
      new Option('-w, --warmup <n>', 'unrecorded warm-up runs per cell' + byDefault(d.warmup)).argParser(parseInteger('--warmup', 0, 100)),
    )
    .addOption(
      new Option(
        '-t, --timeout <seconds>',
        `limit per run; a cell gets it × (warm-up + samples) (at most ${MAX_TIMEOUT_S})` + byDefault(d.timeoutMs / 1000),
      ).argParser(parseSeconds('--timeout')),
    );
  return addProcessLevers(sampled, false)
    .addOption(new Option('--node <path>', 'the node binary to measure (default: the node running coldstart)'))
    .optionsGroup('Output:')
    .addOption(
      new Option(
        '-o, --out <dir>',
        'a run folder to add hyperfine.json to (its report then merges both), or a new folder (default results/<timestamp>/)',
      ),
    );
}

export function registerHyperfineCommand(program: PlainCommand): void {
  const command = hyperfineCommand().action(async (opts) => {
    const spec = runSpec({
      command: commandLine(process.argv, 'metrics:hyperfine'),
      source: sourceOf(opts),
      cells: leversOf(opts),
      sampling: {
        ...(opts.samples !== undefined ? { samples: opts.samples } : {}),
        ...(opts.warmup !== undefined ? { warmup: opts.warmup } : {}),
        ...(opts.timeout !== undefined ? { timeoutMs: opts.timeout * 1000 } : {}),
      },
      output: { out: opts.out },
    });
    const result = await runHyperfine(spec, realDeps());
    say(lastLine(result));
    if (result.interrupted) process.exitCode = EXIT_INTERRUPTED;
    else if (result.measured === 0) process.exitCode = EXIT_NOTHING_MADE;
  });
  addTypedCommand(program, command);
}
