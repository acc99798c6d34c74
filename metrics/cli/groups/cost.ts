/** Cost: the Lambda memory size, architecture and price the report's cost table uses (no effect on what is measured). */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { ARCHITECTURES, MAX_MEMORY_MB, MIN_MEMORY_MB, parseArchitecture } from '../../core/lambda-platform.ts';
import { DEFAULT_SPEC, type CostSpec } from '../../core/run-spec.ts';
import { parseMemory, parsePrice } from '../../core/parse.ts';
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
        '--arch <arch>',
        `Lambda architecture whose price the cost table uses: ${ARCHITECTURES.join(' or ')} (x86 is accepted for x86_64)` +
          byDefault(d.architecture),
      ).argParser((text) => parseArchitecture('--arch', text)),
    )
    .addOption(
      new Option('--price <usd>', "Lambda price in $ per GB-second (default: the architecture's on-demand price)").argParser(parsePrice),
    );
}

type CostOpts = OptsOf<ReturnType<typeof addCostGroup<[], Empty, Empty>>>;

export function costOf(opts: CostOpts): Partial<CostSpec> {
  const memoryMB = opts.costMemory ?? opts.memory;
  return {
    ...(memoryMB !== undefined ? { memoryMB } : {}),
    ...(opts.arch ? { architecture: opts.arch } : {}),
    ...(opts.price !== undefined ? { pricePerGBs: opts.price } : {}),
  };
}
