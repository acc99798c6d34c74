/**
 * What the measured cold starts would cost on AWS Lambda, which bills the INIT phase of on-demand
 * functions since 1 August 2025: $ per million cold starts = ms/1000 × memory GB × $ per GB-s × 10^6.
 * Local timings are not Lambda timings; this is a scale for comparing frameworks, not a bill.
 */
import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.ts';
import { parseChoice } from '../plan/selection.ts';

export const ARCHES = ['x86', 'arm64'] as const;
export type Arch = (typeof ARCHES)[number];

/** AWS Lambda's on-demand duration price, $ per GB-second (first pricing tier, us-east-1). */
export const PRICE_PER_GB_SECOND: Record<Arch, number> = { x86: 0.0000166667, arm64: 0.0000133334 };
export const DEFAULT_MEMORY_MB = 1024;
export const DEFAULT_ARCH: Arch = 'x86';

export interface CostSettings {
  memoryMB: number;
  arch: Arch;
  /** $ per GB-second */
  pricePerGBs: number;
  /** true when the price was given (--price) rather than taken from the architecture */
  customPrice: boolean;
}

/** What a user may give (on `run`, kept in meta.json options, or on `report`). */
export interface CostOptions {
  memoryMB?: number;
  arch?: Arch;
  pricePerGBs?: number;
}

/** $ per million cold starts of `ms` each. Lambda counts a GB as 1024 MB. */
export function costPerMillion(ms: number, settings: Pick<CostSettings, 'memoryMB' | 'pricePerGBs'>): number {
  return (ms / 1000) * (settings.memoryMB / 1024) * settings.pricePerGBs * 1e6;
}

/**
 * The report's flags win over what the run stored, which wins over the defaults. A price given
 * with the same flags as an --arch wins over that arch's price; a report's --arch alone takes its
 * arch's price even when the run had given --price.
 */
export function resolveCost(report: CostOptions = {}, stored: CostOptions = {}): CostSettings {
  const arch = report.arch ?? stored.arch ?? DEFAULT_ARCH;
  const memoryMB = report.memoryMB ?? stored.memoryMB ?? DEFAULT_MEMORY_MB;
  const price = report.pricePerGBs ?? (report.arch !== undefined ? undefined : stored.pricePerGBs);
  return { memoryMB, arch, pricePerGBs: price ?? PRICE_PER_GB_SECOND[arch], customPrice: price !== undefined };
}

/** The cost options meta.json holds (run's options: memoryMB, arch, pricePerGBs), ignoring anything malformed. */
export function storedCost(options: Record<string, unknown> | undefined): CostOptions {
  const result: CostOptions = {};
  if (!options) return result;
  if (typeof options.memoryMB === 'number' && options.memoryMB > 0) result.memoryMB = options.memoryMB;
  if (typeof options.arch === 'string' && (ARCHES as readonly string[]).includes(options.arch)) result.arch = options.arch as Arch;
  if (typeof options.pricePerGBs === 'number' && options.pricePerGBs > 0) result.pricePerGBs = options.pricePerGBs;
  return result;
}

/** Lambda accepts 128 MB to 10240 MB. */
export function parseMemory(text: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < 128 || n > 10_240) throw new UsageError(`--memory: "${text}" is not a memory size in MB from 128 to 10240`);
  return n;
}

export function parsePrice(text: string): number {
  const n = Number(text);
  if (!/^\d*\.?\d+(e-?\d+)?$/i.test(text.trim()) || !(n > 0) || n >= 1) throw new UsageError(`--price: "${text}" is not a price in $ per GB-second (e.g. 0.0000166667)`);
  return n;
}

export function dollars(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return value >= 100 ? `$${value.toFixed(0)}` : value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(3)}`;
}

/** The lines the report prints under the cost table: settings, formula, caveats. */
export function costExplanation(settings: CostSettings): string {
  const gb = settings.memoryMB / 1024;
  return [
    `$ per million cold starts = firstResponse median (ms) / 1000 × ${settings.memoryMB} MB / 1024 (= ${gb} GB) × $${settings.pricePerGBs} per GB-s × 10^6` +
      ` (AWS Lambda on-demand, ${settings.customPrice ? 'price given with --price' : `${settings.arch} price`}; since 1 Aug 2025 Lambda bills the INIT phase of on-demand functions).`,
    '',
    '_These are local timings, not Lambda timings: Lambda gives a function CPU in proportion to its memory (one full vCPU at 1769 MB), runs its own runtime bootstrap, and rounds each duration up to 1 ms. Read this as the relative cost of the frameworks\' cold starts, not as a bill._',
  ].join('\n');
}

/** --memory, --arch and --price, on `run` (kept in meta.json) and on `report` (overriding it). */
export const memoryOption = () =>
  new Option('--memory <MB>', `Lambda memory for the cost table, in MB (default ${DEFAULT_MEMORY_MB})`).argParser(parseMemory);
export const archOption = () =>
  new Option('--arch <arch>', `Lambda architecture whose price the cost table uses: ${ARCHES.join(' or ')} (default ${DEFAULT_ARCH})`).argParser(parseChoice('--arch', ARCHES));
export const priceOption = () =>
  new Option('--price <usd>', "Lambda price in $ per GB-second (default: the architecture's on-demand price)").argParser(parsePrice);

export function addCostOptions(command: Command): Command {
  return command.addOption(memoryOption()).addOption(archOption()).addOption(priceOption());
}

export function costOptionsOf(opts: Record<string, unknown>): CostOptions {
  return {
    ...(typeof opts.memory === 'number' ? { memoryMB: opts.memory } : {}),
    ...(typeof opts.arch === 'string' ? { arch: opts.arch as Arch } : {}),
    ...(typeof opts.price === 'number' ? { pricePerGBs: opts.price } : {}),
  };
}

/** What `run` stores in meta.json's options: memory and arch always, the price when it was given. */
export function costMetaOptions(options: CostOptions = {}): Record<string, unknown> {
  return {
    memoryMB: options.memoryMB ?? DEFAULT_MEMORY_MB,
    arch: options.arch ?? DEFAULT_ARCH,
    ...(options.pricePerGBs !== undefined ? { pricePerGBs: options.pricePerGBs } : {}),
  };
}
