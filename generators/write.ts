/** The writer: turns (generator, routes, variant) into a file under generated/. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './registry.ts';
import { MAX_ROUTES, MIN_ROUTES, type FrameworkGenerator, type Target, type Variant } from './types.ts';

export const GENERATED_DIR = path.join(PROJECT_ROOT, 'generated');

/** `N-startup-F-routes.js`: the name of a generated file, for every target. */
export function generatedName(framework: string, routes: number): string {
  return `${routes}-startup-${framework}-routes.js`;
}

/**
 * Where a generated file lives, relative to generated/: the default variant (validated) at the top,
 * other variants in a folder of their own name; Lambda files the same way under `lambda/`.
 */
export function generatedRelativePath(framework: string, variant: Variant, routes: number, target: Target = 'server'): string {
  const name = generatedName(framework, routes);
  const file = variant === 'validated' ? name : path.posix.join(variant, name);
  return target === 'server' ? file : path.posix.join(target, file);
}

export class RouteCountError extends Error {}

/** Thrown when asked to write a generator that cannot exist on its target (`unsupported`). */
export class UnsupportedError extends Error {}

export function checkRouteCount(routes: number): number {
  if (!Number.isInteger(routes) || routes < MIN_ROUTES || routes > MAX_ROUTES) {
    throw new RouteCountError(`route count must be an integer from ${MIN_ROUTES} to ${MAX_ROUTES}, got ${String(routes)}`);
  }
  return routes;
}

export interface Written {
  file: string;
  /** false when the file already held these exact bytes */
  changed: boolean;
}

/** Generate one file; rewrite it only when its bytes change, so mtimes mean something. */
export async function writeGenerated(
  generator: FrameworkGenerator,
  routes: number,
  variant: Variant,
  outDir = GENERATED_DIR,
): Promise<Written> {
  checkRouteCount(routes);
  if (generator.unsupported) throw new UnsupportedError(`${generator.name} (${generator.target}): ${generator.unsupported}`);
  const source = await generator.generate({ routes, variant });
  const file = path.join(outDir, generatedRelativePath(generator.name, variant, routes, generator.target));
  mkdirSync(path.dirname(file), { recursive: true });
  let previous: string | undefined;
  try {
    previous = readFileSync(file, 'utf8');
  } catch {
    previous = undefined;
  }
  if (previous === source) return { file, changed: false };
  writeFileSync(file, source);
  return { file, changed: true };
}
