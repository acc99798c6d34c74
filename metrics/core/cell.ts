/**
 * A cell is one measured configuration. Every stage (plan, runner, samples, aggregation, every
 * output) carries the same record; its dimensions are listed once, here.
 */
import path from 'node:path';
import { generatedRelativePath, GENERATED_DIR } from './paths.ts';
import { SCHEMAS as SCHEMA_LIST, SHAPES as SHAPE_LIST } from './dimensions.ts';

const SHAPES: readonly string[] = SHAPE_LIST;
const SCHEMAS: readonly string[] = SCHEMA_LIST;

export type { Cell } from './dimensions.ts';
import { isDimensionValue, type Cell } from './dimensions.ts';

/** The dimensions in the order tables show and sort them. */
export const CELL_DIMENSIONS = [
  'framework',
  'variant',
  'shape',
  'schema',
  'routes',
  'target',
  'memory',
  'measure',
  'runtime',
  'build',
  'compileCache',
  'bootstrap',
  'fileCache',
  'source',
] as const satisfies readonly (keyof Cell)[];
export type Dimension = (typeof CELL_DIMENSIONS)[number];

/** The value a dimension has when a run does not vary it; labels leave defaults out. */
export const DIMENSION_DEFAULTS = {
  variant: 'validated',
  shape: 'flat',
  schema: 'small',
  runtime: 'node',
  build: 'plain',
  compileCache: 'off',
  target: 'server',
  memory: 0,
  bootstrap: 'probe',
  fileCache: 'warm',
  source: 'generated',
  measure: 'time',
} as const;

/**
 * Dimensions added after runs were first recorded: a key, a label or a CSV leaves them out while
 * they have their default, so an older run folder reports exactly as before.
 */
export const OPTIONAL_DIMENSIONS = [
  'target',
  'memory',
  'measure',
  'source',
  'shape',
  'schema',
  'bootstrap',
  'fileCache',
] as const satisfies readonly Dimension[];
type OptionalDimension = (typeof OPTIONAL_DIMENSIONS)[number];

function leavesDefault(cell: Cell, d: OptionalDimension): boolean {
  return cell[d] !== DIMENSION_DEFAULTS[d];
}

/** The dimensions a set of cells shows: every one, but an optional one only when some cell leaves its default. */
export function shownDimensions(cells: readonly Cell[]): Dimension[] {
  return CELL_DIMENSIONS.filter(
    (d) => !(OPTIONAL_DIMENSIONS as readonly string[]).includes(d) || cells.some((c) => leavesDefault(c, d as OptionalDimension)),
  );
}

export function makeCell(fields: Pick<Cell, 'framework' | 'variant' | 'routes'> & Partial<Cell>): Cell {
  return {
    framework: fields.framework,
    variant: fields.variant,
    shape: fields.shape ?? DIMENSION_DEFAULTS.shape,
    schema: fields.schema ?? DIMENSION_DEFAULTS.schema,
    routes: fields.routes,
    runtime: fields.runtime ?? DIMENSION_DEFAULTS.runtime,
    build: fields.build ?? DIMENSION_DEFAULTS.build,
    compileCache: fields.compileCache ?? DIMENSION_DEFAULTS.compileCache,
    target: fields.target ?? DIMENSION_DEFAULTS.target,
    memory: fields.memory ?? DIMENSION_DEFAULTS.memory,
    bootstrap: fields.bootstrap ?? DIMENSION_DEFAULTS.bootstrap,
    fileCache: fields.fileCache ?? DIMENSION_DEFAULTS.fileCache,
    source: fields.source ?? DIMENSION_DEFAULTS.source,
    measure: fields.measure ?? DIMENSION_DEFAULTS.measure,
  };
}

/** A stable identity for grouping (the bootstrap seeds derive from it, so it never changes for a cell). */
export function cellKey(cell: Cell): string {
  const base = (['framework', 'variant', 'routes', 'runtime', 'build', 'compileCache'] as const).map((d) => String(cell[d]));
  const extra = OPTIONAL_DIMENSIONS.filter((d) => leavesDefault(cell, d)).map((d) => `${d}=${cell[d]}`);
  return [...base, ...extra].join('|');
}

/**
 * The generated file a cell runs, relative to generated/ (Lambda cells, local or imported, run the
 * Lambda file); for the user's own app (`source` app), `app:<name>` (`lambda/app:<name>` for a handler).
 */
export function cellFile(cell: Cell): string {
  if (cell.source === APP_SOURCE) return `${cell.target === 'lambda' ? 'lambda/' : ''}app:${cell.framework}`;
  const shaped = { shape: cell.shape, schema: cell.schema };
  return generatedRelativePath(cell.framework, cell.variant, cell.routes, cell.target === 'server' ? 'server' : 'lambda', shaped);
}

/** The `source` of a cell measured from the user's own entry or handler. */
export const APP_SOURCE = 'app';

export function cellFilePath(cell: Cell): string {
  return path.join(GENERATED_DIR, cellFile(cell));
}

/** A cell's row label: its file, `N-startup-F-routes.js` (`lambda/…` for a Lambda cell), with the non-default dimensions after it. */
export function cellLabel(cell: Cell): string {
  // a local Lambda cell's file (lambda/…) already says its target
  // (`source` too: an app's label starts with `app:`)
  const extras = (['target', 'memory', 'measure', 'runtime', 'build', 'compileCache', 'bootstrap', 'fileCache'] as const)
    .filter((d) => cell[d] !== DIMENSION_DEFAULTS[d] && !(d === 'target' && cell.target === 'lambda'))
    .map((d) => (d === 'memory' ? `memory=${cell.memory}MB` : `${d}=${cell[d]}`));
  return extras.length ? `${cellFile(cell)} [${extras.join(', ')}]` : cellFile(cell);
}

/** Targets in the order tables show them: the server first, then the local Lambda, then AWS's figures. */
const TARGET_ORDER: readonly string[] = ['server', 'lambda', 'aws-lambda'];

/** Sort by framework, variant, then routes numerically, then the other dimensions. */
export function compareCells(a: Cell, b: Cell): number {
  for (const d of CELL_DIMENSIONS) {
    const x = a[d];
    const y = b[d];
    if (x === y) continue;
    const order = d === 'target' ? TARGET_ORDER : d === 'shape' ? SHAPES : d === 'schema' ? SCHEMAS : undefined;
    if (order) {
      const rank = (t: string) => (order.includes(t) ? order.indexOf(t) : order.length);
      if (rank(String(x)) !== rank(String(y))) return rank(String(x)) - rank(String(y));
    }
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/**
 * What a named dimension's value may be: a name of letters, digits and `._+:@/-` (every framework,
 * runtime, build, cache and target is one). Labels, file names and every report are built from these
 * values, so a stored cell cannot bring markup, a path out of generated/ or a line break with it.
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._+:@/-]{0,99}$/;

/** Parse a cell out of untrusted JSON (samples.jsonl); undefined when it is not one. */
export function parseCell(value: unknown): Cell | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const name = (x: unknown): x is string => typeof x === 'string' && NAME.test(x) && !x.includes('..');
  if (!name(v.framework) || (v.variant !== 'validated' && v.variant !== 'plain')) return undefined;
  if (typeof v.routes !== 'number' || !Number.isInteger(v.routes) || v.routes < 0) return undefined;
  const optional = [
    'runtime',
    'build',
    'compileCache',
    'target',
    'source',
    'measure',
    'bootstrap',
    'fileCache',
    'shape',
    'schema',
    'memory',
  ] as const;
  // a value that is not one of its dimension's (the table in dimensions.ts) makes the record no cell
  if (optional.some((d) => v[d] !== undefined && !isDimensionValue(d, v[d]))) return undefined;
  const { runtime, build, compileCache, target, shape, schema, memory, bootstrap, fileCache, source, measure } = v;
  return makeCell({
    framework: v.framework,
    variant: v.variant,
    routes: v.routes,
    ...(isDimensionValue('runtime', runtime) ? { runtime } : {}),
    ...(isDimensionValue('build', build) ? { build } : {}),
    ...(isDimensionValue('compileCache', compileCache) ? { compileCache } : {}),
    ...(isDimensionValue('target', target) ? { target } : {}),
    ...(isDimensionValue('shape', shape) ? { shape } : {}),
    ...(isDimensionValue('schema', schema) ? { schema } : {}),
    ...(isDimensionValue('memory', memory) ? { memory } : {}),
    ...(isDimensionValue('bootstrap', bootstrap) ? { bootstrap } : {}),
    ...(isDimensionValue('fileCache', fileCache) ? { fileCache } : {}),
    ...(isDimensionValue('source', source) ? { source } : {}),
    ...(isDimensionValue('measure', measure) ? { measure } : {}),
  });
}
