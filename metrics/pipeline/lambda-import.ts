/**
 * `lambda-import` (npm run lambda:import), the use case: CloudWatch REPORT lines of packaged functions (plain text,
 * or a Logs Insights CSV or JSON export) into a run folder: samples.jsonl with one `aws-lambda` record
 * per cold start (metrics/cloud/import.ts), a meta.json that says where the figures came from, and
 * the report, so `report`, `compare` and the charts read real measurements as they read local ones.
 * Every line that gave no record is counted and named; an import with no record writes nothing.
 */
import { closeSync, existsSync, openSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { VARIANTS } from '../core/dimensions.ts';
import { describeImport, readImport, type ImportedRun } from '../cloud/import.ts';
import { MB_PER_GB, MB_PER_VCPU, type Architecture } from '../core/lambda-platform.ts';
import type { AwsLambdaSampleRecord } from '../cloud/records.ts';
import { UsageError } from '../core/errors.ts';
import { fileError, writeAll } from '../store/files.ts';
import { META_VERSION, type RunMeta } from '../core/meta.ts';
import type { RecordedLambdaRunInput } from '../core/meta-spec.ts';
import { runnerInfo, toolVersion, writeMeta } from '../store/meta-file.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { processAlive, selfOwner } from '../measure/owner.ts';
import { lockFolder } from '../measure/run-lock.ts';
import { makeWritableDir } from '../store/out-dir.ts';
import { writeReport } from '../report/write.ts';
import { displayPath } from '../core/display.ts';

export interface LambdaImportOptions {
  files: string[];
  out: string;
  functionName?: string;
  architecture?: Architecture;
  /** the Lambda runtime the functions ran on, when the user says (REPORT lines do not) */
  runtime?: string;
  /** the command line, for meta.json */
  command: string;
  /** where the REPORT lines came from, when not from the user's export (lambda:run): the Method line's words and the machine */
  origin?: { samples: string; order: string; os: string; input?: RecordedLambdaRunInput };
}

/** What an import read and wrote: its counts and cells (its records are in the run folder's samples.jsonl). */
export type ImportSummary = Omit<ImportedRun, 'records'>;

export interface LambdaImportOutcome {
  dir: string;
  result: ImportSummary;
  /** files of the run folder the report wrote */
  written: string[];
}

/**
 * meta.json of an imported run. The block summary.md builds from it describes the machine the
 * figures come from: AWS Lambda at the memory size of the cells (the largest, when several), whose
 * CPU share AWS gives in proportion to memory (one vCPU at 1769 MB); nothing in it is this machine's.
 */
function importMeta(options: LambdaImportOptions, result: ImportSummary, importedAt: string): RunMeta {
  const { cells, logged } = result;
  const memories = [...new Set(cells.map((c) => c.memory))].sort((a, b) => a - b);
  const largest = memories[memories.length - 1]!;
  const frameworks = [...new Set(cells.map((c) => c.cell.framework))].sort();
  const memoryText = memories.length === 1 ? `${largest} MB` : `${memories.join(', ')} MB; the largest is shown`;
  return {
    version: META_VERSION,
    tool: 'coldstart',
    toolVersion: toolVersion(),
    // when the figures were logged on AWS (the earliest and latest cold start), else when they were imported
    startedAt: logged?.first ?? importedAt,
    ...(logged ? { finishedAt: logged.last } : {}),
    command: options.command,
    spec: {
      source: {
        kind: 'imported',
        files: options.files.map((file) => displayPath(path.resolve(file))),
        importedAt,
        ...(options.functionName ? { functionName: options.functionName } : {}),
        frameworks,
        routes: [...new Set(cells.map((c) => c.cell.routes))].sort((a, b) => a - b),
        variants: VARIANTS.filter((v) => cells.some((c) => c.cell.variant === v)),
        ...(options.runtime ? { lambdaRuntime: options.runtime } : {}),
        ...(options.origin?.input ? { input: options.origin.input } : {}),
        samples:
          (options.origin ? `${options.origin.samples}: ` : '') +
          `${result.samples} cold starts imported (${result.warmStarts} warm invocations read, not samples` +
          (result.restores ? `; ${result.restores} SnapStart restores, not samples` : '') +
          `${result.failedInits ? `; ${result.failedInits} of them failed INITs from INIT_REPORT lines` : ''})`,
        warmup: 'none',
        order: options.origin ? options.origin.order : 'as invoked on AWS',
      },
      cells: { targets: ['aws-lambda'], memories, measures: ['time'], runtimes: ['node'], builds: ['plain'], compileCaches: ['off'] },
      cost: options.architecture ? { architecture: options.architecture } : {},
      runtimeSources: {},
    },
    machine: {
      os: `${options.origin?.os ?? 'AWS Lambda via imported REPORT lines'}, at ${memoryText}`,
      cpu: `${options.architecture ?? 'architecture not given'}, CPU share in proportion to memory (1 vCPU at ${MB_PER_VCPU} MB)`,
      cores: Math.round((largest / MB_PER_VCPU) * 100) / 100,
      memoryGB: Math.round((largest / MB_PER_GB) * 1000) / 1000,
    },
    // the node that ran this import; the functions' own runtime is the one below, when given
    runner: runnerInfo(),
    runtimes: options.runtime ? { node: `${options.runtime} (AWS Lambda managed runtime; minor version not in REPORT lines)` } : {},
    frameworks: Object.fromEntries(
      frameworks.map((name) => [
        name,
        { version: '(deployed version not in REPORT lines)', packages: {}, validation: '', alwaysValidates: false },
      ]),
    ),
    skipped: {},
    environment: { passed: ["Lambda's own (the package's template sets NODE_ENV=production)"], dropped: [] },
  };
}

/**
 * samples.jsonl in blocks of lines, each record made as it is written: not an append (an open and a
 * close) per record, nor one string or one array of them all.
 */
function writeRecords(file: string, records: Iterable<AwsLambdaSampleRecord>): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    throw fileError(file, error);
  }
  try {
    // blocks of about 64 KiB: short-lived young strings, not large ones kept to the next full GC
    let block = '';
    for (const record of records) {
      block += `${JSON.stringify(record)}\n`;
      if (block.length >= 65_536) {
        writeAll(fd, Buffer.from(block, 'utf8'));
        block = '';
      }
    }
    if (block) writeAll(fd, Buffer.from(block, 'utf8'));
  } catch (error) {
    // a full disk is the machine's refusal, named (exit 4), not an internal error
    throw fileError(file, error);
  } finally {
    closeSync(fd);
  }
}

/** The folder an import of `dir` is written in first: beside it, named after it and the importing process. */
const STAGING = (dir: string, pid: number) => `${dir}.importing-${pid}`;

/** Staging folders of imports into `dir` whose process is gone (killed mid-import): removed, said. */
function removeStaleStaging(dir: string, warn: (line: string) => void): void {
  const parent = path.dirname(dir);
  const prefix = `${path.basename(dir)}.importing-`;
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = name.startsWith(prefix) ? Number(name.slice(prefix.length)) : NaN;
    if (!Number.isInteger(pid) || pid <= 0 || processAlive(pid)) continue;
    rmSync(path.join(parent, name), { recursive: true, force: true });
    warn(`removed ${displayPath(path.join(parent, name))}, left by an import that did not finish`);
  }
}

/**
 * Move a finished import into the run folder: the whole folder when `dir` does not exist (or is
 * empty), else file by file with samples.jsonl last, so the folder holds a run only once all of it is there.
 */
function publish(staging: string, dir: string): void {
  if (!existsSync(dir) || readdirSync(dir).length === 0) {
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return;
  }
  const files = readdirSync(staging).sort((a, b) => Number(a === SAMPLES_FILE) - Number(b === SAMPLES_FILE));
  for (const file of files) renameSync(path.join(staging, file), path.join(dir, file));
  rmSync(staging, { recursive: true, force: true });
}

/**
 * Read the files, then write the run folder. Nothing is written when the folder already holds a
 * run or no cold start came out (UsageError, after `print` got what was read). The run is written in
 * a staging folder beside it and moved in when complete: an import killed midway leaves no half run
 * (a later import removes its staging folder and starts again).
 */
export async function importLambda(
  options: LambdaImportOptions,
  print: (line: string) => void,
  warn: (line: string) => void = print,
  now: () => Date = () => new Date(),
): Promise<LambdaImportOutcome> {
  const dir = path.resolve(options.out);
  if (existsSync(path.join(dir, SAMPLES_FILE))) {
    throw new UsageError(`--out ${dir} already holds a run (${SAMPLES_FILE}): choose another folder`);
  }
  // the folder held from here to the end: a second import into it is one line, exit 2, not a run replaced
  const made = makeWritableDir(dir);
  let lock;
  try {
    lock = lockFolder(dir, 'lambda:import', (line) => warn(`note: ${line}`));
  } catch (error) {
    for (const folder of made.reverse()) rmEmpty(folder);
    throw error;
  }
  try {
    return await importHeld(options, dir, print, warn, now);
  } finally {
    lock.release();
    for (const folder of made.reverse()) rmEmpty(folder);
  }
}

/** A folder removed when it is empty (one this import made and wrote nothing into); else left. */
function rmEmpty(folder: string): void {
  try {
    rmdirSync(folder);
  } catch {
    // not empty, or gone
  }
}

async function importHeld(
  options: LambdaImportOptions,
  dir: string,
  print: (line: string) => void,
  warn: (line: string) => void,
  now: () => Date,
): Promise<LambdaImportOutcome> {
  // another import may have finished between the first look and the lock
  if (existsSync(path.join(dir, SAMPLES_FILE))) {
    throw new UsageError(`--out ${dir} already holds a run (${SAMPLES_FILE}): choose another folder`);
  }
  const staging = STAGING(dir, selfOwner().pid);
  try {
    const result = stageImport(options, staging, now().toISOString(), print, warn);
    // the staging folder's name never reaches the user: it is the run folder once moved
    const { written } = await writeReport(staging, { warn: (line) => warn(`warning: ${line.replaceAll(staging, dir)}`) });
    publish(staging, dir);
    return { dir, result, written };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Read the files and write samples.jsonl and meta.json into the staging folder; what was read is
 * let go on return (only its counts and cells come back), so the report that follows has the memory.
 */
function stageImport(
  options: LambdaImportOptions,
  staging: string,
  importedAt: string,
  print: (line: string) => void,
  warn: (line: string) => void,
): ImportSummary {
  const { records, ...result } = readImport(options.files, {
    importedAt,
    ...(options.functionName !== undefined ? { functionName: options.functionName } : {}),
    ...(options.architecture ? { architecture: options.architecture } : {}),
  });
  for (const line of describeImport(result)) print(line);
  if (result.samples === 0) {
    throw new UsageError(
      `no cold start (a REPORT line with Init Duration) of a packaged function in ${options.files.length} file(s): nothing written`,
    );
  }
  removeStaleStaging(path.resolve(options.out), (line) => warn(`note: ${line}`));
  makeWritableDir(staging);
  writeRecords(path.join(staging, SAMPLES_FILE), records());
  writeMeta(staging, importMeta(options, result, importedAt));
  return result;
}
