/**
 * Bounds on what a run will write, checked before its first generated file: how many files, how
 * many bytes they come to, and whether the disk holding generated/ has room for them. `--routes`
 * with 20,000 values wrote 20,000 files (18 GB) with no word (issue 37): each bound here is a
 * UsageError (exit 2, one line) before anything is written. The bounds are in `--help` (the
 * selection group) and in docs/guide/robustness.md.
 */
import { statfsSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { DISK_MARGIN_BYTES, MAX_GENERATED_BYTES, MAX_GENERATED_FILES } from '../core/run-bounds.ts';

/** Bytes for a person: GB or MB, one decimal (what an estimate can claim). */
export function approx(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GB` : `${(bytes / 2 ** 20).toFixed(1)} MB`;
}

/** One file a run will write: where, and how many bytes (estimated before it is generated). */
export interface PlannedFile {
  file: string;
  bytes: number;
}

/** Free bytes for an unprivileged writer on the filesystem of `dir` (or its nearest existing parent); undefined when unknown. */
export function freeBytes(dir: string): number | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      const stats = statfsSync(at);
      return stats.bavail * stats.bsize;
    } catch {
      if (path.dirname(at) === at) return undefined;
    }
  }
}

function existingBytes(file: string): number {
  try {
    const stats = statSync(file);
    return stats.isFile() ? stats.size : 0;
  } catch {
    return 0;
  }
}

/**
 * The bounds on the files a run will generate: their count, their estimated bytes, and the disk
 * they go to (a file already there of the same size needs no more room). `free` reads a folder's
 * free bytes (injectable for tests).
 */
export function checkGeneratedBounds(
  files: readonly PlannedFile[],
  dir: string,
  free: (dir: string) => number | undefined = freeBytes,
): void {
  if (files.length > MAX_GENERATED_FILES) {
    throw new UsageError(
      `this selection would generate ${files.length} files, over the bound of ${MAX_GENERATED_FILES} a run: ` +
        'select fewer --routes, --frameworks, --variant or lever values',
    );
  }
  const total = files.reduce((sum, f) => sum + f.bytes, 0);
  if (total > MAX_GENERATED_BYTES) {
    throw new UsageError(
      `this selection would generate about ${approx(total)} of files, over the bound of ${approx(MAX_GENERATED_BYTES)} a run: ` +
        'select fewer or smaller --routes, or fewer --frameworks',
    );
  }
  const needed = files.reduce((sum, f) => sum + Math.max(0, f.bytes - existingBytes(f.file)), 0);
  const available = free(dir);
  if (needed > 0 && available !== undefined && needed + DISK_MARGIN_BYTES > available) {
    throw new UsageError(
      `the disk of ${dir} has ${approx(available)} free; this selection needs about ${approx(needed)} ` +
        `of generated files and ${approx(DISK_MARGIN_BYTES)} to spare: free some space or select fewer --routes`,
    );
  }
}

/** The route counts a file is generated at to estimate its size: its fixed part, and its bytes per (four-digit) route. */
export const ESTIMATE_AT = [1, 1000, 1100] as const;

/**
 * The bytes of a file of `routes` routes, from the same generator's files at ESTIMATE_AT: its
 * fixed part and its bytes per route, taken where route numbers have four digits (a little over for
 * smaller files, a little under past 9,999 routes, where a number gains a digit or two).
 */
export function estimateBytes(sizes: readonly [one: number, thousand: number, thousandHundred: number], routes: number): number {
  const [one, thousand, thousandHundred] = sizes;
  const perRoute = Math.max(0, (thousandHundred - thousand) / 100);
  return Math.ceil(one + (routes - 1) * perRoute);
}

/** What one sample's line in samples.jsonl comes to at most, about (a timed sample is under 1 KiB, a Lambda one under 1.5 KiB). */
export const SAMPLE_LINE_BYTES = 2048;
/** The report's files beside the samples: report.html is the largest (about 0.6 MB with a million samples). */
export const REPORT_BYTES = 16 * 2 ** 20;

/**
 * The run folder's disk must hold the run's samples.jsonl (`samples` lines at most): checked before
 * meta.json's first line (exit 2), so that a run cannot start where its samples could never fit. The
 * report (REPORT_BYTES, about) is not required up front: a disk that fills later, while the report is
 * written or between samples, is the full-disk fault (exit 4, every finished sample kept), which a
 * small disk must still be able to reach (the fault sweep's 1 MB tmpfs).
 */
export function checkOutputRoom(dir: string, samples: number, free: (dir: string) => number | undefined = freeBytes): void {
  const needed = samples * SAMPLE_LINE_BYTES;
  const available = free(dir);
  if (available !== undefined && needed > available) {
    throw new UsageError(
      `the disk of ${dir} has ${approx(available)} free; ${samples} samples need about ${approx(needed)} ` +
        `(and their report about ${approx(REPORT_BYTES)} more): free some space or choose another --out`,
    );
  }
}
