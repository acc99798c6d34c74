/** A run's file cache: the cells' file lists when some cell starts from a cold file cache, and what meta.json says of it. */
import path from 'node:path';
import { PROJECT_ROOT } from '../../generators/registry.ts';
import { UsageError } from '../core/errors.ts';
import type { PlannedCell } from '../plan/cells.ts';
import { RUNTIMES_DIR } from '../plan/runtimes.ts';
import { SampleFileCache, STRACE_ARGS, straceProblem } from './file-cache.ts';

/** How the lists are found and the files evicted, for meta.json. */
export const FILE_CACHE_META = {
  discovery:
    `one unrecorded run per cell under strace ${STRACE_ARGS.join(' ')}: ` +
    'the files it opened or executed inside the project or the runtimes folder ' +
    "(a user's app: also inside its task root or working folder, or any node_modules folder)",
  cold: 'before each run: posix_fadvise(POSIX_FADV_DONTNEED) on each of those files (dd iflag=nocache count=0)',
  warm: 'before each run: each of those files read once',
};

/** Where a sample's own files may lie: the project, its node_modules and the runtimes folder (either may be a symlink to elsewhere). */
export function sampleRoots(): string[] {
  return [PROJECT_ROOT, path.join(PROJECT_ROOT, 'node_modules'), RUNTIMES_DIR];
}

/** The file lists of a run with cold cells (strace must be there: a UsageError otherwise); undefined when every cell is warm. */
export function fileCacheOf(cells: readonly PlannedCell[], scratch: string): SampleFileCache | undefined {
  if (!cells.some((c) => c.launch && c.cell.fileCache === 'cold')) return undefined;
  const problem = straceProblem();
  if (problem) throw new UsageError(`--file-cache cold: ${problem}`);
  return new SampleFileCache(scratch, sampleRoots());
}
