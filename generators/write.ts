/** The writer: turns (generator, routes, variant) into a file under generated/. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FrameworkGenerator } from './types.ts';
import { GENERATED_DIR, generatedRelativePath, type ShapeOptions } from '../metrics/core/paths.ts';
import { MAX_ROUTES, MIN_ROUTES, type Variant, DEFAULT_SCHEMA, DEFAULT_SHAPE } from '../metrics/core/dimensions.ts';

/** The generated files' folder and names live in core (a cell names its file with them). */
export { GENERATED_DIR, generatedRelativePath, type ShapeOptions } from '../metrics/core/paths.ts';

/**
 * generated/package.json: its files are CommonJS whatever the project around it says (the checkout
 * tracks it; an installed tool writes it into its own generated/ the first time).
 */
export const GENERATED_PACKAGE_JSON = '{ "type": "commonjs" }\n';

/** generated/package.json in `dir`, written when absent (a user's `"type": "module"` project must not make the files ES modules). */
export function ensureGeneratedPackage(dir: string = GENERATED_DIR): void {
  const file = path.join(dir, 'package.json');
  if (existsSync(file)) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, GENERATED_PACKAGE_JSON);
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

/** Why a Lambda file has no eager form when its generator does not say. */
export const NO_EAGER_INIT = "no eager form: its adapter's documentation moves no initialisation into INIT";

/** Why a generator cannot write a file of this shape and schema, or undefined when it can. */
export function unsupportedReason(generator: FrameworkGenerator, shaped: ShapeOptions = {}): string | undefined {
  if (generator.unsupported) return generator.unsupported;
  if (shaped.init === 'eager' && !generator.eagerInit) return generator.noEagerInit ?? NO_EAGER_INIT;
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
  const input = {
    routes,
    variant,
    ...(shaped.shape ? { shape: shaped.shape } : {}),
    ...(shaped.schema ? { schema: shaped.schema } : {}),
    ...(shaped.init === 'eager' ? { init: shaped.init } : {}),
  };
  const source = await generator.generate(input);
  const file = path.join(outDir, generatedRelativePath(generator.name, variant, routes, generator.target, shaped));
  if (outDir === GENERATED_DIR) ensureGeneratedPackage();
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
