/**
 * A cell is one measured configuration. Every stage (plan, runner, samples, aggregation, every
 * output) carries the same record; its dimensions are listed once, here.
 */
import path from 'node:path';
import { generatedRelativePath, GENERATED_DIR } from '../../generators/write.ts';
import type { Variant } from '../../generators/types.ts';

export interface Cell {
  framework: string;
  variant: Variant;
  routes: number;
  /** which runtime binary runs the file */
  runtime: string;
  /** how the file is built before it runs */
  build: string;
  /** Node's module compile cache */
  compileCache: string;
}

/** The dimensions in the order tables show and sort them. */
export const CELL_DIMENSIONS = ['framework', 'variant', 'routes', 'runtime', 'build', 'compileCache'] as const satisfies readonly (keyof Cell)[];
export type Dimension = (typeof CELL_DIMENSIONS)[number];

/** The value a dimension has when a run does not vary it; labels leave defaults out. */
export const DIMENSION_DEFAULTS = { variant: 'validated', runtime: 'node', build: 'plain', compileCache: 'off' } as const;

export function makeCell(fields: Pick<Cell, 'framework' | 'variant' | 'routes'> & Partial<Cell>): Cell {
  return {
    framework: fields.framework,
    variant: fields.variant,
    routes: fields.routes,
    runtime: fields.runtime ?? DIMENSION_DEFAULTS.runtime,
    build: fields.build ?? DIMENSION_DEFAULTS.build,
    compileCache: fields.compileCache ?? DIMENSION_DEFAULTS.compileCache,
  };
}

/** A stable identity for grouping. */
export function cellKey(cell: Cell): string {
  return CELL_DIMENSIONS.map((d) => String(cell[d])).join('|');
}

/** The generated file a cell runs, relative to generated/. */
export function cellFile(cell: Cell): string {
  return generatedRelativePath(cell.framework, cell.variant, cell.routes);
}

export function cellFilePath(cell: Cell): string {
  return path.join(GENERATED_DIR, cellFile(cell));
}

/** The seeds' row label, `N-startup-F-routes.js`, with the non-default dimensions after it. */
export function cellLabel(cell: Cell): string {
  const extras = (['runtime', 'build', 'compileCache'] as const)
    .filter((d) => cell[d] !== DIMENSION_DEFAULTS[d])
    .map((d) => `${d}=${cell[d]}`);
  return extras.length ? `${cellFile(cell)} [${extras.join(', ')}]` : cellFile(cell);
}

/** Sort by framework, variant, then routes numerically, then the other dimensions. */
export function compareCells(a: Cell, b: Cell): number {
  for (const d of CELL_DIMENSIONS) {
    const x = a[d];
    const y = b[d];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/** Parse a cell out of untrusted JSON (samples.jsonl); undefined when it is not one. */
export function parseCell(value: unknown): Cell | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.framework !== 'string' || (v.variant !== 'validated' && v.variant !== 'plain')) return undefined;
  if (typeof v.routes !== 'number' || !Number.isInteger(v.routes)) return undefined;
  return makeCell({
    framework: v.framework,
    variant: v.variant,
    routes: v.routes,
    ...(typeof v.runtime === 'string' ? { runtime: v.runtime } : {}),
    ...(typeof v.build === 'string' ? { build: v.build } : {}),
    ...(typeof v.compileCache === 'string' ? { compileCache: v.compileCache } : {}),
  });
}
