/**
 * The one check of every command's output folder (`--out` of run, hyperfine, lambda:package,
 * lambda:import): made one level at a time (a recursive mkdir can loop forever under /proc),
 * refused on a filesystem that holds no ordinary files (/proc, /sys, a cgroup hierarchy, where a
 * mkdir would even make a cgroup), and proven writable with a real file. Any problem is a one-line
 * UsageError naming the path, and leaves nothing behind.
 */
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmdirSync,
  statfsSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { EnvironmentError, UsageError } from '../core/errors.ts';

/** statfs f_type of the kernel's pseudo filesystems (linux/magic.h): no place for a run's files. */
const PSEUDO_FILESYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x1cd1, 'devpts'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0xcafe4a11, 'bpf'],
  [0x6165676c, 'pstore'],
  [0x62656570, 'configfs'],
  [0x65735543, 'fusectl'],
  [0x19800202, 'mqueue'],
  [0x42494e4d, 'binfmt_misc'],
  [0xde5e81e4, 'efivarfs'],
  [0xf97cff8c, 'selinuxfs'],
  [0x6e736673, 'nsfs'],
  [0x958458f6, 'hugetlbfs'],
]);

function code(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/** The pseudo filesystem `dir` is on, or undefined for an ordinary one (or where statfs cannot tell). */
export function pseudoFilesystem(dir: string): string | undefined {
  try {
    return PSEUDO_FILESYSTEMS.get(statfsSync(dir).type);
  } catch {
    return undefined;
  }
}

/** Write and remove one small file in `dir`: a folder that takes a directory may still refuse files. */
function probeWrite(dir: string): void {
  const file = path.join(dir, `.coldstart-probe-${process.pid}`);
  const fd = openSync(file, 'wx');
  try {
    writeSync(fd, 'x');
  } finally {
    closeSync(fd);
    unlinkSync(file);
  }
}

function removeMade(made: string[]): void {
  for (const dir of [...made].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}

/**
 * What makes an existing folder the tool's own, for an --out that already holds something: a file the
 * tool writes there first and nobody else would (a run folder's meta.json, written at a run's start
 * and read as a run's; a bisect's bisect.json; a package's template.yaml). Old run folders carry
 * meta.json already, so every published run folder stays the tool's own.
 */
export interface FolderKind {
  /** what the folder is, for the refusal: "a run folder" */
  what: string;
  /** the files whose presence marks the folder as the tool's (any one of them) */
  markers: readonly string[];
  /** whether a marker is really the tool's (its content checked), given its path; a regular file is enough by default */
  isMarker?: (file: string) => boolean;
  /** names the tool itself puts in such a folder (lambda:run's run folder per line and architecture), each checked on its own */
  ownEntries?: readonly string[];
}

/** A name the tool itself leaves in a folder it is about to use (its lock, its probe file, a temporary): not the user's. */
const TOOL_LEFTOVER = /^\.coldstart[.-]/;

/** What a marker that is there but not a regular file is, for the refusal (a link is never followed to find out). */
function notAFile(file: string): string | undefined {
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return undefined;
  }
  if (stat.isFile()) return undefined;
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO() || stat.isSocket()) return 'a pipe or socket';
  return 'a device';
}

function isRegularFile(file: string): boolean {
  try {
    return lstatSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * A folder output is the tool's own, empty, or new: an existing `dir` that holds anything but the
 * tool's own leftovers (its lock) must carry the kind's marker (a regular file, not a link), or it is
 * the user's folder and refused in one line (exit 2) before anything runs or is written.
 */
export function checkOwnFolder(dir: string, kind: FolderKind, option = '--out'): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // absent or not a folder: checkOutDir's own refusals
  }
  const others = names.filter((name) => !TOOL_LEFTOVER.test(name) && !kind.ownEntries?.includes(name)).sort();
  if (others.length === 0) return;
  for (const name of kind.markers) {
    const marker = path.join(dir, name);
    if (isRegularFile(marker) && (kind.isMarker?.(marker) ?? true)) return;
  }
  const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? `, … (${others.length} entries)` : '');
  // a marker that is there but not a file (a FIFO, a link to /dev/zero) is named as what it is
  const odd = kind.markers.map((name) => [name, notAFile(path.join(dir, name))] as const).find(([, what]) => what);
  const why = odd
    ? ` (its ${odd[0]} is ${odd[1]}, not a file coldstart wrote): `
    : kind.markers.length
      ? ` (no ${kind.markers.join(' or ')} of coldstart's): `
      : ': ';
  const refusal = `${option} ${dir} is not empty (${shown}) and not ${kind.what}${why}`;
  throw new UsageError(`${refusal}its files are not coldstart's to write; choose a new or empty folder`);
}

/**
 * Check, without making anything, that `dir` can be an output folder: the nearest existing folder
 * on its way is a folder on an ordinary filesystem, and, given `kind`, an existing one is the tool's
 * own or empty (checkOwnFolder). The folders still missing, outermost first.
 */
export function checkOutDir(dir: string, option = '--out', kind?: FolderKind): string[] {
  const missing: string[] = [];
  let existing = dir;
  while (!existsSync(existing)) {
    // a symbolic link that leads nowhere (its target missing, or a loop of links) can be made neither a folder nor a file
    if (isLink(existing)) throw new UsageError(`${option}: ${dir} is not a folder (${existing} is a symbolic link that leads nowhere)`);
    missing.unshift(existing);
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  try {
    if (!statSync(existing).isDirectory()) throw new UsageError(`${option}: ${dir} is not a folder (${existing} is a file)`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${option}: cannot use ${dir} (${code(error)})`);
  }
  const pseudo = pseudoFilesystem(existing);
  if (pseudo) throw new UsageError(`${option}: ${dir} is on ${pseudo}, a kernel filesystem that holds no files: choose another folder`);
  if (kind && missing.length === 0) checkOwnFolder(dir, kind, option);
  return missing;
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Make `dir` and check that it is a writable folder on an ordinary filesystem; the folders made,
 * outermost first. `option` names the option in the error.
 */
export function makeWritableDir(dir: string, option = '--out', kind?: FolderKind): string[] {
  const missing = checkOutDir(dir, option, kind);
  const made: string[] = [];
  for (const part of missing) {
    try {
      mkdirSync(part);
      made.push(part);
    } catch (error) {
      // another process made it between the check and here (two runs started together into one --out):
      // a folder that exists now is used as if it had existed; its lock decides which run measures
      if (code(error) === 'EEXIST' && isFolder(part)) continue;
      removeMade(made);
      throw new UsageError(`${option}: cannot create ${dir} (${code(error)} at ${part})`);
    }
  }
  try {
    probeWrite(dir);
  } catch (error) {
    removeMade(made);
    // the disk, not the option, is the problem
    if (['ENOSPC', 'EDQUOT', 'EIO'].includes(code(error))) throw new EnvironmentError(`cannot write in ${dir} (${code(error)})`);
    throw new UsageError(`${option}: cannot write in ${dir} (${code(error)})`);
  }
  return made;
}
