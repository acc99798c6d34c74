/**
 * Building the calibration table (calibration/lambda-reference.ts) from real cold starts of the hello-world
 * reference function:
 *
 * - maxday/lambda-perf's daily data files (`data/YYYY-MM-DD.json`: `runtimeData`, one entry per
 *   function with `r` its name `lambda-perf-nodejs22x-zip-128-x86_64`, `p` the package type, `m` the
 *   memory, `a` the architecture, `i` the Init Durations of that day's cold starts (10), `ad` the
 *   mean Duration of their first invocations and `mu` the mean Max Memory Used). Only `zip` Node.js
 *   functions are read; every Init Duration is one value, every day's mean Duration one value.
 * - a user's own REPORT lines of the reference function deployed (cold starts only: lines with an
 *   Init Duration), with the runtime line and architecture the user names (REPORT lines say neither).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { quantileSorted } from 'simple-statistics';
import { UsageError } from '../core/errors.ts';
import { readTextBounded } from '../store/input-files.ts';
import {
  DEFAULT_LAMBDA_PERF_DAYS,
  isDay,
  MAX_LAMBDA_PERF_FILES,
  MAX_REFERENCE_BYTES,
  parseReferenceTable,
  REFERENCE_HANDLER,
  type ReferenceRow,
  type ReferenceTable,
  type Spread,
} from '../calibration/lambda-reference.ts';
import { readReportFile } from './import.ts';
import { MAX_DURATION_MS, MAX_INIT_MS, MAX_MEMORY_MB, MIN_MEMORY_MB, type Architecture } from '../core/lambda-platform.ts';

/** A lambda-perf function name: `lambda-perf-nodejs22x-zip-128-x86_64`. */
const LAMBDA_PERF_NAME = /^lambda-perf-(nodejs\d+)x-(zip)-(\d+)-(x86_64|arm64)$/;
const DAY = /(\d{4}-\d{2}-\d{2})\.json$/;
const DAY_NAME = /^\d{4}-\d{2}-\d{2}\.json$/;

interface Collected {
  runtime: string;
  architecture: Architecture;
  memoryMB: number;
  init: number[];
  duration: number[];
  memory: number[];
}

export interface ReferenceInput {
  /** lambda-perf data files (the name holds the day) */
  lambdaPerfFiles?: string[];
  /** of those, only the newest this many days (default: all of them) */
  lambdaPerfDays?: number;
  /** REPORT-line files of the user's deployed reference function */
  reportFiles?: string[];
  /** the runtime line and architecture of the REPORT lines */
  runtime?: string;
  architecture?: Architecture;
  /** the date of the REPORT lines when they carry no timestamp (default today) */
  today?: string;
}

/**
 * Median, quartiles and count of the values; with `tail`, also their 95th and 99th percentiles (for
 * per-invocation values only: lambda-perf's Durations are daily means, whose tail is not an invocation's).
 */
export function spread(values: number[], tail = false): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  const at = (p: number) => round(quantileSorted(sorted, p));
  return { median: at(0.5), p25: at(0.25), p75: at(0.75), ...(tail ? { p95: at(0.95), p99: at(0.99) } : {}), n: sorted.length };
}

/** lambda-perf's data/ also holds last.json, a copy of the newest day: it is never read (it would count that day twice). */
const LAST_JSON = 'last.json';

export interface DayFiles {
  /** YYYY-MM-DD.json files, by day, oldest first */
  files: string[];
  /** last.json files left out (a copy of the newest day) */
  skipped: string[];
}

/**
 * The day files of the inputs, checked before any is read: a folder gives its YYYY-MM-DD.json files
 * (lambda-perf's data/ folder, or a download of it), a file is taken as it is; last.json is left out.
 * A name that is not a calendar day, a day after `today`, the same day twice or more than
 * MAX_LAMBDA_PERF_FILES files is a UsageError.
 */
export function lambdaPerfDayFiles(inputs: string[], today: string): DayFiles {
  const files: string[] = [];
  const skipped: string[] = [];
  for (const input of inputs) {
    let folder: boolean;
    try {
      folder = statSync(input).isDirectory();
    } catch (error) {
      throw new UsageError(`--lambda-perf ${input}: ${(error as NodeJS.ErrnoException).code ?? 'cannot be read'}`);
    }
    // a folder: its day files and last.json (lambda-perf's data/ also holds folders of older years, left alone)
    const names = folder
      ? readdirSync(input)
          .filter((n) => DAY_NAME.test(n) || n === LAST_JSON)
          .sort()
      : [path.basename(input)];
    for (const name of names) {
      const file = folder ? path.join(input, name) : input;
      if (name === LAST_JSON) skipped.push(file);
      else files.push(file);
      if (files.length > MAX_LAMBDA_PERF_FILES) {
        throw new UsageError(`--lambda-perf: more than ${MAX_LAMBDA_PERF_FILES} day files; give a folder or files of fewer days`);
      }
    }
  }
  const seen = new Map<string, string>();
  for (const file of files) {
    const day = DAY.exec(path.basename(file))?.[1];
    if (!day || !isDay(day)) throw new UsageError(`${file}: a lambda-perf data file is named YYYY-MM-DD.json, a calendar day`);
    if (day > today) throw new UsageError(`${file}: the day ${day} is after today (${today}): not measured data`);
    if (seen.has(day)) throw new UsageError(`${file}: the day ${day} is given twice (also ${seen.get(day)})`);
    seen.set(day, file);
  }
  if (files.length === 0) throw new UsageError(`--lambda-perf: no YYYY-MM-DD.json day file in ${inputs.join(', ')}`);
  return { files: [...seen.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, file]) => file), skipped };
}

/** A lambda-perf day file is some hundred kB; a larger one is not one. */
/** lambda-perf measures 10 cold starts a function a day: an entry with thousands is not lambda-perf's */
const MAX_INITS_PER_ENTRY = 1000;

/** Lambda's own bounds on what a reference row holds: a value outside them is refused, naming where it is. */
interface Bound {
  min: number;
  max: number;
  what: string;
}

const BOUNDS: Readonly<Record<'init' | 'duration' | 'memory', Bound>> = {
  init: { min: 0, max: MAX_INIT_MS, what: 'Init Duration (ms)' },
  duration: { min: 0, max: MAX_DURATION_MS, what: 'Duration (ms)' },
  memory: { min: MIN_MEMORY_MB, max: MAX_MEMORY_MB, what: 'memory size (MB)' },
};

function checked(value: unknown, bound: Bound, where: string, max = bound.max): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < bound.min || value > max) {
    const shown = typeof value === 'number' ? String(value) : `(a ${value === null ? 'null' : typeof value})`;
    throw new UsageError(`${where}: ${bound.what} ${shown} is outside Lambda's bounds (${bound.min}–${max})`);
  }
  return value;
}

function collect(groups: Map<string, Collected>, runtime: string, architecture: Architecture, memoryMB: number): Collected {
  const key = `${runtime}|${architecture}|${memoryMB}`;
  let group = groups.get(key);
  if (!group) {
    group = { runtime, architecture, memoryMB, init: [], duration: [], memory: [] };
    groups.set(key, group);
  }
  return group;
}

/** Read one lambda-perf data file into the groups; returns its day. */
export function readLambdaPerfFile(file: string, groups: Map<string, Collected>): string {
  const day = DAY.exec(path.basename(file))?.[1];
  if (!day) throw new UsageError(`${file}: a lambda-perf data file is named YYYY-MM-DD.json`);
  let data: unknown;
  try {
    data = JSON.parse(readTextBounded(file, MAX_REFERENCE_BYTES, 'a lambda-perf data file'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${file} as JSON: ${(error as NodeJS.ErrnoException).code ?? 'not JSON'}`);
  }
  const entries = (data as { runtimeData?: unknown } | null)?.runtimeData;
  if (!Array.isArray(entries)) throw new UsageError(`${file} is not a lambda-perf data file (no runtimeData)`);
  // lambda-perf writes one entry a function a day: a second one would count that day's figures twice
  const entryOf = new Map<string, number>();
  entries.forEach((item: unknown, index) => {
    if (item === null || typeof item !== 'object') return;
    const entry = item as Record<string, unknown>;
    const match = LAMBDA_PERF_NAME.exec(typeof entry.r === 'string' ? entry.r : '');
    if (!match) return;
    const where = `${file}: runtimeData[${index}] (${match[0]})`;
    const earlier = entryOf.get(match[0]);
    if (earlier !== undefined) {
      throw new UsageError(
        `${where}: a second entry of this function on ${day} (the first is runtimeData[${earlier}]): lambda-perf has one a function a day`,
      );
    }
    entryOf.set(match[0], index);
    const memoryMB = checked(Number(match[3]), BOUNDS.memory, where);
    const group = collect(groups, `${match[1]}.x`, match[4] as Architecture, memoryMB);
    if (entry.i !== undefined) {
      if (!Array.isArray(entry.i) || entry.i.length > MAX_INITS_PER_ENTRY)
        throw new UsageError(`${where}: i is not a list of at most ${MAX_INITS_PER_ENTRY} Init Durations`);
      // a loop, not push(...list): a list of 600,000 values must not overflow the stack
      for (const value of entry.i as unknown[]) group.init.push(checked(value, BOUNDS.init, where));
    }
    if (entry.ad !== undefined) group.duration.push(checked(entry.ad, BOUNDS.duration, where));
    if (entry.mu !== undefined) group.memory.push(checked(entry.mu, { ...BOUNDS.memory, min: 0 }, where, memoryMB));
  });
  return day;
}

function toRows(groups: Map<string, Collected>): ReferenceRow[] {
  return [...groups.values()]
    .filter((g) => g.init.length > 0 && g.duration.length > 0)
    .sort((a, b) => a.runtime.localeCompare(b.runtime) || a.architecture.localeCompare(b.architecture) || a.memoryMB - b.memoryMB)
    .map((g) => ({
      runtime: g.runtime,
      architecture: g.architecture,
      memoryMB: g.memoryMB,
      initMs: spread(g.init, true),
      durationMs: spread(g.duration),
      ...(g.memory.length ? { maxMemoryUsedMB: spread(g.memory).median } : {}),
    }));
}

/** The table of lambda-perf files and/or REPORT lines; a UsageError when they give no row. */
export function buildReferenceTable(input: ReferenceInput): ReferenceTable {
  const groups = new Map<string, Collected>();
  const days: string[] = [];
  const sources: string[] = [];
  const notes: string[] = [];
  const given = [...(input.lambdaPerfFiles ?? [])].sort((a, b) => path.basename(a).localeCompare(path.basename(b)));
  // the newest N days: files sort by their day (checked by lambdaPerfDayFiles, or refused below)
  const perf = input.lambdaPerfDays === undefined ? given : given.slice(-input.lambdaPerfDays);
  for (const file of perf) days.push(readLambdaPerfFile(file, groups));
  if (perf.length) {
    notes.push(
      `lambda-perf${perf.length === DEFAULT_LAMBDA_PERF_DAYS ? '' : ` (${perf.length} days)`}: ` +
        'every Init Duration of 10 cold starts a day; Duration: the median of the daily means of their first invocations',
    );
  }
  const reports = input.reportFiles ?? [];
  if (reports.length) {
    if (!input.runtime || !input.architecture) throw new UsageError('REPORT lines need --lambda-runtime and --arch: the lines say neither');
    let cold = 0;
    const refusedLines: string[] = [];
    for (const file of reports) {
      const parsed = readReportFile(file);
      for (const issue of parsed.issues)
        refusedLines.push(`${issue.source.file}:${issue.source.line ?? issue.source.record ?? 0}: ${issue.reason}`);
      for (const report of parsed.reports) {
        if (report.initMs === undefined || report.status !== undefined) continue;
        const memoryMB = checked(report.memorySizeMB, BOUNDS.memory, file);
        const group = collect(groups, input.runtime, input.architecture, memoryMB);
        group.init.push(checked(report.initMs, BOUNDS.init, file));
        group.duration.push(checked(report.durationMs, BOUNDS.duration, file));
        group.memory.push(checked(report.maxMemoryUsedMB, { ...BOUNDS.memory, min: 0 }, file, memoryMB));
        days.push((report.timestamp ?? input.today ?? new Date().toISOString()).slice(0, 10));
        cold++;
      }
    }
    if (cold === 0) {
      const first = refusedLines.length ? `; ${refusedLines.length} line(s) refused, the first: ${refusedLines[0]}` : '';
      throw new UsageError(`the REPORT lines hold no successful cold start (no line with an Init Duration)${first}`);
    }
    notes.push(`your REPORT lines: ${cold} cold starts of ${input.runtime} ${input.architecture}`);
  }
  const rows = toRows(groups);
  if (rows.length === 0) throw new UsageError('no Node.js zip reference function in the input');
  days.sort();
  const from = days[0]!;
  const to = days[days.length - 1]!;
  if (perf.length) sources.push('maxday/lambda-perf data');
  if (reports.length) sources.push('REPORT lines of the reference function deployed by you');
  return {
    source: `${sources.join(' and ')}, dates ${from}–${to}`,
    from,
    to,
    handler: REFERENCE_HANDLER,
    notes: notes.join('; '),
    rows,
  };
}

/**
 * Where lambda:reference may write its table: a new file, or one that is a calibration table already
 * (the shipped one, or one refreshed before). Anything else (a run's meta.json, a source file) is refused.
 */
export function checkReferenceOut(file: string): void {
  if (!existsSync(file)) return;
  try {
    parseReferenceTable(JSON.parse(readTextBounded(file, MAX_REFERENCE_BYTES, 'a calibration table')), file);
  } catch {
    throw new UsageError(`--out ${file} exists and is not a calibration table: give a new file or a table to replace`);
  }
}
