/**
 * Parsers of option values: text to a checked value of the domain (a route count, a memory size, a
 * price, a shard). Every problem is a UsageError naming the option and the valid choices. The CLI
 * hands them to commander; nothing here knows commander.
 */
import { UsageError } from './errors.ts';
import { MAX_ROUTE_COUNTS, MAX_VERSIONS } from './run-bounds.ts';
import { BUNDLE_BUILDS, isPackageVersion, MAX_ROUTES, MIN_ROUTES, splitPackageVersion, type Build } from './dimensions.ts';
import { MAX_MEMORY_MB, MIN_MEMORY_MB, parseArchitecture, parseLambdaRuntime, type Architecture } from './lambda-platform.ts';
import type { LambdaLine, Shard } from './run-spec.ts';

/** A comma list; an empty item (`1,,2`, a trailing comma) is an error, not something to skip. */
export function parseList(option: string, text: string): string[] {
  const items = text.split(',').map((item) => item.trim());
  if (items.length === 1 && items[0] === '') throw new UsageError(`${option} needs at least one value`);
  if (items.some((item) => item === '')) throw new UsageError(`${option}: "${text}" has an empty item`);
  return items;
}

export function parseRoutes(text: string): number[] {
  const counts = parseList('--routes', text).map((item) => {
    const n = /^\d+$/.test(item) ? Number(item) : NaN;
    if (!Number.isInteger(n) || n < MIN_ROUTES || n > MAX_ROUTES) {
      throw new UsageError(`--routes: "${item}" is not a route count (an integer from ${MIN_ROUTES} to ${MAX_ROUTES})`);
    }
    return n;
  });
  const distinct = [...new Set(counts)].sort((a, b) => a - b);
  if (distinct.length > MAX_ROUTE_COUNTS) {
    throw new UsageError(`--routes: ${distinct.length} route counts, over the bound of ${MAX_ROUTE_COUNTS} a run: give fewer`);
  }
  return distinct;
}

export function parseInteger(option: string, min: number, max = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text: string) => {
    const n = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new UsageError(`${option}: "${text}" is not an integer from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'up' : max}`);
    }
    return n;
  };
}

/**
 * The longest limit a timer can hold is 2^31 − 1 ms (24.8 days); Node fires a longer one after 1 ms.
 * A sample's limit stays far below it: an hour.
 */
export const MAX_TIMEOUT_S = 3600;

export function parseSeconds(option: string, max = MAX_TIMEOUT_S): (text: string) => number {
  return (text: string) => {
    const n = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n > 0) || n > max)
      throw new UsageError(`${option}: "${text}" is not a positive number of seconds up to ${max}`);
    return n;
  };
}

export function parseChoice<T extends string>(option: string, choices: readonly T[]): (text: string) => T {
  return (text: string) => {
    if (!(choices as readonly string[]).includes(text)) throw new UsageError(`${option}: "${text}" is not one of ${choices.join(', ')}`);
    return text as T;
  };
}

/** A comma list of choices, deduplicated in the order given (the first is what the others are compared to). */
export function parseChoiceList<T extends string>(option: string, choices: readonly T[]): (text: string) => T[] {
  const one = parseChoice(option, choices);
  return (text: string) => [...new Set(parseList(option, text).map(one))];
}

/** A comma list of choices, `all` standing for every one (in their own order). */
export function parseAllList<T extends string>(option: string, choices: readonly T[]): (text: string) => T[] {
  const parse = parseChoiceList(option, [...choices, 'all'] as const);
  return (text: string) => [...new Set(parse(text).flatMap((v) => (v === 'all' ? [...choices] : [v])))];
}

/** `--frameworks`: `all`, or names (checked against the registry when the frameworks are selected). */
export function parseFrameworks(text: string): string[] | 'all' {
  if (text.trim() === 'all') return 'all';
  return [...new Set(parseList('--frameworks', text))];
}

/** A Lambda memory size: Lambda accepts 128 MB to 10240 MB. */
export function parseMemory(option: string): (text: string) => number {
  return (text: string) => {
    const n = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
    if (!Number.isInteger(n) || n < MIN_MEMORY_MB || n > MAX_MEMORY_MB)
      throw new UsageError(`${option}: "${text}" is not a memory size in MB from ${MIN_MEMORY_MB} to ${MAX_MEMORY_MB}`);
    return n;
  };
}

export function parsePrice(text: string): number {
  const n = Number(text);
  if (!/^\d*\.?\d+(e-?\d+)?$/i.test(text.trim()) || !(n > 0) || n >= 1) {
    throw new UsageError(`--price: "${text}" is not a price in $ per GB-second (e.g. 0.0000166667)`);
  }
  return n;
}

/** The longest route budget: an hour (a cold start beyond it is no budget to plan routes against). */
export const MAX_BUDGET_MS = 3_600_000;

/** --budget: a time in ms (`500`, `500ms`) or seconds (`1.5s`), above 0 and at most an hour; returned in ms. */
export function parseBudget(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/.exec(text.trim());
  const value = match ? Number(match[1]) * (match[2] === 's' ? 1000 : 1) : NaN;
  if (!(value > 0) || value > MAX_BUDGET_MS) {
    throw new UsageError(`--budget: "${text}" is not a time above 0 and up to an hour (e.g. 500ms, 500 or 1.5s)`);
  }
  return value;
}

export function parseRatio(text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n >= 1)) {
    throw new UsageError(`--fail-above: "${text}" is not a ratio of at least 1 (e.g. 1.10 for 10 % slower)`);
  }
  return n;
}

/** A positive decimal number up to `max` (e.g. `--init-cpus 1.5`). */
export function parsePositive(option: string, max: number, what: string): (text: string) => number {
  return (text: string) => {
    const n = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n > 0) || n > max)
      throw new UsageError(`${option}: "${text}" is not ${what} above 0 and at most ${max}`);
    return n;
  };
}

/** A percentage above 0 and below 100, with or without `%` (`0.5%`), as a share (0.005). */
export function parsePercentShare(option: string): (text: string) => number {
  return (text: string) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
    const percent = match ? Number(match[1]) : NaN;
    if (!(percent > 0 && percent < 100)) throw new UsageError(`${option}: "${text}" is not a percentage above 0 and below 100 (e.g. 0.5%)`);
    return percent / 100;
  };
}

/** `--shard i/n`: a deterministic part of the cells, for a matrix of machines. */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || count > 1000 || index < 1 || index > count) {
    throw new UsageError(`--shard: "${text}" is not i/n with 1 <= i <= n <= 1000 (e.g. 2/4)`);
  }
  return { index, count };
}

/** `--samples`: a count, or `auto` (rounds until every median is known to --precision). */
export function parseSamples(text: string): number | 'auto' {
  return text.trim() === 'auto' ? 'auto' : parseInteger('--samples', 1, 10_000)(text);
}

/** A comma list of Lambda memory sizes, deduplicated and sorted. */
export function parseMemoryList(option: string): (text: string) => number[] {
  const one = parseMemory(option);
  return (text: string) => [...new Set(parseList(option, text).map(one))].sort((a, b) => a - b);
}

/** A comma list of Lambda runtime lines (or `node`, the node running coldstart), deduplicated. */
export function parseLambdaLines(option: string): (text: string) => LambdaLine[] {
  return (text: string) => [...new Set(parseList(option, text).map((v) => parseLambdaRuntime(option, v)))];
}

/** `--arch x86_64,arm64`: a comma list of Lambda architectures (or x86, the old name of x86_64), each once, in the order given. */
export function parseArchitectures(option: string): (text: string) => Architecture[] {
  return (text: string) => [...new Set(parseList(option, text).map((value) => parseArchitecture(option, value)))];
}

/** The builds a package can ship: a zip holds one bundled file (the plain build's files and node_modules are not packaged). */
export const PACKAGE_BUILDS = BUNDLE_BUILDS satisfies readonly Build[];
export type PackageBuild = (typeof PACKAGE_BUILDS)[number];

/** `--build`'s value, or a UsageError saying why the plain build is not one. */
export function parsePackageBuild(text: string): PackageBuild {
  const build = PACKAGE_BUILDS.find((b) => b === text);
  if (build) return build;
  throw new UsageError(
    `--build must be ${PACKAGE_BUILDS.join(' or ')}, got ${JSON.stringify(text).slice(0, 60)}: a package's zip holds one bundled file`,
  );
}

/**
 * `--versions`: `fastify@4.28.1,5.6.1` (a bare version continues the package before it), several
 * packages in one list or given as further arguments or flags; each item an exact version
 * (`package@x.y.z`), so the same command installs the same code. `previous`: the values of the
 * arguments before this one (commander's variadic and repeated options); a value given twice counts once.
 */
export function parseVersions(text: string, previous: readonly string[] = []): string[] {
  const out = [...previous];
  let pkg = '';
  for (const item of parseList('--versions', text)) {
    const at = item.lastIndexOf('@');
    const value = at > 0 ? item : pkg !== '' && at === -1 ? `${pkg}@${item}` : undefined;
    if (value === undefined)
      throw new UsageError(`--versions: "${item}" names no package: write package@version (fastify@4.28.1), then bare versions (5.6.1)`);
    const checked: unknown = value;
    if (!isPackageVersion(checked))
      throw new UsageError(`--versions: "${String(checked)}" is not a package at an exact version (package@x.y.z; no ranges or tags)`);
    pkg = splitPackageVersion(value).pkg;
    if (!out.includes(value)) out.push(value);
  }
  if (out.length > MAX_VERSIONS)
    throw new UsageError(`--versions: ${out.length} versions, over the bound of ${MAX_VERSIONS} a run (each is installed): give fewer`);
  return out;
}
