/** Synthetic samples and run folders for the statistics, scaling, cost, chart and compare tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeCell, type Cell } from '../../metrics/core/cell.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { appendSample } from '../../metrics/store/samples-file.ts';

export function cell(framework: string, routes: number, extra: Partial<Cell> = {}): Cell {
  return makeCell({ framework, variant: 'validated', routes, ...extra });
}

/**
 * One successful sample whose marks are fixed shares of `firstResponse`: runtime boot 10 %,
 * framework import 20 %, route registration 20 %, listen 40 %, first request 10 %.
 */
export function sampleOf(c: Cell, firstResponse: number, index = 1, extra: Partial<SampleRecord> = {}): SampleRecord {
  const f = firstResponse;
  return {
    cell: c,
    phase: 'sample',
    index,
    ok: true,
    marks: { processStart: 0.05 * f, start: 0.1 * f, imported: 0.3 * f, startup: 0.5 * f, listen: 0.9 * f, firstResponse: f },
    rss: 50e6,
    heapUsed: 10e6,
    runtimeVersion: 'node v20.20.2',
    durationMs: f + 5,
    at: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

/** Samples of one cell with the given firstResponse values. */
export function samplesOf(c: Cell, values: number[]): SampleRecord[] {
  return values.map((v, i) => sampleOf(c, v, i + 1));
}

/** A run folder with samples.jsonl (and meta.json options when given). */
export function writeRun(dir: string, samples: SampleRecord[], options?: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  for (const s of samples) appendSample(path.join(dir, 'samples.jsonl'), s);
  if (options) {
    const meta = {
      tool: 'coldstart',
      toolVersion: '0.1.0',
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:01:00.000Z',
      command: 'npm run metrics -- (synthetic)',
      options,
      machine: { os: 'linux', cpu: 'test cpu', cores: 2, memoryGB: 4 },
      runner: { node: 'v20.20.2' },
      runtimes: { node: 'v20.20.2' },
      frameworks: {},
      skipped: {},
      environment: { passed: ['PATH', 'HOME'], dropped: [] },
    };
    writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta, null, 2));
  }
  return dir;
}

/** `count` values spread evenly around `center` (±5 %), deterministic. */
export function spread(center: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => center * (0.95 + (0.1 * i) / Math.max(1, count - 1)));
}
