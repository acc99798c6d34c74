/** A run folder's hyperfine.json on disk (its types and parser are core/hyperfine.ts). */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { HYPERFINE_FILE, HyperfineFileError, parseHyperfineJson, type HyperfineFile, type HyperfineRunInfo } from '../core/hyperfine.ts';
import { readTextBounded } from './input-files.ts';

/** hyperfine.json is read whole up to this: hyperfine's export of a run's cells is a few hundred KiB. */
export const MAX_HYPERFINE_BYTES = 64 * 2 ** 20;

/** A run folder's hyperfine.json: undefined when absent; HyperfineFileError when unreadable or over MAX_HYPERFINE_BYTES. */
export function readHyperfine(dir: string): HyperfineFile<Partial<HyperfineRunInfo>> | undefined {
  const file = path.join(dir, HYPERFINE_FILE);
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readTextBounded(file, MAX_HYPERFINE_BYTES, "a run's hyperfine.json");
  } catch (error) {
    throw new HyperfineFileError(error instanceof UsageError ? error.message : `cannot read ${file}`);
  }
  return parseHyperfineJson(text, file);
}
