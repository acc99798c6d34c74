/** Parsing and checking what the user asked for. Every problem is a UsageError with the valid choices. */
import { missingPackage } from '../../generators/registry.ts';
import { MAX_ROUTES, MIN_ROUTES, VARIANTS, type FrameworkGenerator, type Variant } from '../../generators/types.ts';
import { UsageError } from '../core/errors.ts';

export const DEFAULT_ROUTES = [1, 10, 100, 500, 1000, 2000, 3000, 5000];

export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function parseRoutes(text: string): number[] {
  const items = parseList(text);
  if (items.length === 0) throw new UsageError('--routes needs at least one route count');
  const counts = items.map((item) => {
    const n = /^\d+$/.test(item) ? Number(item) : NaN;
    if (!Number.isInteger(n) || n < MIN_ROUTES || n > MAX_ROUTES) {
      throw new UsageError(`--routes: "${item}" is not a route count (an integer from ${MIN_ROUTES} to ${MAX_ROUTES})`);
    }
    return n;
  });
  return [...new Set(counts)].sort((a, b) => a - b);
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

export function parseSeconds(option: string): (text: string) => number {
  return (text: string) => {
    const n = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n > 0)) throw new UsageError(`${option}: "${text}" is not a positive number of seconds`);
    return n;
  };
}

export function parseChoice<T extends string>(option: string, choices: readonly T[]): (text: string) => T {
  return (text: string) => {
    if (!(choices as readonly string[]).includes(text)) throw new UsageError(`${option}: "${text}" is not one of ${choices.join(', ')}`);
    return text as T;
  };
}

export function parseVariants(text: string): Variant[] {
  if (text === 'all') return [...VARIANTS];
  return parseList(text).map(parseChoice('--variant', [...VARIANTS, 'all'] as const)).flatMap((v) => (v === 'all' ? [...VARIANTS] : [v]));
}

export interface FrameworkSelection {
  selected: FrameworkGenerator[];
  /** frameworks left out because a package is missing: name → reason */
  skipped: Map<string, string>;
}

export function installHint(generator: FrameworkGenerator, pkg: string): string {
  return `${generator.name} needs ${pkg}, which is not installed (${generator.installHint ?? `npm install ${generator.packages.join(' ')}`})`;
}

/**
 * `all` (the default) takes every registered framework whose packages resolve and skips the rest
 * with a reason; naming a framework whose packages are missing is an error.
 */
export function selectFrameworks(spec: string, generators: FrameworkGenerator[]): FrameworkSelection {
  const names = generators.map((g) => g.name);
  const skipped = new Map<string, string>();
  if (spec === 'all') {
    const selected = generators.filter((g) => {
      const missing = missingPackage(g);
      if (missing) skipped.set(g.name, `${missing} not installed`);
      return !missing;
    });
    if (selected.length === 0) throw new UsageError('no framework has its packages installed: run npm install');
    return { selected, skipped };
  }
  const wanted = [...new Set(parseList(spec))];
  if (wanted.length === 0) throw new UsageError(`--frameworks needs a name: one or more of ${names.join(', ')}, or all`);
  const selected = wanted.map((name) => {
    const generator = generators.find((g) => g.name === name);
    if (!generator) throw new UsageError(`unknown framework "${name}": choose from ${names.join(', ')}, or all`);
    const missing = missingPackage(generator);
    if (missing) throw new UsageError(installHint(generator, missing));
    return generator;
  });
  return { selected, skipped };
}
