/** The writer: turns (generator, routes, variant) into a file under generated/. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './registry.ts';
import type { FrameworkGenerator } from './types.ts';
import {
  MAX_ROUTES,
  MIN_ROUTES,
  type Target,
  type Variant,
  DEFAULT_SCHEMA,
  DEFAULT_SHAPE,
  type Schema,
  type Shape,
} from '../metrics/core/dimensions.ts';

/** A file's route shape and schema weight; both default to the files as they always were (flat, small). */
export interface ShapeOptions {
  shape?: Shape;
  schema?: Schema;
}

export const GENERATED_DIR = path.join(PROJECT_ROOT, 'generated');

/** `N-startup-F-routes.js`: the name of a generated file, for every target. */
export function generatedName(framework: string, routes: number): string {
  return `${routes}-startup-${framework}-routes.js`;
}

/**
 * Where a generated file lives, relative to generated/: the default variant (validated) at the top,
 * other variants in a folder of their own name, then a folder for a shape other than flat and one
 * for a schema other than small (`plain/params/user/…`); Lambda files the same way under `lambda/`.
 */
export function generatedRelativePath(
  framework: string,
  variant: Variant,
  routes: number,
  target: Target = 'server',
  shaped: ShapeOptions = {},
): string {
  const shape = shaped.shape ?? DEFAULT_SHAPE;
  const schema = shaped.schema ?? DEFAULT_SCHEMA;
  const folders = [
    ...(target === 'server' ? [] : [target]),
    ...(variant === 'validated' ? [] : [variant]),
    ...(shape === DEFAULT_SHAPE ? [] : [shape]),
    ...(schema === DEFAULT_SCHEMA ? [] : [schema]),
  ];
  return path.posix.join(...folders, generatedName(framework, routes));
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

/** Why a generator cannot write a file of this shape and schema, or undefined when it can. */
export function unsupportedReason(generator: FrameworkGenerator, shaped: ShapeOptions = {}): string | undefined {
  if (generator.unsupported) return generator.unsupported;
  const shape = shaped.shape ?? DEFAULT_SHAPE;
  const schema = shaped.schema ?? DEFAULT_SCHEMA;
  return generator.unsupportedShapes?.[shape] ?? generator.unsupportedShapes?.[schema];
}

/** Generate one file; rewrite it only when its bytes change, so mtimes mean something. */
export async function writeGenerated(
  generator: FrameworkGenerator,
  routes: number,
  variant: Variant,
  outDir = GENERATED_DIR,
  shaped: ShapeOptions = {},
): Promise<Written> {
  checkRouteCount(routes);
  const why = unsupportedReason(generator, shaped);
  if (why) throw new UnsupportedError(`${generator.name} (${generator.target}): ${why}`);
  const input = { routes, variant, ...(shaped.shape ? { shape: shaped.shape } : {}), ...(shaped.schema ? { schema: shaped.schema } : {}) };
  const source = await generator.generate(input);
  const file = path.join(outDir, generatedRelativePath(generator.name, variant, routes, generator.target, shaped));
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
