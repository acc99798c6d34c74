/**
 * The calibration table: real AWS Lambda cold starts of a hello-world reference function
 * (`exports.handler = () => ({statusCode: 200})`, zip), by runtime line, architecture and memory
 * size, with where the figures came from and when. The tool ships one (lambda-reference.json, from
 * maxday/lambda-perf's published daily data) and `lambda:reference` rebuilds it from lambda-perf's
 * data files or a user's own REPORT lines. Reports read it to derive what Lambda adds to a local
 * measurement of the same function.
 */
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { readTextBounded } from '../store/input-files.ts';
import type { Architecture } from '../core/lambda-platform.ts';
import { stateIssue } from '../core/state-schema.ts';
import { referenceTableSchema } from './calibration-schema.ts';

/** The reference function every row measured. */
export const REFERENCE_HANDLER = 'exports.handler = () => ({statusCode: 200})';

/**
 * A distribution in ms: median, interquartile range, count, and its tail (the 95th and 99th
 * percentiles; absent from tables written before they were computed).
 */
export interface Spread {
  median: number;
  p25: number;
  p75: number;
  p95?: number;
  p99?: number;
  n: number;
}

export interface ReferenceRow {
  /** Lambda's runtime identifier: nodejs20.x, nodejs22.x, nodejs24.x */
  runtime: string;
  architecture: Architecture;
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
  /** the code-loading term's k refitted from the user's real runs (lambda:calibrate); absent: the shipped k */
  codeLoading?: FittedCodeLoading;
}

/** k as lambda:calibrate refits it from real runs: used instead of the shipped one by the estimates made with the table. */
export interface FittedCodeLoading {
  coefficient: number;
  /** the shipped k it replaces */
  shippedCoefficient: number;
  /** functions (cells) with an excess over the hello world the fit used, and their points (one per memory size) */
  functions: number;
  points: number;
  /** the largest excess (at the shipped fit's speed) among them, ms: beyond it the term is extrapolated */
  fittedUpToMs: number;
  /** leave-one-out: per function, the smallest and largest p50 error of its points, % */
  looErrorPct: Record<string, [number, number]>;
}

export const SHIPPED_REFERENCE_FILE = path.join(import.meta.dirname, 'lambda-reference.json');

export class ReferenceTableError extends Error {}

/** A calendar day written YYYY-MM-DD (2026-02-30 is not one). */
export function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return Number.isFinite(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

const isFigure = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** A spread's fields, read: the tail is optional (older tables) but, when given, a figure above the median and in order. */
function readSpread(value: unknown): Spread | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (!isFigure(v.median) || !isFigure(v.p25) || !isFigure(v.p75) || !isFigure(v.n)) return undefined;
  const spread: Spread = { median: v.median, p25: v.p25, p75: v.p75, n: v.n };
  if (v.p95 === undefined && v.p99 === undefined) return spread;
  if (!isFigure(v.p95) || !isFigure(v.p99) || !(v.median <= v.p95 && v.p95 <= v.p99)) return undefined;
  return { median: v.median, p25: v.p25, p75: v.p75, p95: v.p95, p99: v.p99, n: v.n };
}

/** Check an untrusted table (a file a user wrote or refreshed); the error names what is wrong. */
export function parseReferenceTable(value: unknown, file: string): ReferenceTable {
  const fail = (why: string) => new ReferenceTableError(`${file} is not a calibration table: ${why}`);
  if (value === null || typeof value !== 'object') throw fail('not a JSON object');
  // every field's type and range first (a memory size of 1e308, a runtime with escape bytes), named
  const issue = stateIssue(referenceTableSchema, value);
  // `rows[0].initMs.p99: …` as the table's own words, `row 1: initMs.p99: …`
  if (issue) throw fail(issue.replace(/^rows\[(\d+)\]\.?/, (_, i: string) => `row ${Number(i) + 1}: `));
  const v = value as Record<string, unknown>;
  for (const key of ['source', 'from', 'to', 'handler', 'notes'] as const) {
    if (typeof v[key] !== 'string') throw fail(`no ${key}`);
  }
  for (const key of ['from', 'to'] as const) {
    if (!isDay(v[key] as string)) throw fail(`${key} is not a day (YYYY-MM-DD)`);
  }
  if ((v.from as string) > (v.to as string)) throw fail('from is after to');
  if (!Array.isArray(v.rows)) throw fail('no rows');
  const rows = v.rows.map((row: unknown, i): ReferenceRow => {
    const r = (row ?? {}) as Record<string, unknown>;
    if (typeof r.runtime !== 'string' || (r.architecture !== 'x86_64' && r.architecture !== 'arm64'))
      throw fail(`row ${i + 1}: runtime or architecture`);
    if (typeof r.memoryMB !== 'number' || !Number.isInteger(r.memoryMB)) throw fail(`row ${i + 1}: memoryMB`);
    const initMs = readSpread(r.initMs);
    const durationMs = readSpread(r.durationMs);
    if (!initMs || !durationMs)
      throw fail(`row ${i + 1}: initMs or durationMs (median, p25, p75, n; p95 and p99 together, median ≤ p95 ≤ p99)`);
    return {
      runtime: r.runtime,
      architecture: r.architecture,
      memoryMB: r.memoryMB,
      initMs,
      durationMs,
      ...(typeof r.maxMemoryUsedMB === 'number' ? { maxMemoryUsedMB: r.maxMemoryUsedMB } : {}),
    };
  });
  const codeLoading = v.codeLoading === undefined ? undefined : readFittedCodeLoading(v.codeLoading);
  if (codeLoading === null) throw fail('codeLoading (coefficient, shippedCoefficient, functions, points, fittedUpToMs, looErrorPct)');
  return {
    source: v.source as string,
    from: v.from as string,
    to: v.to as string,
    handler: v.handler as string,
    notes: v.notes as string,
    rows,
    ...(codeLoading ? { codeLoading } : {}),
  };
}

/** A refitted k's record, read; null when malformed. */
function readFittedCodeLoading(value: unknown): FittedCodeLoading | null {
  if (value === null || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
  if (!finite(v.coefficient) || !finite(v.shippedCoefficient) || !isFigure(v.functions) || !isFigure(v.points) || !isFigure(v.fittedUpToMs))
    return null;
  if (v.looErrorPct === null || typeof v.looErrorPct !== 'object') return null;
  const loo: Record<string, [number, number]> = {};
  for (const [name, range] of Object.entries(v.looErrorPct)) {
    if (!Array.isArray(range) || range.length !== 2 || !finite(range[0]) || !finite(range[1])) return null;
    loo[name] = [range[0], range[1]];
  }
  return {
    coefficient: v.coefficient,
    shippedCoefficient: v.shippedCoefficient,
    functions: v.functions,
    points: v.points,
    fittedUpToMs: v.fittedUpToMs,
    looErrorPct: loo,
  };
}

/** A calibration table (and each lambda-perf data file) is read whole up to this; the shipped one is a few KiB. */
export const MAX_REFERENCE_BYTES = 64 * 2 ** 20;

export function readReferenceTable(file = SHIPPED_REFERENCE_FILE): ReferenceTable {
  let text: string;
  try {
    text = readTextBounded(file, MAX_REFERENCE_BYTES, 'a calibration table');
  } catch (error) {
    throw new ReferenceTableError(error instanceof UsageError ? error.message : `cannot read the calibration table ${file}`);
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

/** The days of lambda-perf data a refreshed table holds by default: the newest 30 day files, as the shipped table. */
export const DEFAULT_LAMBDA_PERF_DAYS = 30;
/** At most this many day files are read in one refresh (lambda-perf's data/ holds one a day: a year is 365). */
export const MAX_LAMBDA_PERF_FILES = 1000;

/** A calibration older than this many days (a quarter) against the run's date is stale: lambda-perf's figures move 15–25 ms a month. */
export const STALE_AFTER_DAYS = 90;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days from the table's last day of data to `date` (an ISO date or timestamp); undefined when `date` is not one. */
export function referenceAgeDays(table: Pick<ReferenceTable, 'to'>, date: string): number | undefined {
  const run = Date.parse(date.slice(0, 10));
  const to = Date.parse(table.to);
  if (!Number.isFinite(run) || !Number.isFinite(to)) return undefined;
  return Math.floor((run - to) / DAY_MS);
}

/**
 * The newest day of data maxday/lambda-perf had published when this version of coldstart shipped
 * (its data/ folder, checked at release): a table that ends there cannot be refreshed from lambda-perf
 * until it publishes more, so the stale warning says so instead of sending the user to a dead end.
 */
export const LAMBDA_PERF_NEWEST = '2026-08-22';

/**
 * The warning a report gives, once, when its calibration's data ended more than STALE_AFTER_DAYS
 * before the run (meta.json's startedAt, never the wall clock: the same run folder reports the same
 * bytes), with what the user can do about it.
 */
export function staleReferenceWarning(table: Pick<ReferenceTable, 'from' | 'to'>, startedAt: string | undefined): string | undefined {
  if (startedAt === undefined) return undefined;
  const age = referenceAgeDays(table, startedAt);
  if (age === undefined || age <= STALE_AFTER_DAYS) return undefined;
  const newest =
    table.to >= LAMBDA_PERF_NEWEST
      ? `lambda-perf's newest published data ends ${LAMBDA_PERF_NEWEST} (when this coldstart shipped), as this table does: ` +
        'nothing newer to refresh from there yet. When it publishes newer days, '
      : `lambda-perf's data went on to at least ${LAMBDA_PERF_NEWEST}: `;
  return (
    `the Lambda calibration's data (${table.from}–${table.to}) ended ${age} days before this run (${startedAt.slice(0, 10)}), ` +
    `more than a quarter (${STALE_AFTER_DAYS} days); real cold starts move 15–25 ms from month to month, so the Init estimates ` +
    `may be off by that much. ${newest}npm run lambda:reference -- --lambda-perf <its data folder> rebuilds the table; ` +
    'or deploy the hello world yourself and give its REPORT lines: npm run lambda:reference -- --reports <file> ' +
    '--lambda-runtime nodejs24.x --arch x86_64. Then npm run report -- <run folder> (docs/guide/lambda.md#what-lambda-adds-the-calibration)'
  );
}

/** One line naming the table's provenance, for reports. */
export function referenceProvenance(table: ReferenceTable): string {
  return `${table.source} (hello world: \`${table.handler}\`; ${table.notes})`;
}
