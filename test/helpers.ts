/** Shared test helpers: run a file as a sample, find processes by a marker in their command line. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { contractOf } from '../generators/contract.ts';
import type { FrameworkGenerator, Variant } from '../generators/types.ts';
import { makeCell, type Cell } from '../metrics/core/cell.ts';
import { childEnvironment } from '../metrics/measure/environment.ts';
import { runSample } from '../metrics/measure/sample.ts';
import type { SampleRecord } from '../metrics/core/samples.ts';

export const FIXTURES = path.join(import.meta.dirname, 'fixtures');
export const ROOT = path.resolve(import.meta.dirname, '..');

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}

export interface RunFileOptions {
  cell?: Cell;
  generator?: Pick<FrameworkGenerator, 'contract'>;
  timeoutMs?: number;
  checkInvalidBody?: boolean;
  args?: string[];
  env?: Record<string, string>;
}

/** One real sample of `file` through the runner. */
export function runFile(file: string, options: RunFileOptions = {}): Promise<SampleRecord> {
  return runSample({
    cell: options.cell ?? makeCell({ framework: 'fixture', variant: 'validated', routes: 1 }),
    launch: { command: process.execPath, args: [file, ...(options.args ?? [])], cwd: FIXTURES, env: childEnvironment(process.env, options.env).env },
    contract: contractOf(options.generator ?? {}),
    phase: 'sample',
    index: 1,
    timeoutMs: options.timeoutMs ?? 30_000,
    checkInvalidBody: options.checkInvalidBody ?? false,
  });
}

export function cellFor(framework: string, variant: Variant, routes: number): Cell {
  return makeCell({ framework, variant, routes });
}

/** Pids of live processes whose command line contains `marker` (Linux /proc). */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline.includes(marker) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

export async function waitFor(predicate: () => boolean, ms: number, step = 50): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, step));
  }
  return predicate();
}
