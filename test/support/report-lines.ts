/**
 * Synthetic CloudWatch logs for `lambda:import` at scale: N REPORT lines of one function, in the
 * plain-text format (`<timestamp> REPORT RequestId: …\tDuration: …`) or Lambda's JSON log format
 * (`{"time":…,"type":"platform.report",…}`), written to a file block by block (never held whole).
 *
 * The figures are a function of the line's index, so a test knows its answers without reading the
 * file: line i (0-based) is a cold start unless `warmEvery` says otherwise, its memory size
 * alternates over `memories`, its Init Duration is 100 + (i mod 1000) / 10 ms and its Duration
 * 10 + (i mod 7) ms. The median of a cell follows from that (see expectedMedians).
 *
 * As a script (the figures in docs/guide/robustness.md):
 *   node --import tsx test/support/report-lines.ts OUT.txt 1000000 [text|json]
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type LineFormat = 'text' | 'json';

export interface ReportLineOptions {
  format?: LineFormat;
  /** memory sizes, taken in turn line by line; default 512 and 1024 MB (two cells) */
  memories?: readonly number[];
  /** every k-th line (k > 0) is a warm invocation (no Init Duration); default none */
  warmEvery?: number;
}

/** The figures of line i (0-based). */
export function lineFigures(i: number, options: ReportLineOptions = {}) {
  const memories = options.memories ?? [512, 1024];
  const warm = options.warmEvery !== undefined && (i + 1) % options.warmEvery === 0;
  const initMs = 100 + (i % 1000) / 10;
  const durationMs = 10 + (i % 7);
  return {
    requestId: `${(i >>> 0).toString(16).padStart(8, '0')}-0000-4000-8000-${((i * 2654435761) >>> 0).toString(16).padStart(12, '0')}`,
    memorySizeMB: memories[i % memories.length]!,
    ...(warm ? {} : { initMs }),
    durationMs,
    billedMs: Math.ceil(durationMs + (warm ? 0 : initMs)),
    maxMemoryUsedMB: 60 + (i % 20),
    time: new Date(Date.UTC(2026, 0, 1) + i * 100).toISOString(),
  };
}

function textLine(f: ReturnType<typeof lineFigures>): string {
  const init = f.initMs !== undefined ? `\tInit Duration: ${f.initMs.toFixed(2)} ms` : '';
  return (
    `${f.time} REPORT RequestId: ${f.requestId}\tDuration: ${f.durationMs.toFixed(2)} ms\tBilled Duration: ${f.billedMs} ms\t` +
    `Memory Size: ${f.memorySizeMB} MB\tMax Memory Used: ${f.maxMemoryUsedMB} MB${init}\t\n`
  );
}

function jsonLine(f: ReturnType<typeof lineFigures>): string {
  const metrics = {
    durationMs: f.durationMs,
    billedDurationMs: f.billedMs,
    memorySizeMB: f.memorySizeMB,
    maxMemoryUsedMB: f.maxMemoryUsedMB,
    ...(f.initMs !== undefined ? { initDurationMs: f.initMs } : {}),
  };
  return `${JSON.stringify({ time: f.time, type: 'platform.report', record: { requestId: f.requestId, metrics, status: 'success' } })}\n`;
}

/** Write `count` REPORT lines to `file` (created or truncated). */
export function writeReportLines(file: string, count: number, options: ReportLineOptions = {}): void {
  const line = options.format === 'json' ? jsonLine : textLine;
  const fd = openSync(file, 'w');
  try {
    for (let from = 0; from < count; from += 10_000) {
      let block = '';
      for (let i = from; i < Math.min(count, from + 10_000); i++) block += line(lineFigures(i, options));
      writeSync(fd, block);
    }
  } finally {
    closeSync(fd);
  }
}

/** The cold starts of each memory size and the median of their firstResponse (Init + Duration), computed directly. */
export function expectedCells(count: number, options: ReportLineOptions = {}): Map<number, { coldStarts: number; median: number }> {
  const totals = new Map<number, number[]>();
  for (let i = 0; i < count; i++) {
    const f = lineFigures(i, options);
    if (f.initMs === undefined) continue;
    const list = totals.get(f.memorySizeMB) ?? [];
    list.push(Math.round((f.initMs + f.durationMs) * 1000) / 1000);
    totals.set(f.memorySizeMB, list);
  }
  const cells = new Map<number, { coldStarts: number; median: number }>();
  for (const [memory, list] of totals) {
    list.sort((a, b) => a - b);
    const mid = list.length >> 1;
    cells.set(memory, { coldStarts: list.length, median: list.length % 2 ? list[mid]! : (list[mid - 1]! + list[mid]!) / 2 });
  }
  return cells;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, count, format] = process.argv.slice(2);
  if (!file || !count) throw new Error('usage: report-lines.ts OUT COUNT [text|json]');
  writeReportLines(file, Number(count), { format: format === 'json' ? 'json' : 'text' });
}
