/**
 * How fast Lambda's CPU is, from a published CPU-bound benchmark: the first invocation of a cold
 * function that chains 1,000,000 SHA-256 digests, by runtime line, architecture and memory size
 * (lambda-cpu-reference.json, with its source and date). Above one vCPU (2048 MB) that single-threaded
 * loop runs unthrottled, so its Duration is Lambda's CPU time for the workload; the same loop timed
 * here (measure/cpu-speed.ts) gives this machine's, and their ratio converts an app's own CPU time
 * to Lambda's. The smaller sizes check the CPU share model against real throttling (README).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { median } from 'simple-statistics';
import type { LocalCpuSpeed } from '../core/meta.ts';

export interface CpuReferenceRow {
  runtime: string;
  architecture: string;
  memoryMB: number;
  durationMs: number;
}

export interface CpuReferenceTable {
  source: string;
  date: string;
  region: string;
  workload: string;
  iterations: number;
  notes: string;
  rows: CpuReferenceRow[];
}

/** The memory size whose Duration is taken as Lambda's CPU time: above one vCPU, so a single thread is never throttled. */
export const UNTHROTTLED_CPU_MB = 2048;

export const CPU_REFERENCE: CpuReferenceTable = JSON.parse(
  readFileSync(path.join(import.meta.dirname, 'lambda-cpu-reference.json'), 'utf8'),
) as CpuReferenceTable;

const lineNumber = (runtime: string) => Number(/^nodejs(\d+)\.x$/.exec(runtime)?.[1] ?? NaN);

/**
 * Lambda's CPU ms per iteration of the workload for a line and architecture, and the row it came
 * from: the line's own row, else the nearest line the table has (nodejs24.x → nodejs22.x; the loop is
 * OpenSSL's SHA-256 on both). Undefined when the architecture has no row.
 */
export function lambdaCpuPerIteration(
  runtime: string,
  architecture: string,
  table: CpuReferenceTable = CPU_REFERENCE,
): { msPerIteration: number; row: CpuReferenceRow } | undefined {
  const rows = table.rows.filter((r) => r.architecture === architecture && r.memoryMB === UNTHROTTLED_CPU_MB);
  const wanted = lineNumber(runtime);
  const row = rows.sort(
    (a, b) =>
      Math.abs(lineNumber(a.runtime) - wanted) - Math.abs(lineNumber(b.runtime) - wanted) || lineNumber(b.runtime) - lineNumber(a.runtime),
  )[0];
  return row ? { msPerIteration: row.durationMs / table.iterations, row } : undefined;
}

/** This machine's CPU ms per iteration: the median of the runs (CPU time, so load inflates it little). */
export function localCpuPerIteration(speed: LocalCpuSpeed): number {
  return median(speed.cpuMs) / speed.iterations;
}

/** meta.json's lambda.cpuSpeed, read defensively (a run folder is outside input); entries that do not parse are left out. */
export function cpuSpeedsOf(lambdaMeta: unknown): Record<string, LocalCpuSpeed> {
  const raw = (lambdaMeta as { cpuSpeed?: unknown } | null | undefined)?.cpuSpeed;
  if (raw === null || typeof raw !== 'object') return {};
  const result: Record<string, LocalCpuSpeed> = {};
  for (const [runtime, value] of Object.entries(raw as Record<string, unknown>)) {
    const v = value as { iterations?: unknown; cpuMs?: unknown } | null;
    const ok =
      v !== null &&
      typeof v === 'object' &&
      typeof v.iterations === 'number' &&
      v.iterations > 0 &&
      Array.isArray(v.cpuMs) &&
      v.cpuMs.length > 0 &&
      v.cpuMs.every((ms) => typeof ms === 'number' && Number.isFinite(ms) && ms > 0);
    if (ok) result[runtime] = { iterations: v.iterations as number, cpuMs: v.cpuMs as number[] };
  }
  return result;
}
