/**
 * One run per folder: a run holds `.coldstart.lock` in its folder from before its first write to
 * its end. The lock is created atomically (O_EXCL), so of two runs started together into one
 * folder exactly one gets it; the other is a usage error. It names its owner (pid and start time):
 * the lock of a runner that died (SIGKILL, a crash) is taken over, saying so.
 */
import { closeSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { readTextBounded } from '../store/input-files.ts';
import { ownerAlive, ownerTag, parseOwnerTag, selfOwner, type Owner } from './owner.ts';

export const LOCK_FILE = '.coldstart.lock';
/** A lock file this young and still empty is being written by its owner: held. */
const BEING_WRITTEN_MS = 5000;

interface LockContent {
  owner: Owner;
  command: string;
  since: string;
}

/** A lock file holds one short JSON line; anything larger (or a pipe put in its place) is not a lock. */
function readLockText(file: string): string {
  return readTextBounded(file, 64 * 1024, 'a run lock');
}

function readLock(file: string): { text: string; content: LockContent | undefined } | undefined {
  let text: string;
  try {
    text = readLockText(file);
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as { owner?: unknown; command?: unknown; since?: unknown };
    const owner = typeof value.owner === 'string' ? parseOwnerTag(value.owner) : undefined;
    if (!owner) return { text, content: undefined };
    return { text, content: { owner, command: String(value.command), since: String(value.since) } };
  } catch {
    return { text, content: undefined };
  }
}

function young(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < BEING_WRITTEN_MS;
  } catch {
    return false;
  }
}

/** Who holds `dir` right now, or undefined when no live run does. */
export function folderHolder(dir: string): string | undefined {
  const file = path.join(dir, LOCK_FILE);
  const lock = readLock(file);
  if (!lock) return undefined;
  if (!lock.content) return young(file) ? 'a run starting' : undefined;
  if (!ownerAlive(lock.content.owner)) return undefined;
  return `${lock.content.command} pid ${lock.content.owner.pid}, since ${lock.content.since}`;
}

export interface FolderLock {
  readonly file: string;
  release(): void;
}

/**
 * Take `dir` (an existing folder) for this process; a UsageError when a live run holds it. `say`
 * hears about a dead runner's lock taken over.
 */
export function lockFolder(dir: string, command: string, say: (line: string) => void): FolderLock {
  const file = path.join(dir, LOCK_FILE);
  const mine = JSON.stringify({ owner: ownerTag(), command, since: new Date().toISOString() }) + '\n';
  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number | undefined;
    try {
      fd = openSync(file, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new UsageError(`cannot lock ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, mine);
      } finally {
        closeSync(fd);
      }
      return { file, release: () => releaseLock(file, mine) };
    }
    const holder = folderHolder(dir);
    if (holder) throw new UsageError(`${dir} is in use by another run (${holder}): choose another --out`);
    takeOver(file, say);
  }
  throw new UsageError(`cannot lock ${dir}: other runs keep taking it`);
}

/** How long a writer waits for a shared folder a live run holds (the versions cache), ms: longer than one npm install's bound (10 min). */
export const SHARED_FOLDER_WAIT_MS = 15 * 60 * 1000;
/** How often a waiting writer looks again, ms. */
const WAIT_POLL_MS = 200;

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Take `dir` (an existing folder shared by runs: the versions cache) for this process, waiting while a live run holds
 * it, at most `waitMs` (SHARED_FOLDER_WAIT_MS); then a UsageError naming the holder. `waiting` hears once that it waits.
 */
export function lockSharedFolder(
  dir: string,
  command: string,
  say: (line: string) => void,
  options: { waitMs?: number; waiting?: (holder: string) => void } = {},
): FolderLock {
  const waitMs = options.waitMs ?? SHARED_FOLDER_WAIT_MS;
  const until = Date.now() + waitMs;
  let said = false;
  for (;;) {
    let holder = folderHolder(dir);
    if (!holder) {
      try {
        return lockFolder(dir, command, say);
      } catch (error) {
        // taken between our look and our lock: wait for that run as for any other
        holder = folderHolder(dir);
        if (!holder) throw error;
      }
    }
    if (Date.now() >= until)
      throw new UsageError(
        `${dir} is still in use by another run after ${Math.round(waitMs / 1000)} s (${holder}): try again when it ends`,
      );
    if (!said) options.waiting?.(holder);
    said = true;
    sleepSync(WAIT_POLL_MS);
  }
}

/** The lock ensureVersion holds on the versions cache while it installs (plan/versions.ts): waits, saying so once. */
export function versionsCacheLock(command: string, log: (line: string) => void): (root: string) => FolderLock {
  return (root) =>
    lockSharedFolder(root, command, log, { waiting: (holder) => log(`waiting for the versions cache ${root} (in use by ${holder})`) });
}

/** Move a dead runner's lock aside (rename is atomic: of two runs taking it over, one moves it). */
function takeOver(file: string, say: (line: string) => void): void {
  const before = readLock(file);
  const aside = `${file}.stale-${ownerTag()}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // another run moved it first: try to create ours again
  }
  const moved = readLock(aside);
  if (before && moved && moved.text !== before.text) {
    // a live run's fresh lock, made between our read and our rename: give it back
    try {
      renameSync(aside, file);
    } catch {
      // it made another meanwhile
    }
    return;
  }
  try {
    unlinkSync(aside);
  } catch {
    // gone already
  }
  const who = before?.content ? `pid ${before.content.owner.pid}, ${before.content.command} since ${before.content.since}` : 'unreadable';
  say(`took over the lock of a run that is no longer alive in ${path.dirname(file)} (${who})`);
}

function releaseLock(file: string, mine: string): void {
  try {
    if (readLockText(file) === mine) unlinkSync(file);
  } catch {
    // already gone
  }
}

/** Refuse to work on `dir` while a live run holds it (report, import). */
export function assertNotHeld(dir: string): void {
  const holder = folderHolder(dir);
  if (holder) throw new UsageError(`${dir} is in use by a run (${holder}): wait for it to finish`);
}

export function isLockFile(name: string): boolean {
  return name === LOCK_FILE || name.startsWith(`${LOCK_FILE}.`);
}

// the owner of this process, read once before any lock is written
selfOwner();
