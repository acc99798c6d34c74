/**
 * The load monitor: reads os.loadavg(), /proc/stat and /proc/self/stat when a run starts, every few
 * seconds during it and when it stops (parsing the readings and summarising them is core/load.ts).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parseProcStat, parseSelfStat, summarizeLoad, type LoadReading, type LoadSummary } from '../core/load.ts';

export const PROC_STAT = '/proc/stat';
export const PROC_SELF_STAT = '/proc/self/stat';
export const LOAD_INTERVAL_MS = 5000;

function readOptional<T>(file: string | undefined, parse: (text: string) => T | undefined): T | undefined {
  if (!file) return undefined;
  try {
    return parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

export interface LoadMonitorOptions {
  /** /proc/stat, or a fake one; undefined or a missing file: load average only */
  procStat?: string;
  /** /proc/self/stat, or a fake one */
  selfStat?: string;
  intervalMs?: number;
  loadavg?: () => number[];
  cores?: number;
  now?: () => Date;
}

export interface LoadMonitor {
  /** take a reading now (the timer calls this; tests may too) */
  tick(): void;
  /** take the last reading, stop the timer and summarise; later calls return the same summary */
  stop(): LoadSummary;
}

/** Take the first reading now and one every `intervalMs` until stop(). Synchronous: stop() is safe in an exit handler. */
export function startLoadMonitor(options: LoadMonitorOptions = {}): LoadMonitor {
  const procStat = 'procStat' in options ? options.procStat : PROC_STAT;
  const selfStat = 'selfStat' in options ? options.selfStat : PROC_SELF_STAT;
  const loadavg = options.loadavg ?? os.loadavg;
  const cores = options.cores ?? os.availableParallelism();
  const now = options.now ?? (() => new Date());
  const readings: LoadReading[] = [];
  const tick = () => {
    const [l1 = 0, l5 = 0, l15 = 0] = loadavg();
    const reading: LoadReading = { at: now().toISOString(), load: [l1, l5, l15] };
    const cpu = readOptional(procStat, parseProcStat);
    if (cpu) reading.cpu = cpu;
    const own = readOptional(selfStat, parseSelfStat);
    if (own !== undefined) reading.ownTicks = own;
    readings.push(reading);
  };
  tick();
  const timer = setInterval(tick, options.intervalMs ?? LOAD_INTERVAL_MS);
  timer.unref();
  let summary: LoadSummary | undefined;
  return {
    tick,
    stop() {
      if (!summary) {
        clearInterval(timer);
        tick();
        summary = summarizeLoad(readings, cores);
      }
      return summary;
    },
  };
}
