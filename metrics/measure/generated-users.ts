/**
 * Runs that use generated/: each live run holds a file `generated/.in-use/<owner>` (its pid and
 * start time) from its start to its end, so `clean`, which empties generated/ and the compile cache,
 * refuses while one is alive instead of deleting files a run still needs. The file of a runner that
 * died (SIGKILL) is stale: its owner is no longer alive, and clean removes it.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GENERATED_DIR } from '../core/paths.ts';
import { ownerAlive, ownerTag, parseOwnerTag } from './owner.ts';

const IN_USE = '.in-use';

/** Mark generated/ as used by this process until the returned function is called (or the process exits). */
export function useGenerated(dir: string = GENERATED_DIR): () => void {
  const folder = path.join(dir, IN_USE);
  const file = path.join(folder, ownerTag());
  try {
    mkdirSync(folder, { recursive: true });
    writeFileSync(file, '');
  } catch {
    return () => undefined; // generated/ not writable: the run's own generate step says so
  }
  const release = () => rmSync(file, { force: true });
  process.once('exit', release);
  return () => {
    process.off('exit', release);
    release();
  };
}

/** The live runs that use generated/ (their pids); the files of dead runners are removed on the way. */
export function generatedUsers(dir: string = GENERATED_DIR): number[] {
  const folder = path.join(dir, IN_USE);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const live: number[] = [];
  for (const name of names) {
    const owner = parseOwnerTag(name);
    if (owner && ownerAlive(owner)) live.push(owner.pid);
    else rmSync(path.join(folder, name), { force: true, recursive: true });
  }
  return live;
}
