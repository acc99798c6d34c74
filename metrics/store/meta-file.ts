/**
 * meta.json on disk: written at a run's start and end and read by every report (its types and its
 * parsing are core/meta.ts), with the facts of this machine and tool that a run records.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { META_FILE, parseMetaText, type RunMeta } from '../core/meta.ts';
import { PROJECT_ROOT } from '../core/paths.ts';
import { checkOwnedInput, writeOwnedFile } from './files.ts';
import { readTextBounded } from './input-files.ts';
import { jsonFileText } from '../core/escape.ts';
import { HYPERFINE_FILE } from '../core/hyperfine.ts';
import type { FolderKind } from './out-dir.ts';

export function machine(): RunMeta['machine'] {
  const cpus = os.cpus();
  return {
    os: `${os.platform()} ${os.arch()} ${os.release()}`,
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
  };
}

/** The node that runs coldstart itself (the children's runtimes are `runtimes`). */
export function runnerInfo(): RunMeta['runner'] {
  return { node: process.version };
}

/** The tool's own version, from its package.json. */
export function toolVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** meta.json is a few kB (a merge of many parts some hundreds): a larger one is not a run's */
const MAX_META_BYTES = 16 * 1024 * 1024;

/**
 * A run folder, as an --out that exists: its meta.json (a run's, as parsed) or hyperfine.json (a
 * `hyperfine` run without samples) marks it as the tool's own (store/out-dir.ts, checkOwnFolder).
 */
export const RUN_FOLDER: FolderKind = {
  what: 'a run folder',
  markers: [META_FILE, HYPERFINE_FILE],
  isMarker: (file) => {
    if (path.basename(file) !== META_FILE) return true;
    try {
      parseMetaText(readTextBounded(file, MAX_META_BYTES, "a run's meta.json"), file);
      return true;
    } catch {
      return false;
    }
  },
};

export function writeMeta(dir: string, meta: RunMeta): void {
  writeOwnedFile(dir, META_FILE, jsonFileText(meta, 2) + '\n');
}

/**
 * meta.json of a run folder, or undefined when absent (reports then say less); a folder in its
 * place, text that is not JSON, or JSON that is not an object, is a UsageError naming the file.
 */
export function readMeta(dir: string): RunMeta | undefined {
  const file = path.join(dir, META_FILE);
  let text: string;
  checkOwnedInput(file);
  try {
    text = readTextBounded(file, MAX_META_BYTES, "a run's meta.json");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseMetaText(text, file);
}
