/**
 * The calibration table: real AWS Lambda cold starts of a hello-world reference function
 * (`exports.handler = () => ({statusCode: 200})`, zip), by runtime line, architecture and memory
 * size, with where the figures came from and when. The tool ships one (lambda-reference.json, from
 * maxday/lambda-perf's published daily data) and `lambda:reference` rebuilds it from lambda-perf's
 * data files or a user's own REPORT lines. Reports read it to derive what Lambda adds to a local
 * measurement of the same function.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The reference function every row measured. */
export const REFERENCE_HANDLER = 'exports.handler = () => ({statusCode: 200})';

/** A distribution in ms: median, interquartile range, count. */
export interface Spread {
  median: number;
  p25: number;
  p75: number;
  n: number;
}

export interface ReferenceRow {
  /** Lambda's runtime identifier: nodejs20.x, nodejs22.x, nodejs24.x */
  runtime: string;
  architecture: 'x86_64' | 'arm64';
  memoryMB: number;
  /** Init Duration of the cold starts */
  initMs: Spread;
  /** Duration of the first (cold) invocation; lambda-perf publishes a daily mean, so n counts days there */
  durationMs: Spread;
  /** median Max Memory Used, MB */
  maxMemoryUsedMB?: number;
}

export interface ReferenceTable {
  /** where the figures come from, without a URL: "maxday/lambda-perf data, dates 2026-07-24–2026-08-22" */
  source: string;
  /** the first and last day of the data, YYYY-MM-DD */
  from: string;
  to: string;
  handler: string;
  /** how the durations were summarised, in a few words */
  notes: string;
  rows: ReferenceRow[];
}

export const SHIPPED_REFERENCE_FILE = path.join(import.meta.dirname, 'lambda-reference.json');

export class ReferenceTableError extends Error {}

function isSpread(value: unknown): value is Spread {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (['median', 'p25', 'p75', 'n'] as const).every((k) => typeof v[k] === 'number' && Number.isFinite(v[k]) && v[k] >= 0);
}

/** Check an untrusted table (a file a user wrote or refreshed); the error names what is wrong. */
export function parseReferenceTable(value: unknown, file: string): ReferenceTable {
  const fail = (why: string) => new ReferenceTableError(`${file} is not a calibration table: ${why}`);
  if (value === null || typeof value !== 'object') throw fail('not a JSON object');
  const v = value as Record<string, unknown>;
  for (const key of ['source', 'from', 'to', 'handler', 'notes'] as const) {
    if (typeof v[key] !== 'string') throw fail(`no ${key}`);
  }
  if (!Array.isArray(v.rows)) throw fail('no rows');
  const rows = v.rows.map((row: unknown, i): ReferenceRow => {
    const r = (row ?? {}) as Record<string, unknown>;
    if (typeof r.runtime !== 'string' || (r.architecture !== 'x86_64' && r.architecture !== 'arm64'))
      throw fail(`row ${i + 1}: runtime or architecture`);
    if (typeof r.memoryMB !== 'number' || !Number.isInteger(r.memoryMB)) throw fail(`row ${i + 1}: memoryMB`);
    if (!isSpread(r.initMs) || !isSpread(r.durationMs)) throw fail(`row ${i + 1}: initMs or durationMs`);
    return {
      runtime: r.runtime,
      architecture: r.architecture,
      memoryMB: r.memoryMB,
      initMs: r.initMs,
      durationMs: r.durationMs,
      ...(typeof r.maxMemoryUsedMB === 'number' ? { maxMemoryUsedMB: r.maxMemoryUsedMB } : {}),
    };
  });
  return {
    source: v.source as string,
    from: v.from as string,
    to: v.to as string,
    handler: v.handler as string,
    notes: v.notes as string,
    rows,
  };
}

export function readReferenceTable(file = SHIPPED_REFERENCE_FILE): ReferenceTable {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ReferenceTableError(`cannot read the calibration table ${file}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ReferenceTableError(`${file} is not JSON`);
  }
  return parseReferenceTable(value, file);
}

/** The row of a runtime line, architecture and memory size, if the table has one. */
export function referenceRow(table: ReferenceTable, runtime: string, architecture: string, memoryMB: number): ReferenceRow | undefined {
  return table.rows.find((r) => r.runtime === runtime && r.architecture === architecture && r.memoryMB === memoryMB);
}

/** One line naming the table's provenance, for reports. */
export function referenceProvenance(table: ReferenceTable): string {
  return `${table.source} (hello world: \`${table.handler}\`; ${table.notes})`;
}
