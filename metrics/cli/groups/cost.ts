/** Cost: the Lambda memory size, architectures and price the report's cost table uses (no effect on what is measured). */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { UsageError } from '../../core/errors.ts';
import { RUN_DIMENSIONS } from '../../core/dimensions.ts';
import type { CostSpec } from '../../core/run-spec.ts';
import { parseArchitectures, parseBudget, parseMemory, parsePrice } from '../../core/parse.ts';
import { dimensionAlias, dimensionOption, type Empty, type OptsOf } from './common.ts';

export function addCostGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return command
    .optionsGroup('Cost:')
    .addOption(dimensionOption(RUN_DIMENSIONS.costMemory, '--cost-memory', parseMemory('--cost-memory')))
    .addOption(dimensionAlias(RUN_DIMENSIONS.costMemory, '--cost-memory', parseMemory))
    .addOption(dimensionOption(RUN_DIMENSIONS.architecture, '--arch', parseArchitectures('--arch')))
    .addOption(
      new Option(
        '--budget <ms>',
        'a cold-start budget (500ms, 500 or 1.5s): scaling.md, summary.md and scaling.csv say how many routes fit before the ' +
          'median first response (and ready) passes it, from the fitted curve, with its interval; needs 3 or more route counts',
      ).argParser(parseBudget),
    )
    .addOption(
      new Option('--price <usd>', "Lambda price in $ per GB-second (default: the architecture's on-demand price)").argParser(parsePrice),
    );
}

type CostOpts = OptsOf<ReturnType<typeof addCostGroup<[], Empty, Empty>>>;

export function costOf(opts: CostOpts): Partial<CostSpec> {
  const memoryMB = opts.costMemory ?? opts.memory;
  if (opts.price !== undefined && opts.arch && opts.arch.length > 1) {
    throw new UsageError(`--price with --arch ${opts.arch.join(',')}: a price is one architecture's; give one --arch with it`);
  }
  return {
    ...(memoryMB !== undefined ? { memoryMB } : {}),
    ...(opts.arch ? { architectures: opts.arch } : {}),
    ...(opts.price !== undefined ? { pricePerGBs: opts.price } : {}),
    ...(opts.budget !== undefined ? { budgetMs: opts.budget } : {}),
  };
}
