/**
 * The OS file cache a sample starts with (`--file-cache`). A new Lambda sandbox has read nothing
 * yet, whereas every sample here follows a warm-up that filled the page cache. `cold` evicts,
 * before each run of a cell, exactly the files that run's process reads: found once per cell by an
 * unrecorded discovery run under strace (every file it opened or executed), kept when they lie in
 * the project (the runtime binary and the client in .runtimes/, the handler or bundle in generated/,
 * node_modules) or, for the user's own app, in its folders or any node_modules folder, never the
 * machine's own libraries, never the scratch folder. Eviction is
 * posix_fadvise(POSIX_FADV_DONTNEED) per file through coreutils `dd iflag=nocache count=0`: no
 * global cache drop, nothing else on the machine touched. Pages another live process has mapped
 * (a runtime binary that another run executes at the same moment) stay: the kernel does not drop
 * them. `warm` cells of a run that also has cold cells read their files first, so a cold cell's
 * eviction of a shared file (the node binary) never leaks into a warm cell's sample.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { cellKey, makeCell, type Cell } from '../core/cell.ts';
import type { SampleRecord } from '../core/samples.ts';
import type { Launch } from '../plan/launch.ts';
import { childDeadlineMs, childFailureLine, deadlinePassed } from '../core/child-deadlines.ts';

/** What strace must trace to see every file a process opens or executes, successful calls only, paths in full and in hex. */
export const STRACE_ARGS = ['-f', '-qq', '-xx', '-s', '65535', '-e', 'trace=open,openat,execve', '-e', 'status=successful'];

/** Why strace cannot be used here, or undefined. */
export function straceProblem(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const deadlineMs = childDeadlineMs('probe', env);
  const probe = spawnSync('strace', ['-V'], { stdio: 'ignore', env, timeout: deadlineMs, killSignal: 'SIGKILL' });
  if (deadlinePassed(probe)) return childFailureLine('`strace -V`', probe, deadlineMs);
  return probe.error || probe.status !== 0
    ? 'strace is not installed (the cold file cache finds the files a run reads with it)'
    : undefined;
}

/** The launch of a discovery run: the same process under strace, its record written to `output`. */
export function tracedLaunch(launch: Launch, output: string): Launch {
  return { ...launch, command: 'strace', args: [...STRACE_ARGS, '-o', output, launch.command, ...launch.args] };
}

function unhex(text: string): string {
  return Buffer.from(text.replace(/\\x/g, ''), 'hex').toString('utf8');
}

/** The paths strace's record says were opened or executed (absolute: relative ones against `cwd`), each once, in order. */
export function parseStraceOpens(text: string, cwd: string): string[] {
  const seen = new Set<string>();
  const pattern = /\b(?:openat\(AT_FDCWD, |open\(|execve\()"((?:\\x[0-9a-f]{2})*)"/g;
  for (const line of text.split('\n')) {
    if (/= -1 /.test(line)) continue;
    for (const match of line.matchAll(pattern)) {
      const file = unhex(match[1]!);
      if (file) seen.add(path.resolve(cwd, file));
    }
  }
  return [...seen];
}

/** A folder as the kernel names it (through any symlink), or as given when it does not exist. */
function realFolder(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * The files among `opened` a sample's own cache state covers: regular files under `roots`, not under
 * `exclude`, resolved; with `anyPackage`, also every file inside a node_modules folder wherever it is
 * (a user's app may resolve packages hoisted above its own folder: they would be in its zip). Files
 * and folders are compared by their real paths, so a root reached through a symlink (a linked
 * node_modules or runtimes folder) still holds its files.
 */
export function sampleFiles(
  opened: readonly string[],
  roots: readonly string[],
  exclude: readonly string[],
  options: { anyPackage?: boolean } = {},
): string[] {
  const inside = (file: string, dir: string) => file === dir || file.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
  const packaged = (file: string) => options.anyPackage === true && file.includes(`${path.sep}node_modules${path.sep}`);
  roots = [...new Set(roots.flatMap((r) => [r, realFolder(r)]))];
  exclude = [...new Set(exclude.flatMap((e) => [e, realFolder(e)]))];
  const files = new Set<string>();
  for (const file of opened) {
    let real: string;
    try {
      real = realpathSync(file);
      if (!statSync(real).isFile()) continue;
    } catch {
      continue;
    }
    if ((roots.some((r) => inside(real, r)) || packaged(real)) && !exclude.some((e) => inside(real, e))) files.add(real);
  }
  return [...files].sort();
}

/**
 * Drop `files` from the page cache (posix_fadvise DONTNEED on each, via dd); dirty pages are written first.
 * Undefined when done, else why not (its deadline passed, or the shell could not run): a cold cell is then not cold.
 */
export function evictFiles(files: readonly string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!files.length) return undefined;
  // a file dd cannot read (gone since discovery) is left as it is: the loop's status is the last dd's, so it is not asked
  const script = 'for f; do dd if="$f" iflag=nocache count=0 status=none 2>/dev/null; done; exit 0';
  const deadlineMs = childDeadlineMs('evict', env);
  const run = spawnSync('/bin/sh', ['-c', script, 'coldstart-evict', ...files], {
    stdio: 'ignore',
    timeout: deadlineMs,
    killSignal: 'SIGKILL',
  });
  return childFailureLine(`the cold file cache's eviction of ${files.length} file${files.length === 1 ? '' : 's'}`, run, deadlineMs);
}

/** Read `files` once so they are in the page cache. */
export function readFiles(files: readonly string[]): void {
  for (const file of files) {
    try {
      readFileSync(file);
    } catch {
      // a file gone since discovery is simply not read
    }
  }
}

/** Runs the discovery run of a cell with the launch it is given; the record says whether it answered. */
export type DiscoveryRun = (launch: (launch: Launch) => Launch) => Promise<SampleRecord>;

/** The file lists of one run's cells, found once per cell (cells that differ only in their file cache share one). */
export class SampleFileCache {
  private readonly lists = new Map<string, { files: string[] } | { error: string }>();

  constructor(
    private readonly scratch: string,
    /** where a sample's own files may lie (the project, the runtimes folder) */
    private readonly roots: readonly string[],
  ) {}

  private key(cell: Cell): string {
    return cellKey(makeCell({ ...cell, fileCache: 'warm' }));
  }

  /** The files a cell's runs read, once found. */
  filesOf(cell: Cell): readonly string[] | undefined {
    const list = this.lists.get(this.key(cell));
    return list && 'files' in list ? list.files : undefined;
  }

  /** How many files each cell's list has, by cell key (for meta.json). */
  counts(): Record<string, number | string> {
    return Object.fromEntries([...this.lists].map(([key, list]) => [key, 'files' in list ? list.files.length : list.error]));
  }

  /**
   * Before a run of `cell`: find its files (the first time), then evict them (cold) or read them
   * (warm). Undefined when the run may go ahead, else why it cannot (its discovery failed). `app`:
   * the folders of the user's own app (`measure`), whose files and packages count as the sample's too.
   */
  async prepare(cell: Cell, discover: DiscoveryRun, app?: { roots: readonly string[] }): Promise<string | undefined> {
    const key = this.key(cell);
    let list = this.lists.get(key);
    if (!list) {
      list = await this.discover(discover, app);
      this.lists.set(key, list);
    }
    if ('error' in list) return list.error;
    if (cell.fileCache === 'cold') return evictFiles(list.files);
    readFiles(list.files);
    return undefined;
  }

  private async discover(discover: DiscoveryRun, app?: { roots: readonly string[] }): Promise<{ files: string[] } | { error: string }> {
    const output = path.join(this.scratch, `strace-${this.lists.size}.txt`);
    let cwd = this.scratch;
    try {
      const record = await discover((launch) => {
        cwd = launch.cwd;
        return tracedLaunch(launch, output);
      });
      if (!record.ok) return { error: `the file-cache discovery run failed: ${record.error ?? 'no answer'}` };
      const opened = parseStraceOpens(readFileSync(output, 'utf8'), cwd);
      const files = sampleFiles(opened, [...this.roots, ...(app?.roots ?? [])], [this.scratch], { anyPackage: app !== undefined });
      // nothing to evict would make a cold cell a warm one without a word
      if (!files.length)
        return {
          error:
            'the file-cache discovery run read no file of its own to evict ' +
            `(none under the project or the runtimes folder${app ? " or the app's" : ''})`,
        };
      // written files (a fresh bundle) are flushed once, so that eviction can drop them
      const deadlineMs = childDeadlineMs('sync', process.env);
      const synced = spawnSync('sync', ['--data', '--', ...files], { stdio: 'ignore', timeout: deadlineMs, killSignal: 'SIGKILL' });
      // only its deadline stops the run: a file sync cannot flush (a read-only mount) was written long ago, as before
      if (deadlinePassed(synced)) {
        const what = `\`sync --data\` of ${files.length} file${files.length === 1 ? '' : 's'}`;
        return { error: `the file-cache discovery run failed: ${childFailureLine(what, synced, deadlineMs)!}` };
      }
      return { files };
    } catch (error) {
      return { error: `the file-cache discovery run failed: ${(error as Error).message}` };
    } finally {
      rmSync(output, { force: true });
    }
  }
}
