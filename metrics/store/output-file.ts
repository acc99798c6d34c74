/**
 * Raw data is sacred: an output option that names a file (`--export-json`, compare's `--out`) may
 * never name a run folder's raw data (samples.jsonl, meta.json) or any other file a run writes into
 * its folder (store/run-folder.ts: attribution.json, hyperfine.json, the report, the charts, hidden
 * files such as a lock). One check for every such option, made when the options are read: before the
 * first sample, not after the run.
 */
import { accessSync, closeSync, constants, existsSync, openSync, realpathSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { META_FILE } from '../core/meta.ts';
import { refusedOutput } from './files.ts';
import { isRunFile } from './run-folder.ts';
import { SAMPLES_FILE } from '../core/samples.ts';

/** A path with every existing part resolved (symbolic links, `..`), so a link to samples.jsonl is seen as that. */
function resolved(file: string): string {
  const absolute = path.resolve(file);
  if (existsSync(absolute)) return realpathSync(absolute);
  const dir = path.dirname(absolute);
  return path.join(existsSync(dir) ? realpathSync(dir) : dir, path.basename(absolute));
}

/** Whether a folder holds a run: raw data of its own. */
function isRunFolder(dir: string): boolean {
  return existsSync(path.join(dir, SAMPLES_FILE)) || existsSync(path.join(dir, META_FILE));
}

/**
 * Check an output file: refused (UsageError) when it is a run's file inside a run folder, or inside
 * one of `runDirs` (the folders the command itself reads or writes, which may not exist yet).
 */
/** A file a run will write at its end: its folder must exist now (checked before a long run, not after it), and it is no run's file. */
export function checkExportFile(option: string, file: string): string {
  const dir = path.dirname(path.resolve(file));
  if (!existsSync(dir)) throw new UsageError(`${option}: the folder of ${file} does not exist`);
  // the file, or its folder when it is new, must take a write now: not after every sample has run
  const target = existsSync(file) ? file : dir;
  try {
    accessSync(target, constants.W_OK);
  } catch {
    throw new UsageError(`${option}: ${target === file ? file : `the folder of ${file}`} is not writable`);
  }
  if (target === dir) {
    // a folder that passes access() may still refuse a new file: a kernel filesystem (/proc), a
    // read-only mount seen by root. An empty file made and removed there says so now (a full disk
    // still takes an empty file: it is the write at the end that fails, exit 4, naming the file)
    try {
      closeSync(openSync(path.join(dir, `.coldstart-probe-${process.pid}`), 'wx'));
      unlinkSync(path.join(dir, `.coldstart-probe-${process.pid}`));
    } catch (error) {
      throw new UsageError(`${option}: cannot create ${file} (${(error as NodeJS.ErrnoException).code ?? 'refused'})`);
    }
  }
  return checkOutputFile(option, file);
}

export function checkOutputFile(option: string, file: string, runDirs: readonly string[] = []): string {
  const refused = refusedOutput(file);
  if (refused) throw new UsageError(`${option} ${refused}`);
  const target = resolved(file);
  const dir = path.dirname(target);
  const name = path.basename(target);
  const ownDirs = runDirs.map(resolved);
  if (isRunFile(name) && (isRunFolder(dir) || ownDirs.includes(dir))) {
    throw new UsageError(
      `${option} ${file} would overwrite ${name} of the run folder ${dir}: a run's own files are never an output; choose another file`,
    );
  }
  return file;
}
