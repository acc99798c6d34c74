/** Cost: the Lambda memory size, architectures and price the report's cost table uses (no effect on what is measured). */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { UsageError } from '../../core/errors.ts';
import { RUN_DIMENSIONS } from '../../core/dimensions.ts';
import type { CostSpec } from '../../core/run-spec.ts';
import { parseArchitectures, parseBudget, parseMemory, parsePrice } from '../../core/parse.ts';
import { dimensionAlias, dimensionOption, type Empty, type OptsOf } from './common.ts';
import { checkColdStartPricing, parseLambdaCompute, parseRate, parseWebRates } from '../../core/web-platform.ts';
import type { WebRates } from '../../core/web-platform.ts';
import { readTextBounded } from '../../store/input-files.ts';

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
    )
    .addOption(
      new Option(
        '--price-file <file>',
        'your Lambda Web Functions rates, JSON {"activeCpuSecond", "gbSecond", "request"} in $ ' +
          '(their rates are not public: no $ without them)',
      ),
    )
    .addOption(new Option('--web-cpu-price <usd>', 'Web Functions: $ per active CPU-second (with --web-gb-price and --web-request-price)'))
    .addOption(new Option('--web-gb-price <usd>', 'Web Functions: $ per GB-second'))
    .addOption(new Option('--web-request-price <usd>', 'Web Functions: $ per request'))
    .addOption(
      new Option(
        '--lambda-compute <kind>',
        'on-demand or managed-instances (Managed Instances have no per-request cold start: a $ per cold start is refused)',
      ).argParser(parseLambdaCompute),
    );
}

const WEB_PRICE_FLAGS = ['--web-cpu-price', '--web-gb-price', '--web-request-price'] as const;
/** Every flag that gives Web Functions rates. */
export const WEB_RATE_FLAGS: readonly string[] = ['--price-file', ...WEB_PRICE_FLAGS];

/** The user's Web Functions rates: a --price-file, or all three flags; undefined when none is given. */
export function webRatesOf(opts: {
  priceFile?: string | undefined;
  webCpuPrice?: string | undefined;
  webGbPrice?: string | undefined;
  webRequestPrice?: string | undefined;
}): WebRates | undefined {
  const flags = [opts.webCpuPrice, opts.webGbPrice, opts.webRequestPrice];
  const given = flags.filter((f) => f !== undefined).length;
  if (opts.priceFile !== undefined) {
    if (given > 0) throw new UsageError('--price-file and --web-*-price: give the rates one way');
    return parseWebRates(readTextBounded(opts.priceFile, 64 * 1024, 'a price file'), opts.priceFile);
  }
  if (given === 0) return undefined;
  if (given < 3) {
    const missing = WEB_PRICE_FLAGS.filter((_, i) => flags[i] === undefined);
    throw new UsageError(`${missing.join(' and ')} missing: a Web Functions cost needs all three rates (coldstart has none of its own)`);
  }
  return {
    activeCpuSecond: parseRate('--web-cpu-price', flags[0]),
    gbSecond: parseRate('--web-gb-price', flags[1]),
    request: parseRate('--web-request-price', flags[2]),
  };
}

type CostOpts = OptsOf<ReturnType<typeof addCostGroup<[], Empty, Empty>>>;

export function costOf(opts: CostOpts): Partial<CostSpec> {
  const memoryMB = opts.costMemory ?? opts.memory;
  const webRates = webRatesOf(opts);
  // the report's cost table is per cold start: a compute kind without one is refused whatever the price
  checkColdStartPricing(opts.lambdaCompute ?? 'on-demand', true);
  if (opts.price !== undefined && opts.arch && opts.arch.length > 1) {
    throw new UsageError(`--price with --arch ${opts.arch.join(',')}: a price is one architecture's; give one --arch with it`);
  }
  return {
    ...(memoryMB !== undefined ? { memoryMB } : {}),
    ...(opts.arch ? { architectures: opts.arch } : {}),
    ...(opts.price !== undefined ? { pricePerGBs: opts.price } : {}),
    ...(opts.budget !== undefined ? { budgetMs: opts.budget } : {}),
    ...(webRates ? { webRates } : {}),
  };
}
