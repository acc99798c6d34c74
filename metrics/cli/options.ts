/**
 * The shared options of the commands not yet on typed option groups (generate, hyperfine,
 * lambda-package), on commander's own Command, read back from their untyped opts with
 * checks instead of casts. `run` and `measure` use the typed groups (cli/groups/), whose help these
 * follow; a command moved to the groups drops its import of this file.
 */
import { Option, type Command } from 'commander';
import { parseChoiceList, parseFrameworks, parseInteger, parseRoutes, parseSeconds, MAX_TIMEOUT_S, parseAllList } from '../core/parse.ts';
import {
  VARIANTS,
  type Variant,
  DEFAULT_SCHEMA,
  DEFAULT_SHAPE,
  SCHEMAS,
  SHAPES,
  type Schema,
  type Shape,
  RUNTIME_NAMES,
  DEFAULT_ROUTES,
  BUILDS,
  COMPILE_CACHES,
  DEFAULT_LEVERS,
  type LeverLists,
  isDimensionValue,
  type CellDimension,
  type DimensionValue,
} from '../core/dimensions.ts';

/** The values of an untyped option: a list of `values`, or undefined. */
function listOf<T extends string>(value: unknown, values: readonly T[]): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const items: T[] = [];
  for (const item of value) {
    const known = values.find((v) => v === item);
    if (known === undefined) return undefined;
    items.push(known);
  }
  return items;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.map(String) : undefined;
}

function numbers(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'number') ? value.map(Number) : undefined;
}

/** `--frameworks`, `--routes`, `--variant`, `--shape`, `--schema`: the selection of generate, hyperfine and lambda-package. */
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
        .argParser(parseAllList('--variant', VARIANTS)),
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
    frameworks: opts.frameworks === 'all' ? 'all' : (strings(opts.frameworks) ?? 'all'),
    routes: numbers(opts.routes) ?? [...DEFAULT_ROUTES],
    variants: listOf(opts.variant, VARIANTS) ?? ['validated'],
    shapes: listOf(opts.shape, SHAPES) ?? [DEFAULT_SHAPE],
    schemas: listOf(opts.schema, SCHEMAS) ?? [DEFAULT_SCHEMA],
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

/** A list option's values as its dimension's own type: every value one of the dimension's, else undefined. */
function dimensionList<K extends CellDimension>(d: K, value: unknown): DimensionValue<K>[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const values: DimensionValue<K>[] = [];
  for (const v of value as unknown[]) if (isDimensionValue(d, v)) values.push(v);
  return values.length === value.length ? values : undefined;
}

export function leverListsOf(opts: Record<string, unknown>): LeverLists {
  const lambdaRuntimes = dimensionList('runtime', opts.lambdaRuntime);
  const bootstraps = dimensionList('bootstrap', opts.lambdaBootstrap);
  const fileCaches = dimensionList('fileCache', opts.fileCache);
  return {
    runtimes: dimensionList('runtime', opts.runtime) ?? DEFAULT_LEVERS.runtimes,
    builds: dimensionList('build', opts.build) ?? DEFAULT_LEVERS.builds,
    compileCaches: dimensionList('compileCache', opts.compileCache) ?? DEFAULT_LEVERS.compileCaches,
    ...(lambdaRuntimes ? { lambdaRuntimes } : {}),
    ...(bootstraps ? { bootstraps } : {}),
    ...(fileCaches ? { fileCaches } : {}),
  };
}
