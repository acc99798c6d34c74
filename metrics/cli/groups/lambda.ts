/** Lambda: memory sizes (every cell's limits), and what only Lambda cells take (lines, bootstraps, the reference). */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { BOOTSTRAPS, DIMENSIONS, INIT_MODES } from '../../core/dimensions.ts';
import { DEFAULT_SPEC, MAX_CPU_PERIOD_US, type CellSpec, type LimitSpec } from '../../core/run-spec.ts';
import { parseChoice, parseChoiceList, parseLambdaLines, parseMemoryList, parsePositive } from '../../core/parse.ts';
import { aliasOf, byDefault, dimensionOption, type Empty, type OptsOf } from './common.ts';

export function addLambdaGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return command
    .optionsGroup('Lambda:')
    .addOption(dimensionOption(DIMENSIONS.memory, '--lambda-memory', parseMemoryList('--lambda-memory')))
    .addOption(
      new Option(
        '--init-cpus <n>',
        'with --lambda-memory: vCPUs during INIT (Lambda runs the INIT of an on-demand function at full speed)' +
          byDefault(DEFAULT_SPEC.limits.initCpus),
      ).argParser(parsePositive('--init-cpus', 64, 'a number of vCPUs')),
    )
    .addOption(
      new Option(
        '--cpu-period <ms>',
        "with --lambda-memory: the CPU quota period; a short first request fits in one period's quota" +
          byDefault(DEFAULT_SPEC.limits.cpuPeriodUs / 1000),
      ).argParser(parsePositive('--cpu-period', MAX_CPU_PERIOD_US / 1000, 'a period in ms')),
    )
    .addOption(dimensionOption(DIMENSIONS.runtime, '--lambda-runtime', parseLambdaLines('--lambda-runtime')))
    .addOption(dimensionOption(DIMENSIONS.bootstrap, '--lambda-bootstrap', parseChoiceList('--lambda-bootstrap', BOOTSTRAPS)))
    .addOption(dimensionOption(DIMENSIONS.init, '--init', parseChoiceList('--init', INIT_MODES)))
    .addOption(
      new Option(
        '--no-lambda-reference',
        "with Lambda cells: do not also measure lambda-perf's hello-world reference under their settings " +
          '(it derives what Lambda adds); the old spelling --lambda-reference off still works',
      ),
    )
    .addOption(
      aliasOf(
        new Option('--lambda-reference <on|off>', 'the old spelling of --no-lambda-reference').argParser(
          parseChoice('--lambda-reference', ['on', 'off'] as const),
        ),
        '--no-lambda-reference',
      ),
    );
}

type LambdaOpts = OptsOf<ReturnType<typeof addLambdaGroup<[], Empty, Empty>>>;

export function lambdaOf(opts: LambdaOpts): { cells: Partial<CellSpec>; limits: Partial<LimitSpec> } {
  const reference = opts.lambdaReference;
  return {
    cells: {
      ...(opts.lambdaMemory ? { memories: opts.lambdaMemory } : {}),
      ...(opts.lambdaRuntime ? { lambdaRuntimes: opts.lambdaRuntime } : {}),
      ...(opts.lambdaBootstrap ? { bootstraps: opts.lambdaBootstrap } : {}),
      ...(opts.init ? { inits: opts.init } : {}),
      ...(reference === false || reference === 'off' ? { lambdaReference: false } : {}),
    },
    limits: {
      ...(opts.initCpus !== undefined ? { initCpus: opts.initCpus } : {}),
      ...(opts.cpuPeriod !== undefined ? { cpuPeriodUs: Math.round(opts.cpuPeriod * 1000) } : {}),
    },
  };
}
