/** Cost: the Lambda memory size, architectures and price the report's cost table uses (no effect on what is measured). */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { UsageError } from '../../core/errors.ts';
import { ARCHITECTURES, MAX_MEMORY_MB, MIN_MEMORY_MB } from '../../core/lambda-platform.ts';
import { DEFAULT_SPEC, type CostSpec } from '../../core/run-spec.ts';
import { parseArchitectures, parseBudget, parseMemory, parsePrice } from '../../core/parse.ts';
import { aliasOf, byDefault, type Empty, type OptsOf } from './common.ts';

const d = DEFAULT_SPEC.cost;

export function addCostGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return command
    .optionsGroup('Cost:')
    .addOption(
      new Option(
        '--cost-memory <MB>',
        `Lambda memory size the cost table prices, in MB (${MIN_MEMORY_MB}–${MAX_MEMORY_MB}); the old spelling --memory still works; ` +
          'the memory sizes cells run at are --lambda-memory' +
          byDefault(d.memoryMB),
      ).argParser(parseMemory('--cost-memory')),
    )
    .addOption(
      aliasOf(new Option('--memory <MB>', 'the old spelling of --cost-memory').argParser(parseMemory('--memory')), '--cost-memory'),
    )
    .addOption(
      new Option(
        '--arch <list>',
        `comma list of Lambda architectures, ${ARCHITECTURES.join(' and/or ')} (x86 is accepted for x86_64): Lambda cells get ` +
          "an estimate for each (its calibration and its price); the first one's price is the cost table's" +
          byDefault(d.architectures.join(',')),
      ).argParser(parseArchitectures('--arch')),
    )
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
