/**
 * Files appear whole or not at all: every artefact is written to a temporary name beside it and
 * renamed over it, so a full disk or a killed process never leaves a truncated report, CSV or chart;
 * samples.jsonl grows by whole lines. Any refusal is an EnvironmentError that names the file.
 *
 * Hand-written rather than write-file-atomic: that package writes with one writeSync and does not
 * check for a short write, which is what a filling disk returns before ENOSPC: the full-disk test
 * found a truncated chart renamed into place.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { EnvironmentError, UsageError } from '../core/errors.ts';

function why(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'ENOSPC') return 'ENOSPC: no space left on device';
  if (code === 'EISDIR') return 'EISDIR: a folder is in the way';
  return code ?? message;
}

export function fileError(file: string, error: unknown, verb = 'write'): EnvironmentError {
  return new EnvironmentError(`cannot ${verb} ${file} (${why(error)})`);
}

/**
 * Every byte written, however many short writes a filling disk makes first. A descriptor that is
 * non-blocking (a pipe node shares, written through /dev/stdout) answers EAGAIN when full: that waits
 * 1 ms and tries again, for at most a minute. Any other error is thrown.
 */
export function writeAll(fd: number, bytes: Uint8Array): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let done = 0;
  for (let waited = 0; done < bytes.length;) {
    try {
      const wrote = writeSync(fd, bytes, done, bytes.length - done);
      if (wrote <= 0) throw Object.assign(new Error('no progress writing'), { code: 'EIO' });
      done += wrote;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || waited >= 60_000) throw error;
      Atomics.wait(pause, 0, 0, 1);
      waited += 1;
    }
  }
}

let temporaries = 0;
/** Temporary files of this process not renamed yet: removed if the process exits first. */
const pending = new Set<string>();
process.on('exit', () => {
  for (const file of pending) {
    try {
      unlinkSync(file);
    } catch {
      // gone already
    }
  }
});

/** The temporary name of `file`: hidden, beside it (a rename within one folder is atomic). */
export function temporaryName(file: string): string {
  temporaries += 1;
  return path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${temporaries}`);
}

/** Write `data` to `file` through a temporary file and a rename; nothing half-written is ever left. */
export function writeFileWhole(file: string, data: string | Uint8Array): void {
  writeFileWholeFrom(file, (put) => put(data));
}

/**
 * How an output path is written, by what is there now. A regular file, or nothing, is replaced whole
 * (a temporary beside it, renamed over it). A character device or a FIFO (`/dev/null`, `/dev/stdout`
 * on a terminal or a pipe, a named pipe) keeps its kind: it is opened and written through. A symbolic
 * link is followed on purpose: what it points to is written by the same rule, and the link stays a
 * link (`/dev/stdout` is one). A block device or a socket is refused: no report belongs there.
 */
type OutputKind = { kind: 'replace'; file: string } | { kind: 'through'; fd?: number };

function outputKind(file: string): OutputKind {
  let link: Stats;
  try {
    link = lstatSync(file);
  } catch {
    return { kind: 'replace', file }; // absent (or its folder is: the write names that error)
  }
  // a link through /proc or /dev/fd (`/dev/stdout`, `/dev/fd/3`) is a stream this process holds, whatever it is: written through
  const descriptor = link.isSymbolicLink() ? throughDescriptor(file) : undefined;
  if (descriptor) return { kind: 'through', ...(descriptor.fd === undefined ? {} : { fd: descriptor.fd }) };
  let target: Stats = link;
  if (link.isSymbolicLink()) {
    try {
      target = statSync(file);
    } catch {
      return { kind: 'replace', file: realTarget(file) }; // a dangling link: its target is made
    }
  }
  if (target.isFile()) return { kind: 'replace', file: link.isSymbolicLink() ? realTarget(file) : file };
  if (target.isCharacterDevice() || target.isFIFO()) return { kind: 'through' };
  if (target.isDirectory()) throw fileError(file, Object.assign(new Error('a folder'), { code: 'EISDIR' }));
  const kind = target.isBlockDevice() ? 'block device' : 'socket';
  throw new UsageError(
    `${file} is a ${kind}: an output must be a file, a FIFO, a character device or a stream of this process (/dev/stdout)`,
  );
}

/**
 * Why `file` can never be an output (a block device, or a socket not reached through /dev/stdout), or
 * undefined: outputKind's refusal, asked with the options, before a run (a folder is the write's own error).
 */
export function refusedOutput(file: string): string | undefined {
  try {
    outputKind(file);
    return undefined;
  } catch (error) {
    return error instanceof UsageError ? error.message : undefined;
  }
}

/** How many links a chain may pass through before it is taken for a loop (Linux's own limit, ELOOP). */
const MAX_LINK_HOPS = 40;

/**
 * The paths a chain of links passes through, from `file` (resolved) to the first that is not a link
 * (missing, or not a link: its end), at most MAX_LINK_HOPS links; `ended` is false for a loop.
 */
function linkChain(file: string): { paths: string[]; ended: boolean } {
  const paths = [path.resolve(file)];
  for (let hop = 0; hop < MAX_LINK_HOPS; hop += 1) {
    const at = paths[paths.length - 1]!;
    let next: string;
    try {
      next = readlinkSync(at);
    } catch {
      return { paths, ended: true };
    }
    paths.push(path.resolve(path.dirname(at), next));
  }
  return { paths, ended: false };
}

/**
 * Whether a chain of links passes through a descriptor table (/proc/…/fd/…, /dev/fd/…), and, when the
 * table is this process's own, the descriptor: written as it is (a socket or a pipe cannot be reopened).
 */
function throughDescriptor(file: string): { fd?: number } | undefined {
  const own = new RegExp(`^/(?:proc/(?:self|${process.pid})|dev)/fd/(\\d+)$`);
  for (const at of linkChain(file).paths) {
    const fd = own.exec(at);
    if (fd) return { fd: Number(fd[1]) };
    if (/^\/proc\/[^/]+\/fd\//.test(at)) return {};
  }
  return undefined;
}

/**
 * Where a link really leads: a chain of links followed to its end, which is the file the output
 * goes to; for a dangling link, the missing file at its end (made by the write, the link kept, as a
 * shell's `>` does). A chain that loops is refused, one line (it was replaced by a regular file).
 */
function realTarget(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    // dangling, or a loop: follow it by hand
  }
  const chain = linkChain(file);
  if (!chain.ended)
    throw new UsageError(`${file} is a symbolic link that loops (more than ${MAX_LINK_HOPS} links): an output must lead to a file`);
  return chain.paths[chain.paths.length - 1]!;
}

/**
 * Write to a character device, a FIFO or a descriptor link as it is: opened for appending (no
 * truncation, no rename), so `--out /dev/stdout` into a redirected file adds to what is there; or,
 * given `own`, one of this process's descriptors (`/dev/stdout` is fd 1), used as it is and left open.
 */
function writeThrough(file: string, write: (put: (chunk: string | Uint8Array) => void) => void, own?: number): void {
  let opened: number | undefined;
  try {
    opened = own === undefined ? openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NOCTTY) : undefined;
    const fd = own ?? opened!;
    write((chunk) => writeAll(fd, typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk));
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === undefined ? error : fileError(file, error);
  } finally {
    if (opened !== undefined) closeSync(opened);
  }
}

/**
 * The same as writeFileWhole for data too large to hold at once: `write` hands its chunks to `put`
 * in order, and the file appears whole (renamed from its temporary) only when `write` returns.
 * A special file named as the output keeps its kind (outputKind).
 */
export function writeFileWholeFrom(file: string, write: (put: (chunk: string | Uint8Array) => void) => void): void {
  const how = outputKind(file);
  if (how.kind === 'replace') replaceWhole(how.file, write);
  else writeThrough(file, write, how.fd);
}

function replaceWhole(file: string, write: (put: (chunk: string | Uint8Array) => void) => void): void {
  const temporary = temporaryName(file);
  let fd: number | undefined;
  try {
    fd = openSync(temporary, 'wx', 0o644);
    pending.add(temporary);
    const open = fd;
    write((chunk) => writeAll(open, typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk));
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temporary, file);
    pending.delete(temporary);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temporary);
    } catch {
      // never made
    }
    pending.delete(temporary);
    // a failure of the file system names the file; any other (the data's own source) passes as it is
    throw (error as NodeJS.ErrnoException).code === undefined ? error : fileError(file, error);
  }
}

/**
 * The one rule for links inside a folder the tool owns (a run, results, bisect or package folder, a
 * scratch folder): the folder itself is a path the user named and may be a link (followed, as every
 * output path is), but no file or folder the tool creates or replaces inside it is reached through a
 * link. A link found there is refused in one line naming it (exit 2), and what it points at is left
 * as it was: a shared or committed folder (git stores links) could otherwise name any file the user
 * can write.
 */
export class LinkInOwnedFolder extends UsageError {
  constructor(link: string, dir: string) {
    super(`${link} is a symbolic link inside ${dir}, a folder coldstart writes: a link there is never followed (remove it)`);
  }
}

/**
 * `relative` inside the owned folder `dir`, every part of it checked with lstat: a part that is a
 * symbolic link is refused (LinkInOwnedFolder). Parts that do not exist yet are fine (the tool makes them).
 */
export function ownedPath(dir: string, relative: string): string {
  let at = dir;
  for (const part of relative.split(/[\\/]+/).filter((p) => p && p !== '.')) {
    if (part === '..') throw new UsageError(`${relative} leads out of ${dir}`);
    at = path.join(at, part);
    let stat: Stats;
    try {
      stat = lstatSync(at);
    } catch {
      return path.join(dir, relative); // absent: so is everything below it
    }
    if (stat.isSymbolicLink()) throw new LinkInOwnedFolder(at, dir);
  }
  return at;
}

/** Make `relative` (one level at a time) inside the owned folder `dir`, no part of it a link; returns its path. */
export function ownedDir(dir: string, relative: string): string {
  ownedPath(dir, relative);
  let at = dir;
  for (const part of relative.split(/[\\/]+/).filter((p) => p && p !== '.')) {
    at = path.join(at, part);
    try {
      mkdirSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw fileError(at, error, 'create');
      // made meanwhile by another writer: checked again, never followed
      const stat = lstatSync(at);
      if (stat.isSymbolicLink()) throw new LinkInOwnedFolder(at, dir);
      if (!stat.isDirectory()) throw new UsageError(`${at} is in the way inside ${dir} (not a folder): remove it`);
    }
  }
  return at;
}

/**
 * Write `relative` inside the owned folder `dir` whole (a temporary beside it, renamed over it): no
 * part of its path may be a link (ownedPath), and the rename replaces the name itself, never what a
 * link put there meanwhile would point at. Every writer of a file of a run, results, bisect or package
 * folder goes through here (or writeOwnedFileFrom), not through writeFileWhole, which follows links.
 */
export function writeOwnedFile(dir: string, relative: string, data: string | Uint8Array): string {
  return writeOwnedFileFrom(dir, relative, (put) => put(data));
}

/** writeOwnedFile for data written in chunks (writeFileWholeFrom's form). */
export function writeOwnedFileFrom(dir: string, relative: string, write: (put: (chunk: string | Uint8Array) => void) => void): string {
  const file = ownedPath(dir, relative);
  replaceWhole(file, write);
  return file;
}

/**
 * An input of an owned folder (a run folder's samples.jsonl or meta.json) read through a link must
 * stay inside the folder: a link that leads out of it is refused (LinkInOwnedFolder); a link inside
 * it, or no link, is read as it is.
 */
export function checkOwnedInput(file: string): void {
  let stat: Stats;
  try {
    stat = lstatSync(file);
  } catch {
    return; // absent: the read says so
  }
  if (!stat.isSymbolicLink()) return;
  const dir = path.dirname(file);
  let target: string;
  let root: string;
  try {
    target = realpathSync(file);
    root = realpathSync(dir);
  } catch {
    throw new LinkInOwnedFolder(file, dir); // dangling, or a loop
  }
  if (!target.startsWith(root + path.sep)) throw new LinkInOwnedFolder(file, dir);
}

/**
 * Why a file the tool appends to inside a folder it owns (samples.jsonl) must not be written through, or
 * undefined: it is not a regular file (a FIFO, a device), or it has another name (a hard link).
 */
export function unappendable(file: string, stat: Stats): UsageError | undefined {
  if (stat.isFile() && stat.nlink <= 1) return undefined;
  const what = stat.isFile() ? `a hard link (${stat.nlink} names)` : 'not a regular file';
  return new UsageError(
    `${file} is ${what} inside ${path.dirname(file)}, a folder coldstart writes: it is never written through (remove it)`,
  );
}

/**
 * Append one line; when it cannot be written whole, the file is cut back to where it was. The file is
 * a run folder's own (samples.jsonl): opened without following a link (O_NOFOLLOW), and without
 * waiting (O_NONBLOCK: a FIFO with no reader is refused, not waited on). It must be a regular file of
 * one name: a hard link (a folder unpacked from a tarball can hold one to any file of its owner) would
 * be appended to through the folder, as a symbolic link would.
 */
export function appendLine(file: string, line: string): void {
  let fd: number;
  try {
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    fd = openSync(file, flags, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new LinkInOwnedFolder(file, path.dirname(file));
    if (code === 'ENXIO')
      throw new UsageError(`${file} is a pipe or socket inside ${path.dirname(file)}, a folder coldstart writes: remove it`);
    throw fileError(file, error);
  }
  const stat = fstatSync(fd);
  const refused = unappendable(file, stat);
  if (refused) {
    closeSync(fd);
    throw refused;
  }
  try {
    writeAll(fd, Buffer.from(line.endsWith('\n') ? line : `${line}\n`, 'utf8'));
  } catch (error) {
    try {
      ftruncateSync(fd, stat.size);
    } catch {
      // the error that matters is the write's
    }
    throw fileError(file, error);
  } finally {
    closeSync(fd);
  }
}
