/**
 * `merge RUN... --out DIR`, the use case: join run folders (the shards of one selection, run on several machines
 * or at several times) into one run folder and write its report. Every sample is kept as it was;
 * meta.json keeps each part's machine, runtimes, shard, load and cells (`parts`), so a reader sees
 * where each cell ran. A cell measured in two parts is refused: the join would mix two machines in
 * one cell's statistics.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { cellKey, cellLabel } from '../core/cell.ts';
import { UsageError } from '../core/errors.ts';
import { META_FILE, type RunMeta } from '../core/meta.ts';
import { readMeta, writeMeta } from '../store/meta-file.ts';
import { SAMPLES_FILE, type SampleRecord } from '../core/samples.ts';
import { forEachSample, SamplesFileError } from '../store/samples-file.ts';
import { writeReport } from '../report/write.ts';
import { writeOwnedFileFrom } from '../store/files.ts';
import { checkOutDir, makeWritableDir } from '../store/out-dir.ts';
import { assertNotHeld } from '../measure/run-lock.ts';

/** What meta.json of a merged run says about one of its parts. */
export interface MergedPart {
  /** the folder's name (not its path: paths of other machines mean nothing here) */
  from: string;
  startedAt: string | undefined;
  machine: RunMeta['machine'] | undefined;
  runtimes: Record<string, string> | undefined;
  shard: string | undefined;
  load: RunMeta['load'];
  /** the keys of the cells it measured */
  cells: string[];
}

/** Two parts ran on different machines (CPU model or core count) or node builds. */
export function machinesDiffer(parts: readonly Pick<MergedPart, 'machine' | 'runtimes'>[]): boolean {
  const keys = new Set(parts.map((p) => JSON.stringify([p.machine?.cpu, p.machine?.cores, p.runtimes])));
  return keys.size > 1;
}

/** Every sample of a part's samples.jsonl, in order, one at a time (a part may hold a million); a bad file is a UsageError. */
function eachSampleOf(dir: string, each: (sample: SampleRecord) => void): void {
  const file = path.join(dir, SAMPLES_FILE);
  if (!existsSync(file)) throw new UsageError(`${file} does not exist: give run folders to merge`);
  try {
    forEachSample(file, each);
  } catch (error) {
    if (error instanceof SamplesFileError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * A part is whole: no live run holds its folder (it would still be writing), its meta.json does not
 * say it was interrupted, and it says the run finished: a run writes `finishedAt` only at its end, so
 * a run killed outright (SIGKILL, the out-of-memory killer, a lost machine) leaves a meta.json without
 * it. `partial` accepts an interrupted or unfinished part. An import has no end of its own to record.
 */
function assertWhole(dir: string, meta: RunMeta | undefined, partial: boolean): void {
  assertNotHeld(dir);
  if (partial || !meta) return;
  if (meta.interrupted) throw new UsageError(`${dir} is an interrupted run: merge --partial accepts it as it is`);
  if (meta.finishedAt === undefined && meta.spec.source.kind !== 'imported')
    throw new UsageError(
      `${dir} did not finish: its meta.json has no finishedAt (the run was killed before its end, by SIGKILL or the out-of-memory killer)` +
        ': merge --partial accepts it as it is',
    );
}

/** A part's cells (key → label, in order of first sample) and meta.json, read without keeping its samples. */
function readPart(dir: string, partial: boolean): { cells: Map<string, string>; meta: RunMeta | undefined } {
  const meta = readMeta(dir);
  assertWhole(dir, meta, partial);
  const cells = new Map<string, string>();
  eachSampleOf(dir, (s) => {
    const key = cellKey(s.cell);
    if (!cells.has(key)) cells.set(key, cellLabel(s.cell));
  });
  return { cells, meta };
}

/** Joins the run folders into `out` and writes its report; `warn` gets the report's outlier lines. */
export async function runMerge(
  dirs: readonly string[],
  out: string,
  warn: (line: string) => void,
  partial = false,
): Promise<{ dir: string; parts: MergedPart[] }> {
  if (dirs.length < 2) throw new UsageError('merge needs at least two run folders');
  const target = path.resolve(out);
  if (existsSync(path.join(target, SAMPLES_FILE)))
    throw new UsageError(`${target} already holds a run (${SAMPLES_FILE}): choose another --out`);
  checkOutDir(target);
  if (existsSync(target) && readdirSync(target).length > 0) throw new UsageError(`--out: ${target} exists and is not empty`);
  const owner = new Map<string, string>();
  const parts: MergedPart[] = [];
  const metas: RunMeta[] = [];
  // first every part's cells (nothing is written before every part is known to join), then the samples,
  // streamed from each part into the joined file: memory holds cells, never samples
  for (const dir of dirs) {
    const part = readPart(path.resolve(dir), partial);
    const keys = [...part.cells.keys()];
    for (const [key, label] of part.cells) {
      const other = owner.get(key);
      if (other !== undefined)
        throw new UsageError(`${label} was measured in both ${other} and ${dir}: merge joins parts with different cells (shards)`);
      owner.set(key, dir);
    }
    if (part.meta) metas.push(part.meta);
    parts.push({
      from: path.basename(path.resolve(dir)),
      startedAt: part.meta?.startedAt,
      machine: part.meta?.machine,
      runtimes: part.meta?.runtimes,
      shard: part.meta?.spec.sampling?.shard,
      load: part.meta?.load,
      cells: keys,
    });
  }
  makeWritableDir(target);
  writeOwnedFileFrom(target, SAMPLES_FILE, (put) => {
    // lines gathered into chunks of about a MiB: one write each, not one a sample
    let chunk = '';
    for (const dir of dirs)
      eachSampleOf(path.resolve(dir), (s) => {
        chunk += JSON.stringify(s) + '\n';
        if (chunk.length >= 2 ** 20) {
          put(chunk);
          chunk = '';
        }
      });
    put(chunk);
  });
  const first = metas[0];
  if (first) {
    // the first part's meta.json, with every part's own machine and load under `parts`; the top-level
    // load is dropped (no single machine's load describes the whole)
    const { load: _load, ...rest } = first;
    const frameworks = metas.reduce<RunMeta['frameworks']>((all, m) => ({ ...all, ...m.frameworks }), {});
    const merged: RunMeta & { parts: MergedPart[] } = {
      ...rest,
      command: `merge of ${parts.length} runs (first: ${first.command})`,
      frameworks,
      parts,
    };
    writeMeta(target, merged);
  } else if (existsSync(path.join(target, META_FILE))) {
    throw new UsageError(`${target} has a meta.json already`);
  }
  await writeReport(target, { warn });
  return { dir: target, parts };
}
