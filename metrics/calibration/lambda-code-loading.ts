/**
 * The public data the Init estimate's code-loading term is fitted on (lambda-code-loading.json):
 * real Init Durations of public Node.js functions (per function, runtime line, architecture and
 * memory size: the figure, its statistic, n, the publication's repository, commit, path, date and
 * region), the real hello world of the same weeks (lambda-perf, as `lambda:reference` summarises
 * it), the same functions measured here (the cell's Init and the hello-world reference's beside it,
 * with the date, command, machine and load), what was left out and why, and the fitted coefficient
 * with its leave-one-out errors. The fit itself is analyse/code-loading.ts; a test recomputes it
 * from this file. Read as untrusted input: every figure is checked, the error names what is wrong.
 */
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { readTextBounded } from '../store/input-files.ts';
import { isDay } from './lambda-reference.ts';
import type { Architecture } from '../core/lambda-platform.ts';

export interface CodeLoadingSource {
  id: string;
  /** owner/name on GitHub */
  repo: string;
  commit: string;
  /** the files the real figures are read from */
  path: string;
  /** when the real cold starts ran (YYYY-MM-DD) */
  date: string;
  region: string;
  notes: string;
}

/** A real hello world of the publication's weeks: maxday/lambda-perf as `lambda:reference` summarises it. */
export interface CodeLoadingReference {
  id: string;
  source: string;
  from: string;
  to: string;
  command: string;
}

/** One local measurement of public functions with this tool. */
export interface CodeLoadingMeasurement {
  id: string;
  date: string;
  command: string;
  machine: string;
  load: string;
  notes: string;
}

export interface CodeLoadingFunction {
  id: string;
  source: string;
  name: string;
  /** what the code is and how it was measured here */
  code: string;
}

export interface CodeLoadingRow {
  function: string;
  runtime: string;
  architecture: Architecture;
  memoryMB: number;
  /** the published Init Duration: its statistic (mean, p50, median), the figure, n and the tails it gives */
  real: { statistic: string; initMs: number; n: number; p95Ms?: number; p99Ms?: number };
  /** the real hello world of the same weeks (a reference id and its median Init Duration at this setting) */
  reference?: { id: string; initMs: number };
  /**
   * rows whose real hello world is unknown (an app behind the Lambda Web Adapter) share an offset,
   * fitted with the coefficient: only their differences inform it
   */
  offsetGroup?: string;
  /** measured here: the cell's Init (a server's first response), its quartiles when known, and the hello-world reference's beside it */
  local: { measurement: string; initMs: number; p25?: number; p75?: number; n: number; referenceInitMs?: number; loading?: LoadingPart };
}

/**
 * A row's INIT split as measured here (issue 41), for rows with a real hello world: what the fit then
 * uses in place of the whole Init. The code-loading term applies to the loading part (the row's Init of
 * its first measurement less the running part beyond the reference's measured here), the running part
 * goes to Lambda at its CPU speed, as the estimate does (analyse/calibration.ts). `initMs`,
 * `referenceInitMs` and `ratio` are the day of the split's own loading figures, for the reader.
 */
export interface LoadingPart {
  /** the run folder's measurement id (a `measurements` entry) */
  measurement: string;
  /** the cell's Init less its running part, median, ms */
  initMs: number;
  /** the reference's Init less its running part beside it, median, ms */
  referenceInitMs: number;
  /** their ratio, paired round by round (what the estimate uses) */
  ratio: number;
  /** the running part beyond the reference's, here (wall, median), ms: what the fit takes out of the row's first Init */
  runningMs: number;
  /** the running part beyond the reference's, at Lambda's CPU speed for the row's line and architecture, ms */
  runningOnLambdaMs: number;
  /** the time inside require (the probe's loading figure), median, ms: for the reader, not the fit */
  loadingMs: number;
  n: number;
}

export interface CodeLoadingFit {
  /** k: the term is k × max(0, local Init − local hello-world Init) */
  coefficient: number;
  /** leave-one-out: per function, the smallest and largest p50 error of its rows, % */
  looErrorPct: Record<string, [number, number]>;
  /** the bound every LOO error must keep, % */
  boundPct: number;
  /** the functions whose LOO error is beyond the bound, each with why (said, never dropped) */
  beyondBound: Record<string, string>;
}

export interface CodeLoadingData {
  description: string;
  sources: CodeLoadingSource[];
  references: CodeLoadingReference[];
  measurements: CodeLoadingMeasurement[];
  functions: CodeLoadingFunction[];
  rows: CodeLoadingRow[];
  excluded: { what: string; why: string }[];
  fit: CodeLoadingFit;
}

export const SHIPPED_CODE_LOADING_FILE = path.join(import.meta.dirname, 'lambda-code-loading.json');

/** The shipped file is a few KiB; a file is read whole up to this. */
export const MAX_CODE_LOADING_BYTES = 2 ** 20;

export class CodeLoadingDataError extends Error {}

type Fail = (why: string) => CodeLoadingDataError;

function object(value: unknown, what: string, fail: Fail): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail(`${what} is not an object`);
  return value as Record<string, unknown>;
}

function strings<K extends string>(v: Record<string, unknown>, keys: readonly K[], what: string, fail: Fail): Record<K, string> {
  for (const key of keys) if (typeof v[key] !== 'string' || v[key] === '') throw fail(`${what}: no ${key}`);
  return v as Record<K, string>;
}

function figure(value: unknown, what: string, fail: Fail): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 900_000) throw fail(`${what} is not a figure in ms`);
  return value;
}

function list(v: Record<string, unknown>, key: string, fail: Fail): unknown[] {
  const value = v[key];
  if (!Array.isArray(value) || value.length === 0) throw fail(`no ${key}`);
  return value;
}

function ids(items: readonly { id: string }[], what: string, fail: Fail): Set<string> {
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.id)) throw fail(`${what} ${item.id} twice`);
    seen.add(item.id);
  }
  return seen;
}

function parseRow(
  value: unknown,
  i: number,
  known: { functions: Set<string>; references: Set<string>; measurements: Set<string> },
  fail: Fail,
): CodeLoadingRow {
  const what = `row ${i + 1}`;
  const r = object(value, what, fail);
  if (typeof r.function !== 'string' || !known.functions.has(r.function)) throw fail(`${what}: unknown function ${String(r.function)}`);
  if (typeof r.runtime !== 'string' || !/^(nodejs\d+\.x|unstated)$/.test(r.runtime)) throw fail(`${what}: runtime`);
  if (r.architecture !== 'x86_64' && r.architecture !== 'arm64') throw fail(`${what}: architecture`);
  if (typeof r.memoryMB !== 'number' || !Number.isInteger(r.memoryMB) || r.memoryMB < 128 || r.memoryMB > 10240)
    throw fail(`${what}: memoryMB`);
  const real = object(r.real, `${what} real`, fail);
  if (typeof real.statistic !== 'string' || !['mean', 'p50', 'median'].includes(real.statistic)) throw fail(`${what}: real statistic`);
  if (typeof real.n !== 'number' || !Number.isInteger(real.n) || real.n < 1) throw fail(`${what}: real n`);
  const local = object(r.local, `${what} local`, fail);
  if (typeof local.measurement !== 'string' || !known.measurements.has(local.measurement)) throw fail(`${what}: unknown measurement`);
  if (typeof local.n !== 'number' || !Number.isInteger(local.n) || local.n < 1) throw fail(`${what}: local n`);
  const reference = r.reference === undefined ? undefined : object(r.reference, `${what} reference`, fail);
  if (reference && (typeof reference.id !== 'string' || !known.references.has(reference.id))) throw fail(`${what}: unknown reference`);
  const hasLocalReference = local.referenceInitMs !== undefined;
  // a row is either compared with a real hello world (and the local one), or one of a group sharing an unknown offset
  if (reference ? !hasLocalReference || r.offsetGroup !== undefined : typeof r.offsetGroup !== 'string' || hasLocalReference)
    throw fail(`${what}: give a reference with the local reference's Init, or an offsetGroup without either`);
  // the split needs the reference's split beside it: a row of an offset group keeps its whole Init
  if (local.loading !== undefined && !reference) throw fail(`${what}: a loading part needs a reference (an offset group's row has none)`);
  return {
    function: r.function,
    runtime: r.runtime,
    architecture: r.architecture,
    memoryMB: r.memoryMB,
    real: {
      statistic: real.statistic,
      initMs: figure(real.initMs, `${what} real initMs`, fail),
      n: real.n,
      ...(real.p95Ms === undefined ? {} : { p95Ms: figure(real.p95Ms, `${what} real p95Ms`, fail) }),
      ...(real.p99Ms === undefined ? {} : { p99Ms: figure(real.p99Ms, `${what} real p99Ms`, fail) }),
    },
    ...(reference ? { reference: { id: reference.id as string, initMs: figure(reference.initMs, `${what} reference initMs`, fail) } } : {}),
    ...(typeof r.offsetGroup === 'string' ? { offsetGroup: r.offsetGroup } : {}),
    local: {
      measurement: local.measurement,
      initMs: figure(local.initMs, `${what} local initMs`, fail),
      ...(local.p25 === undefined ? {} : { p25: figure(local.p25, `${what} local p25`, fail) }),
      ...(local.p75 === undefined ? {} : { p75: figure(local.p75, `${what} local p75`, fail) }),
      n: local.n,
      ...(hasLocalReference ? { referenceInitMs: figure(local.referenceInitMs, `${what} local referenceInitMs`, fail) } : {}),
      ...(local.loading === undefined ? {} : { loading: parseLoading(local.loading, `${what} local loading`, known.measurements, fail) }),
    },
  };
}

function parseLoading(value: unknown, what: string, measurements: Set<string>, fail: Fail): LoadingPart {
  const l = object(value, what, fail);
  if (typeof l.measurement !== 'string' || !measurements.has(l.measurement)) throw fail(`${what}: unknown measurement`);
  if (typeof l.n !== 'number' || !Number.isInteger(l.n) || l.n < 1) throw fail(`${what}: n`);
  if (typeof l.ratio !== 'number' || !Number.isFinite(l.ratio) || !(l.ratio > 0)) throw fail(`${what}: ratio`);
  if (typeof l.runningOnLambdaMs !== 'number' || !Number.isFinite(l.runningOnLambdaMs)) throw fail(`${what}: runningOnLambdaMs`);
  if (typeof l.runningMs !== 'number' || !Number.isFinite(l.runningMs) || Math.abs(l.runningMs) > 900_000) throw fail(`${what}: runningMs`);
  return {
    measurement: l.measurement,
    initMs: figure(l.initMs, `${what} initMs`, fail),
    referenceInitMs: figure(l.referenceInitMs, `${what} referenceInitMs`, fail),
    ratio: l.ratio,
    runningMs: l.runningMs,
    runningOnLambdaMs: l.runningOnLambdaMs,
    loadingMs: figure(l.loadingMs, `${what} loadingMs`, fail),
    n: l.n,
  };
}

function parseFit(value: unknown, functions: Set<string>, fail: Fail): CodeLoadingFit {
  const f = object(value, 'fit', fail);
  if (typeof f.coefficient !== 'number' || !Number.isFinite(f.coefficient)) throw fail('fit: coefficient');
  if (typeof f.boundPct !== 'number' || !(f.boundPct > 0)) throw fail('fit: boundPct');
  const loo = object(f.looErrorPct, 'fit looErrorPct', fail);
  for (const [id, range] of Object.entries(loo)) {
    if (!functions.has(id)) throw fail(`fit: unknown function ${id}`);
    if (!Array.isArray(range) || range.length !== 2 || !range.every((e) => typeof e === 'number' && Number.isFinite(e)))
      throw fail(`fit: looErrorPct of ${id}`);
  }
  const beyond = f.beyondBound === undefined ? {} : object(f.beyondBound, 'fit beyondBound', fail);
  for (const [id, why] of Object.entries(beyond)) {
    if (!functions.has(id) || typeof why !== 'string' || why === '') throw fail(`fit: beyondBound of ${id}`);
  }
  return {
    coefficient: f.coefficient,
    boundPct: f.boundPct,
    looErrorPct: loo as Record<string, [number, number]>,
    beyondBound: beyond as Record<string, string>,
  };
}

/** Check untrusted code-loading data; the error names the file and what is wrong. */
export function parseCodeLoadingData(value: unknown, file: string): CodeLoadingData {
  const fail: Fail = (why) => new CodeLoadingDataError(`${file} is not the code-loading data: ${why}`);
  const v = object(value, 'the file', fail);
  if (typeof v.description !== 'string') throw fail('no description');
  const sources = list(v, 'sources', fail).map((s, i) => {
    const x = strings(
      object(s, `source ${i + 1}`, fail),
      ['id', 'repo', 'commit', 'path', 'date', 'region', 'notes'],
      `source ${i + 1}`,
      fail,
    );
    if (!isDay(x.date)) throw fail(`source ${x.id}: date is not a day (YYYY-MM-DD)`);
    return { id: x.id, repo: x.repo, commit: x.commit, path: x.path, date: x.date, region: x.region, notes: x.notes };
  });
  const references = list(v, 'references', fail).map((s, i) => {
    const x = strings(object(s, `reference ${i + 1}`, fail), ['id', 'source', 'from', 'to', 'command'], `reference ${i + 1}`, fail);
    if (!isDay(x.from) || !isDay(x.to) || x.from > x.to) throw fail(`reference ${x.id}: from and to`);
    return { id: x.id, source: x.source, from: x.from, to: x.to, command: x.command };
  });
  const measurements = list(v, 'measurements', fail).map((s, i) => {
    const x = strings(
      object(s, `measurement ${i + 1}`, fail),
      ['id', 'date', 'command', 'machine', 'load', 'notes'],
      `measurement ${i + 1}`,
      fail,
    );
    if (!isDay(x.date)) throw fail(`measurement ${x.id}: date is not a day (YYYY-MM-DD)`);
    return { id: x.id, date: x.date, command: x.command, machine: x.machine, load: x.load, notes: x.notes };
  });
  const sourceIds = ids(sources, 'source', fail);
  const functions = list(v, 'functions', fail).map((s, i) => {
    const x = strings(object(s, `function ${i + 1}`, fail), ['id', 'source', 'name', 'code'], `function ${i + 1}`, fail);
    if (!sourceIds.has(x.source)) throw fail(`function ${x.id}: unknown source ${x.source}`);
    return { id: x.id, source: x.source, name: x.name, code: x.code };
  });
  const known = {
    functions: ids(functions, 'function', fail),
    references: ids(references, 'reference', fail),
    measurements: ids(measurements, 'measurement', fail),
  };
  const rows = list(v, 'rows', fail).map((r, i) => parseRow(r, i, known, fail));
  const excluded = (Array.isArray(v.excluded) ? v.excluded : []).map((e, i) => {
    const x = strings(object(e, `excluded ${i + 1}`, fail), ['what', 'why'], `excluded ${i + 1}`, fail);
    return { what: x.what, why: x.why };
  });
  return {
    description: v.description,
    sources,
    references,
    measurements,
    functions,
    rows,
    excluded,
    fit: parseFit(v.fit, known.functions, fail),
  };
}

export function readCodeLoadingData(file = SHIPPED_CODE_LOADING_FILE): CodeLoadingData {
  let text: string;
  try {
    text = readTextBounded(file, MAX_CODE_LOADING_BYTES, 'the code-loading data');
  } catch (error) {
    throw new CodeLoadingDataError(error instanceof UsageError ? error.message : `cannot read the code-loading data ${file}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CodeLoadingDataError(`${file} is not JSON`);
  }
  return parseCodeLoadingData(value, file);
}
