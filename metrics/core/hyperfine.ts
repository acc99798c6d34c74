/**
 * hyperfine's --export-json shape and the `hyperfine.json` a run folder may hold: its types, a
 * validating parser (for hyperfine's own files and ours); the reader is store/hyperfine-file.ts. Writers and readers of the
 * format (measure/hyperfine.ts, analyse/crosscheck.ts, report/hyperfine-json.ts) share it.
 */
import { median } from 'simple-statistics';

/** One benchmarked command, as hyperfine writes it (user, system and exit_codes only in hyperfine's own). */
export interface HyperfineResult {
  command: string;
  mean: number;
  /** null with a single run, as hyperfine writes it */
  stddev: number | null;
  median: number;
  min: number;
  max: number;
  times: number[];
  user?: number;
  system?: number;
  exit_codes?: (number | null)[];
  /** hyperfine's --parameter-list values: strings */
  parameters?: Record<string, string>;
}

export interface HyperfineFile<Info = unknown> {
  results: HyperfineResult[];
  coldstart?: Info;
}

export const HYPERFINE_FILE = 'hyperfine.json';

/** What the `hyperfine` command records beside hyperfine's own results (top-level key `coldstart`). */
export interface HyperfineRunInfo {
  tool: 'coldstart';
  /** `hyperfine 1.15.0` */
  hyperfine: string;
  /** the measured node's `--version` */
  node: string;
  command: string;
  startedAt: string;
  finishedAt?: string;
  runs: number;
  warmup: number;
  /** every child: `--shell=none`, cwd a scratch folder, COLDSTART_EXIT=1 */
  shell: 'none';
  environment: { passed: string[]; dropped: string[] };
  /** cells hyperfine could not measure, with its reason */
  failed: { command: string; reason: string }[];
  interrupted?: boolean;
}

export class HyperfineFileError extends Error {}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Validate hyperfine's JSON (ours or hyperfine's own); throws HyperfineFileError naming what is wrong. */
export function parseHyperfineJson(text: string, source = HYPERFINE_FILE): HyperfineFile<Partial<HyperfineRunInfo>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HyperfineFileError(`${source} is not JSON`);
  }
  const root = value as { results?: unknown; coldstart?: unknown } | null;
  if (root === null || typeof root !== 'object' || !Array.isArray(root.results)) {
    throw new HyperfineFileError(`${source} has no "results" list: not hyperfine's --export-json`);
  }
  const results = root.results.map((item: unknown, i): HyperfineResult => {
    const where = `${source}: results[${i}]`;
    const r = item as Record<string, unknown> | null;
    if (r === null || typeof r !== 'object') throw new HyperfineFileError(`${where} is not an object`);
    if (typeof r.command !== 'string') throw new HyperfineFileError(`${where} has no "command"`);
    if (!Array.isArray(r.times) || r.times.length === 0 || !r.times.every((t) => isNumber(t) && t >= 0)) {
      throw new HyperfineFileError(`${where} ("${r.command}") has no "times" in seconds`);
    }
    const times = r.times as number[];
    for (const field of ['mean', 'min', 'max'] as const) {
      if (!isNumber(r[field])) throw new HyperfineFileError(`${where} ("${r.command}") has no "${field}"`);
    }
    if (r.stddev !== undefined && r.stddev !== null && !isNumber(r.stddev)) throw new HyperfineFileError(`${where} has a bad "stddev"`);
    let parameters: Record<string, string> | undefined;
    if (r.parameters !== undefined && r.parameters !== null) {
      if (typeof r.parameters !== 'object') throw new HyperfineFileError(`${where} has bad "parameters"`);
      parameters = Object.fromEntries(Object.entries(r.parameters as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
    }
    return {
      command: r.command,
      mean: r.mean as number,
      stddev: isNumber(r.stddev) ? r.stddev : null,
      // hyperfine before 1.12 wrote no median
      median: isNumber(r.median) ? r.median : median(times),
      min: r.min as number,
      max: r.max as number,
      times,
      ...(isNumber(r.user) ? { user: r.user } : {}),
      ...(isNumber(r.system) ? { system: r.system } : {}),
      ...(Array.isArray(r.exit_codes) ? { exit_codes: r.exit_codes as (number | null)[] } : {}),
      ...(parameters ? { parameters } : {}),
    };
  });
  const info = root.coldstart !== null && typeof root.coldstart === 'object' ? (root.coldstart as Partial<HyperfineRunInfo>) : undefined;
  return { results, ...(info ? { coldstart: info } : {}) };
}
