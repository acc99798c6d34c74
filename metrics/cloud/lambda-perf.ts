/**
 * Building the calibration table (core/lambda-reference.ts) from real cold starts of the hello-world
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
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { quantileSorted } from 'simple-statistics';
import { UsageError } from '../core/errors.ts';
import { REFERENCE_HANDLER, type ReferenceRow, type ReferenceTable, type Spread } from '../core/lambda-reference.ts';
import { readReportFile } from './import.ts';
import type { Architecture } from '../core/lambda-platform.ts';

/** A lambda-perf function name: `lambda-perf-nodejs22x-zip-128-x86_64`. */
const LAMBDA_PERF_NAME = /^lambda-perf-(nodejs\d+)x-(zip)-(\d+)-(x86_64|arm64)$/;
const DAY = /(\d{4}-\d{2}-\d{2})\.json$/;

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
  /** REPORT-line files of the user's deployed reference function */
  reportFiles?: string[];
  /** the runtime line and architecture of the REPORT lines */
  runtime?: string;
  architecture?: Architecture;
  /** the date of the REPORT lines when they carry no timestamp (default today) */
  today?: string;
}

export function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    median: round(quantileSorted(sorted, 0.5)),
    p25: round(quantileSorted(sorted, 0.25)),
    p75: round(quantileSorted(sorted, 0.75)),
    n: sorted.length,
  };
}

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
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
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read ${file} as JSON: ${(error as NodeJS.ErrnoException).code ?? 'not JSON'}`);
  }
  const entries = (data as { runtimeData?: unknown } | null)?.runtimeData;
  if (!Array.isArray(entries)) throw new UsageError(`${file} is not a lambda-perf data file (no runtimeData)`);
  for (const item of entries as unknown[]) {
    if (item === null || typeof item !== 'object') continue;
    const entry = item as Record<string, unknown>;
    const match = LAMBDA_PERF_NAME.exec(typeof entry.r === 'string' ? entry.r : '');
    if (!match) continue;
    const group = collect(groups, `${match[1]}.x`, match[4] as Architecture, Number(match[3]));
    if (Array.isArray(entry.i)) group.init.push(...entry.i.filter(finite));
    if (finite(entry.ad)) group.duration.push(entry.ad);
    if (finite(entry.mu)) group.memory.push(entry.mu);
  }
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
      initMs: spread(g.init),
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
  const perf = input.lambdaPerfFiles ?? [];
  for (const file of perf) days.push(readLambdaPerfFile(file, groups));
  if (perf.length) {
    notes.push(
      'lambda-perf: every Init Duration of 10 cold starts a day; Duration: the median of the daily means of their first invocations',
    );
  }
  const reports = input.reportFiles ?? [];
  if (reports.length) {
    if (!input.runtime || !input.architecture)
      throw new UsageError('REPORT lines need --runtime and --architecture: the lines say neither');
    let cold = 0;
    for (const file of reports) {
      for (const report of readReportFile(file).reports) {
        if (report.initMs === undefined || report.status !== undefined) continue;
        const group = collect(groups, input.runtime, input.architecture, report.memorySizeMB);
        group.init.push(report.initMs);
        group.duration.push(report.durationMs);
        group.memory.push(report.maxMemoryUsedMB);
        days.push((report.timestamp ?? input.today ?? new Date().toISOString()).slice(0, 10));
        cold++;
      }
    }
    if (cold === 0) throw new UsageError('the REPORT lines hold no successful cold start (no line with an Init Duration)');
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
