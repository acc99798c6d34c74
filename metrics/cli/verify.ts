/**
 * `verify PUBLISHED` (npm run verify): re-measure a slice of a published run here and say, claim by
 * claim, whether its ratios hold within a margin (pipeline/verify.ts). Exit 0 when every claim holds,
 * 1 when one does not (or could not be measured), 10 when none fails but some are undetermined (more
 * samples needed), 3 when samples failed, 130 when interrupted.
 */
import type { Command as PlainCommand } from 'commander';
import { Command, Option } from '@commander-js/extra-typings';
import { DIMENSIONS, MEASURES } from '../core/dimensions.ts';
import { parseChoice, parseInteger, parseList, parsePercentShare, parseRoutes } from '../core/parse.ts';
import {
  claimLine,
  COUNT_MARGIN,
  DEFAULT_MARGIN,
  DEFAULT_VERIFY_SAMPLES,
  METRIC_NAMES,
  parseMetricName,
  QUICK_VERIFY_SAMPLES,
  verdictCounts,
  verifyPipeline,
} from '../pipeline/verify.ts';
import { runSummaryLine } from '../pipeline/run.ts';
import { addTypedCommand, dimensionOption } from './groups/common.ts';
import { depsOf } from './run.ts';
import { commandLine, say } from './shared.ts';

export function registerVerifyCommand(program: PlainCommand, hooks: { argv?: readonly string[] } = {}): void {
  const verify = new Command('verify')
    .description(
      're-measure a slice of a published run on this machine and say, claim by claim, whether its ratios to the floor hold ' +
        'within a margin (the 90 % bootstrap interval of published / here inside it: an equivalence test); ' +
        'exit 1 when one does not, 10 when some are undetermined (more samples needed)',
    )
    .argument('<published>', 'a published run folder, e.g. results/published/2026-11-27-seed-table')
    // the run's own selection flags, from the table (core/dimensions.ts), with what they select here
    .addOption(
      sliceOption(
        dimensionOption(DIMENSIONS.framework, '--frameworks', (text: string) => parseList('--frameworks', text)),
        "the slice's frameworks (default every framework of the run; the floor is always measured)",
      ),
    )
    .addOption(
      sliceOption(
        dimensionOption(DIMENSIONS.routes, '--routes', parseRoutes),
        "the slice's route counts (default each framework's smallest and largest)",
      ),
    )
    .addOption(
      new Option('--measure <measure>', "which of the run's cells: time or instructions (default time when it has timed cells)").argParser(
        parseChoice('--measure', MEASURES),
      ),
    )
    .addOption(
      new Option('--samples <n>', `samples per cell (default ${DEFAULT_VERIFY_SAMPLES}; counted cells 1)`).argParser(
        parseInteger('--samples', 1, 1000),
      ),
    )
    .addOption(
      new Option(
        '--metric <list>',
        "the claims' metrics (default firstResponse, or cpu.firstResponse when either run was loaded; counted cells " +
          `instructions): ${METRIC_NAMES.join(', ')}`,
      ).argParser((text: string) => [...new Set(parseList('--metric', text).map(parseMetricName))]),
    )
    .addOption(
      new Option(
        '--margin <percent>',
        `how far published / here may be from 1 and hold (default ${DEFAULT_MARGIN * 100}%: 1/1.15 to 1.15; counted cells ` +
          `${COUNT_MARGIN * 100}%, which covers a checkout at a path about 45 characters longer)`,
      ).argParser(parsePercentShare('--margin')),
    )
    .addOption(
      new Option(
        '--quick',
        `for too little time: ${QUICK_VERIFY_SAMPLES} samples a cell (not ${DEFAULT_VERIFY_SAMPLES}) and each framework at its largest ` +
          'route count only; it trades certainty: more claims come out undetermined (exit 10), fewer cells are checked',
      ),
    )
    .addOption(new Option('-o, --out <dir>', 'the new run folder (default results/<timestamp>/)'))
    .addOption(new Option('--debug-mode [script]', 'run with the fake sampler and cells: nothing is started').hideHelp());
  const command = verify.action(async (published, opts) => {
    const result = await verifyPipeline(
      {
        published,
        command: commandLine([...(hooks.argv ?? process.argv)], 'verify'),
        ...(opts.frameworks ? { frameworks: opts.frameworks } : {}),
        ...(opts.routes ? { routes: opts.routes } : {}),
        ...(opts.measure ? { measure: opts.measure } : {}),
        ...(opts.samples !== undefined ? { samples: opts.samples } : {}),
        ...(opts.metric ? { metrics: opts.metric } : {}),
        ...(opts.margin !== undefined ? { margin: opts.margin } : {}),
        ...(opts.out ? { out: opts.out } : {}),
        ...(opts.quick ? { quick: true } : {}),
      },
      depsOf(opts.debugMode)(),
    );
    for (const [name, why] of result.skipped) say(`${name}: skipped, its claims not verified (${why})`);
    say(`judged on ${result.judged.metrics.join(', ')}: ${result.judged.why}`);
    say(result.claims.map(claimLine).join('\n'));
    say(`${verdictCounts(result.claims)}; ${runSummaryLine(result.run).replace('(summary.md)', '(verify.md)')}`);
    if (result.exitCode) process.exitCode = result.exitCode;
  });
  addTypedCommand(program, command);
}

/** A table flag whose help says what it selects of a published run (not of a new one). */
function sliceOption<O extends { description: string }>(option: O, help: string): O {
  option.description = help;
  return option;
}
