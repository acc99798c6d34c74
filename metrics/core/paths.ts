/**
 * Where the project's files are: its root, and the generated files' folder and names (the writer in
 * generators/write.ts writes them there; a cell names its file with them).
 */
import path from 'node:path';
import { DEFAULT_SCHEMA, DEFAULT_SHAPE, type InitMode, type Schema, type Shape, type Target, type Variant } from './dimensions.ts';
import { targetKind } from './kinds.ts';

/** The checkout (or the installed package): the folder of package.json. */
export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * Where the tool keeps the files it writes for itself (generated/, .cache/, .runtimes/): the checkout,
 * or, for a package installed under a node_modules folder, `node_modules/.cache/coldstart` beside it,
 * so the installed package stays as npm wrote it (npm may reinstall it, or install it read-only).
 */
export function workRootOf(projectRoot: string): string {
  const parts = projectRoot.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  return at < 0 ? projectRoot : path.join(parts.slice(0, at + 1).join(path.sep) || path.sep, '.cache', 'coldstart');
}

/** True when the tool runs from a package installed under node_modules (not from a checkout). */
export const INSTALLED = workRootOf(PROJECT_ROOT) !== PROJECT_ROOT;

export const WORK_ROOT = workRootOf(PROJECT_ROOT);

/** A file's route shape and schema weight; both default to the files as they always were (flat, small). */
export interface ShapeOptions {
  shape?: Shape;
  schema?: Schema;
  /** a Lambda file's init mode; eager files are ES modules in a folder of their own (default lazy: the files as they always were) */
  init?: InitMode;
}

/** The folder of eager Lambda files: apart from the lazy ones, so that the client, which tries .js before .mjs, loads the file named. */
export const EAGER_FOLDER = 'eager';

export const GENERATED_DIR = path.join(WORK_ROOT, 'generated');

/** `N-startup-F-routes.js`: the name of a generated file, for every target. */
export function generatedName(framework: string, routes: number, extension = '.js'): string {
  return `${routes}-startup-${framework}-routes${extension}`;
}

/**
 * Where a generated file lives, relative to generated/: the default variant (validated) at the top,
 * other variants in a folder of their own name, then a folder for a shape other than flat and one for a
 * schema other than small (`plain/params/user/…`); Lambda files the same way under `lambda/`, eager
 * ones first in `eager/` and as .mjs (`lambda/eager/…`).
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
    ...(targetKind(target).plain ? [] : [target]),
    ...(shaped.init === 'eager' ? [EAGER_FOLDER] : []),
    ...(variant === 'validated' ? [] : [variant]),
    ...(shape === DEFAULT_SHAPE ? [] : [shape]),
    ...(schema === DEFAULT_SCHEMA ? [] : [schema]),
  ];
  return path.posix.join(...folders, generatedName(framework, routes, shaped.init === 'eager' ? '.mjs' : '.js'));
}
