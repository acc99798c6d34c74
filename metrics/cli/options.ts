/**
 * The options commands share, as commander Options: selection, levers, cost, exports. Each command
 * file adds the ones it takes; `optionsOf` helpers read them back into typed values.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { ARCHES, DEFAULT_ARCH, DEFAULT_MEMORY_MB, type Arch, type CostOptions } from '../analyse/cost.ts';
import {
  DEFAULT_MAX_SAMPLES,
  DEFAULT_MIN_SAMPLES,
  DEFAULT_PRECISION,
  parsePrecision,
  precisionSettings,
  type PrecisionSettings,
} from '../analyse/precision.ts';
import { UsageError } from '../core/errors.ts';
import { DEFAULT_CPU_PERIOD_US, DEFAULT_INIT_CPUS, MAX_CPU_PERIOD_US } from '../measure/limits/settings.ts';
import { METRICS, type Metric } from '../core/samples.ts';
import { BOOTSTRAPS, DEFAULT_BOOTSTRAP } from '../plan/lambda-bootstrap.ts';
import { BUILDS, COMPILE_CACHES, DEFAULT_LAMBDA_FILE_CACHE, DEFAULT_LEVERS, FILE_CACHES, type LeverLists } from '../plan/levers.ts';
import { DEFAULT_ROUTES } from '../plan/selection.ts';
import { checkOutputFile } from '../core/output-file.ts';
import { DEFAULT_EXPORT_METRIC } from '../report/hyperfine-json.ts';
import {
  parseChoice,
  parseChoiceList,
  parseFrameworks,
  parseInteger,
  parseList,
  parsePositive,
  parseMemory,
  parsePrice,
  parseRoutes,
  parseSeconds,
  MAX_TIMEOUT_S,
  parseVariants,
  parseAllList,
} from './parse.ts';
import {
  TARGETS,
  VARIANTS,
  type Variant,
  DEFAULT_SCHEMA,
  DEFAULT_SHAPE,
  SCHEMAS,
  SHAPES,
  type Schema,
  type Shape,
  RUNTIME_NAMES,
} from '../core/dimensions.ts';
import { DEFAULT_LAMBDA_RUNTIME, LAMBDA_RUNTIME_NAMES, parseLambdaRuntime } from '../core/lambda-platform.ts';

/**
 * Options that do nothing without another one (`--precision` without `--samples auto`, `--init-cpus`
 * without `--lambda-memory`, …): given on the command line while `applies` does not hold, they are a
 * usage error before the command starts, not silently ignored. `keys` are commander's attribute names.
 */
export function requireWith(command: Command, keys: string[], applies: (opts: Record<string, unknown>) => boolean, what: string): void {
  command.hook('preAction', (self) => {
    if (applies(self.opts())) return;
    const given = keys.filter((key) => self.getOptionValueSource(key) === 'cli');
    if (given.length === 0) return;
    const flags = given.map((key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    throw new UsageError(`${flags.join(', ')} ${given.length > 1 ? 'do' : 'does'} nothing without ${what}: give it, or leave them out`);
  });
}

/** Hidden old spellings: the option each stands for (its long flag), as the rules between options name it. */
const ALIAS_OF = new WeakMap<Option, string>();

/** A hidden option that stands for `canonical` (`--memory` for `--cost-memory`): said in the help of the option it stands for. */
export function aliasOption(option: Option, canonical: string): Option {
  ALIAS_OF.set(option, canonical);
  return option.hideHelp();
}

/**
 * The long flags of the options the user typed (commander's value source `cli`), an old spelling as
 * the option it stands for. Of two options that share a value (`--x` and `--no-x`), the one whose
 * kind of value it holds.
 */
export function givenFlags(command: Command): Set<string> {
  const given = new Set<string>();
  const opts = command.opts();
  for (const option of command.options) {
    const key = option.attributeName();
    if (command.getOptionValueSource(key) !== 'cli' || !option.long) continue;
    const shared = command.options.filter((o) => o.attributeName() === key).length > 1;
    if (shared && option.negate !== (opts[key] === false)) continue;
    given.add(ALIAS_OF.get(option) ?? option.long);
  }
  return given;
}

/** `--frameworks`, `--routes`, `--variant`, `--shape`, `--schema`: every command that picks cells. */
export function addSelectionOptions(command: Command): Command {
  return command
    .addOption(
      new Option('-f, --frameworks <list>', 'comma-separated frameworks, or all (those whose packages are installed)')
        .default('all')
        .argParser(parseFrameworks),
    )
    .addOption(
      new Option('-r, --routes <list>', 'comma-separated route counts, each 1–100000')
        .default(DEFAULT_ROUTES, DEFAULT_ROUTES.join(','))
        .argParser(parseRoutes),
    )
    .addOption(
      new Option('--variant <variant>', `${VARIANTS.join(', ')} or all (comma list)`)
        .default(['validated'], 'validated')
        .argParser(parseVariants),
    )
    .addOption(
      new Option('--shape <list>', `route shapes, comma list of ${SHAPES.join(', ')} or all`)
        .default([DEFAULT_SHAPE], DEFAULT_SHAPE)
        .argParser(parseAllList('--shape', SHAPES)),
    )
    .addOption(
      new Option('--schema <list>', `schema weights of the bodies, comma list of ${SCHEMAS.join(', ')} or all`)
        .default([DEFAULT_SCHEMA], DEFAULT_SCHEMA)
        .argParser(parseAllList('--schema', SCHEMAS)),
    );
}

export interface Selection {
  frameworks: string[] | 'all';
  routes: number[];
  variants: Variant[];
  shapes: Shape[];
  schemas: Schema[];
}

export function selectionOf(opts: Record<string, unknown>): Selection {
  return {
    frameworks: opts.frameworks as string[] | 'all',
    routes: opts.routes as number[],
    variants: opts.variant as Variant[],
    shapes: (opts.shape as Shape[] | undefined) ?? [DEFAULT_SHAPE],
    schemas: (opts.schema as Schema[] | undefined) ?? [DEFAULT_SCHEMA],
  };
}

/** `--samples`, `--warmup`, `--timeout`, `--node`: every command that measures. */
export function addMeasureOptions(command: Command, what: { samples: string; timeout: string; auto?: boolean }): Command {
  const integer = parseInteger('--samples', 1, 10_000);
  const samples = what.auto ? (text: string) => (text.trim() === 'auto' ? 'auto' : integer(text)) : integer;
  return command
    .option('-s, --samples <n>', what.samples, samples, 5)
    .option('-w, --warmup <n>', 'unrecorded warm-up runs per cell', parseInteger('--warmup', 0, 100), 1)
    .option('-t, --timeout <seconds>', `${what.timeout} (at most ${MAX_TIMEOUT_S})`, parseSeconds('--timeout'), 120)
    .option('--node <path>', 'the node binary to measure', process.execPath);
}

/** `--runtime`, `--build`, `--compile-cache`: the levers, each a comma list. */
export function addLeverOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--runtime <list>',
        `comma list of runtimes: ${RUNTIME_NAMES.join(', ')} ` +
          '(node = the node running coldstart, or --node; the others are installed on demand into .runtimes/)',
      )
        .default(DEFAULT_LEVERS.runtimes, DEFAULT_LEVERS.runtimes.join(','))
        .argParser(parseChoiceList('--runtime', RUNTIME_NAMES)),
    )
    .addOption(
      new Option(
        '--build <list>',
        `comma list of builds: ${BUILDS.join(', ')} (bundle = the file and all it requires in one file, by esbuild)`,
      )
        .default(DEFAULT_LEVERS.builds, DEFAULT_LEVERS.builds.join(','))
        .argParser(parseChoiceList('--build', BUILDS)),
    )
    .addOption(
      new Option(
        '--compile-cache <list>',
        `comma list of ${COMPILE_CACHES.join(', ')}: Node's module compile cache (NODE_COMPILE_CACHE, Node >= 22.1); ` +
          'cold = a fresh empty cache per sample, warm = one filled by an unrecorded run first',
      )
        .default(DEFAULT_LEVERS.compileCaches, DEFAULT_LEVERS.compileCaches.join(','))
        .argParser(parseChoiceList('--compile-cache', COMPILE_CACHES)),
    );
}

export function leverListsOf(opts: Record<string, unknown>): LeverLists {
  return {
    runtimes: (opts.runtime as string[] | undefined) ?? DEFAULT_LEVERS.runtimes,
    builds: (opts.build as string[] | undefined) ?? DEFAULT_LEVERS.builds,
    compileCaches: (opts.compileCache as string[] | undefined) ?? DEFAULT_LEVERS.compileCaches,
    ...(Array.isArray(opts.lambdaRuntime) ? { lambdaRuntimes: opts.lambdaRuntime as string[] } : {}),
    ...(Array.isArray(opts.lambdaBootstrap) ? { bootstraps: opts.lambdaBootstrap as string[] } : {}),
    ...(Array.isArray(opts.fileCache) ? { fileCaches: opts.fileCache as string[] } : {}),
  };
}

/** `--memory`, `--arch`, `--price`: on `run` (kept in meta.json) and on `report` (overriding it). */
export function addCostOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--memory <MB>', `Lambda memory for the cost table, in MB (default ${DEFAULT_MEMORY_MB})`).argParser(
        parseMemory('--memory'),
      ),
    )
    .addOption(
      new Option(
        '--arch <arch>',
        `Lambda architecture whose price the cost table uses: ${ARCHES.join(' or ')} (default ${DEFAULT_ARCH})`,
      ).argParser(parseChoice('--arch', ARCHES)),
    )
    .addOption(
      new Option('--price <usd>', "Lambda price in $ per GB-second (default: the architecture's on-demand price)").argParser(parsePrice),
    );
}

export function costOptionsOf(opts: Record<string, unknown>): CostOptions {
  return {
    ...(typeof opts.memory === 'number' ? { memoryMB: opts.memory } : {}),
    ...(typeof opts.arch === 'string' ? { arch: opts.arch as Arch } : {}),
    ...(typeof opts.price === 'number' ? { pricePerGBs: opts.price } : {}),
  };
}

/** `--export-json FILE` and `--export-metric`: the results in hyperfine's JSON shape. */
export function addExportOptions(command: Command, rules: 'check' | 'in-spec' = 'check'): Command {
  // run and measure check it with the other rules of their spec (core/run-spec.ts)
  if (rules === 'check') requireWith(command, ['exportMetric'], (opts) => opts.exportJson !== undefined, '--export-json');
  // the run folder the command writes (--out) or reads (report DIR) may not exist yet when the option is parsed
  command.hook('preAction', (self) => {
    const { exportJson, out } = self.opts<{ exportJson?: string; out?: string }>();
    if (exportJson !== undefined) checkOutputFile('--export-json', exportJson, [...(out ? [out] : []), ...self.args]);
  });
  return command
    .addOption(
      new Option('--export-json <file>', "also write the results in hyperfine's --export-json shape (seconds) to FILE").argParser(
        (file: string) => {
          // checked before a long run, not after it
          if (!existsSync(path.dirname(path.resolve(file)))) throw new UsageError(`--export-json: the folder of ${file} does not exist`);
          return checkOutputFile('--export-json', file);
        },
      ),
    )
    .addOption(
      new Option('--export-metric <metric>', 'the metric --export-json writes as times')
        .default(DEFAULT_EXPORT_METRIC)
        .argParser(parseChoice('--export-metric', METRICS)),
    );
}

export function exportOf(opts: Record<string, unknown>): { file: string; metric: Metric } | undefined {
  return typeof opts.exportJson === 'string' ? { file: opts.exportJson, metric: opts.exportMetric as Metric } : undefined;
}

/** `--precision`, `--min-samples`, `--max-samples`: how `--samples auto` decides when a cell has enough. */
export function addPrecisionOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--precision <percent>', 'with --samples auto: the 95 % CI of each median must lie within ± this share of it')
        .default(DEFAULT_PRECISION, `${DEFAULT_PRECISION * 100}%`)
        .argParser(parsePrecision),
    )
    .option(
      '--min-samples <n>',
      'with --samples auto: samples every cell takes first',
      parseInteger('--min-samples', 2, 10_000),
      DEFAULT_MIN_SAMPLES,
    )
    .option(
      '--max-samples <n>',
      'with --samples auto: samples after which a cell stops',
      parseInteger('--max-samples', 2, 10_000),
      DEFAULT_MAX_SAMPLES,
    );
}

export function precisionOf(opts: Record<string, unknown>): PrecisionSettings {
  return precisionSettings({
    precision: opts.precision as number,
    minSamples: opts.minSamples as number,
    maxSamples: opts.maxSamples as number,
  });
}

/** `--target`: how the files run (a comma list), and the memory sizes to run them at (addLimitOptions). */
export function addTargetOptions(command: Command): Command {
  command.addOption(
    new Option(
      '--target <list>',
      `comma list of ${TARGETS.join(', ')}: a long-running HTTP server, ` +
        "or a handler behind the framework's Lambda adapter under a Runtime API the runner plays",
    )
      .default(['server'], 'server')
      .argParser(parseChoiceList('--target', TARGETS)),
  );
  return addLimitOptions(command);
}

/** `--lambda-memory`: the memory sizes to run at, with `--init-cpus` and `--cpu-period`. */
export function addLimitOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--lambda-memory <list>',
        'comma list of Lambda memory sizes in MB (128–10240): each sample runs in a cgroup with that memory limit ' +
          'and, after INIT, that CPU share (MB / 1769 vCPUs); absent = no limits',
      ).argParser((text: string) =>
        [...new Set(parseList('--lambda-memory', text).map(parseMemory('--lambda-memory')))].sort((a, b) => a - b),
      ),
    )
    .addOption(
      new Option(
        '--lambda-runtime <list>',
        `comma list of Lambda runtime lines for Lambda cells: ${LAMBDA_RUNTIME_NAMES.join(', ')} (default ${DEFAULT_LAMBDA_RUNTIME}; ` +
          'each runs on the pinned download of its Node line, installed on demand into .runtimes/; ' +
          'node = the node running coldstart or --node, not a Lambda line)',
      ).argParser((text: string) => [
        ...new Set(parseList('--lambda-runtime', text).map((v) => parseLambdaRuntime('--lambda-runtime', v))),
      ]),
    )
    .addOption(
      new Option(
        '--lambda-bootstrap <list>',
        `comma list of ${BOOTSTRAPS.join(', ')}: how a Lambda cell starts (default ${DEFAULT_BOOTSTRAP}); ric = AWS's Runtime ` +
          "Interface Client launched as the managed runtime's bootstrap does, ric-noflags = the same without the bootstrap's " +
          'node flags, probe = the file as its own Runtime API client',
      ).argParser(parseChoiceList('--lambda-bootstrap', BOOTSTRAPS)),
    )
    .addOption(
      new Option(
        '--file-cache <list>',
        `comma list of ${FILE_CACHES.join(', ')}: the OS file cache before each sample (default warm for a server, ` +
          `${DEFAULT_LAMBDA_FILE_CACHE} for a Lambda cell); cold = the files that sample's process reads are evicted first`,
      ).argParser(parseChoiceList('--file-cache', FILE_CACHES)),
    )
    .addOption(
      new Option('--init-cpus <n>', 'with --lambda-memory: vCPUs during INIT (Lambda runs the INIT of an on-demand function at full speed)')
        .default(DEFAULT_INIT_CPUS)
        .argParser(parsePositive('--init-cpus', 64, 'a number of vCPUs')),
    )
    .addOption(
      new Option('--cpu-period <ms>', "with --lambda-memory: the CPU quota period; a short first request fits in one period's quota")
        .default(DEFAULT_CPU_PERIOD_US / 1000)
        .argParser(parsePositive('--cpu-period', MAX_CPU_PERIOD_US / 1000, 'a period in ms')),
    )
    .addOption(
      new Option(
        '--lambda-reference <on|off>',
        "with Lambda cells: also measure lambda-perf's hello-world reference under their settings, to derive what Lambda adds",
      )
        .default('on')
        .argParser(parseChoice('--lambda-reference', ['on', 'off'] as const)),
    );
}

/** `--attribute`: one more, unrecorded run per cell under the CPU profiler, its time attributed to packages. */
export function addAttributeOption(command: Command): Command {
  return command.option(
    '--attribute',
    'after the samples, one unrecorded run per cell with --cpu-prof: where its cold start goes, by npm package (attribution.md)',
  );
}

export interface LimitOptions {
  initCpus: number;
  cpuPeriodUs: number;
}

export function limitOptionsOf(opts: Record<string, unknown>): LimitOptions {
  return { initCpus: opts.initCpus as number, cpuPeriodUs: Math.round((opts.cpuPeriod as number) * 1000) };
}
