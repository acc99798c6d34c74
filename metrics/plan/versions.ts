/**
 * `--versions`: npm packages at other versions than the project's, each installed once into its own
 * folder, .versions/<package>@<version>/ (git-ignored, beside .runtimes/; COLDSTART_VERSIONS_DIR moves
 * it), never into generated/ or the user's project. A generated cell at a version is written into
 * that folder's generated/ (the same bytes as in generated/), so Node finds the package at that
 * version first when the file requires it, and every other package in the project's node_modules
 * (the root's node_modules links to it when the root is moved out of the project). The folders are
 * cached and bounded: at most MAX_VERSION_FOLDERS, the least recently used removed first.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../generators/registry.ts';
import { INSTALLED_VERSION, splitPackageVersion } from '../core/dimensions.ts';
import { npmInstall } from './npm-install.ts';

/** .versions/ in the project (git-ignored); COLDSTART_VERSIONS_DIR moves it (a CI cache, a test). */
export const VERSIONS_DIR = process.env.COLDSTART_VERSIONS_DIR
  ? path.resolve(process.env.COLDSTART_VERSIONS_DIR)
  : path.join(PROJECT_ROOT, '.versions');

/**
 * The bound on disk: at most this many installed versions (an express install is about 5 MB, a
 * fastify one 14–16 MB: 640 MB at most for fastify); installing one more removes the least recently used first.
 */
export const MAX_VERSION_FOLDERS = 40;

/** The file a finished install leaves (a folder without it is a killed install: installed again); its mtime is the last use. */
const DONE = '.coldstart-installed.json';

/** A package installed at a version: what meta.json records of it. */
export interface InstalledVersion {
  /** `fastify@4.28.1` */
  value: string;
  pkg: string;
  version: string;
  /** the folder whose node_modules holds it */
  dir: string;
  /** where npm took it from (the registry's tarball, or a local file) */
  resolved: string;
  /** the tarball's integrity (sha512), as the lockfile records it */
  integrity: string;
}

export type VersionOutcome = { ok: true; installed: InstalledVersion } | { ok: false; reason: string };

/** The folder of one version (a scoped package's `/` becomes `+`). */
export function versionDir(value: string, root = VERSIONS_DIR): string {
  return path.join(root, value.replace('/', '+'));
}

/** Where a version's generated files live (a cell's path under it is its path under generated/). */
export function versionGeneratedDir(value: string, root = VERSIONS_DIR): string {
  return path.join(versionDir(value, root), 'generated');
}

/** The package a cell is at another version of, or undefined for a cell at the installed versions. */
export function versionOf(cell: { readonly version: string }): string | undefined {
  return cell.version === INSTALLED_VERSION ? undefined : cell.version;
}

/** The `--versions` values that concern a file requiring `packages`, in the order given. */
export function versionsFor(packages: readonly string[], versions: readonly string[]): string[] {
  return versions.filter((v) => packages.includes(splitPackageVersion(v).pkg));
}

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
}

function readInstalled(dir: string, value: string): InstalledVersion | undefined {
  try {
    const done = JSON.parse(readFileSync(path.join(dir, DONE), 'utf8')) as Partial<InstalledVersion>;
    if (done.value !== value || typeof done.resolved !== 'string' || typeof done.integrity !== 'string') return undefined;
    const { pkg, version } = splitPackageVersion(value);
    return { value, pkg, version, dir, resolved: done.resolved, integrity: done.integrity };
  } catch {
    return undefined;
  }
}

/** The tarball a folder of `npm pack` outputs holds for a version (`name-1.2.3.tgz`, a scope's `scope-name-1.2.3.tgz`). */
export function tarballIn(folder: string, value: string): string {
  const { pkg, version } = splitPackageVersion(value);
  return path.join(folder, `${pkg.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
}

/** The files of an app's package folder that decide what npm installs there (a missing one counts as empty). */
export const APP_INSTALL_FILES = ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', '.npmrc'] as const;

/** What an app's install depends on: its package.json, lockfile and .npmrc, hashed (12 hex digits); its code is not part of it. */
export function appInstallKey(appRoot: string): string {
  const hash = createHash('sha256');
  for (const name of APP_INSTALL_FILES) {
    const file = path.join(appRoot, name);
    hash.update(`${name}\0${existsSync(file) ? readFileSync(file, 'utf8') : ''}\0`);
  }
  return hash.digest('hex').slice(0, 12);
}

/** The folder of an app's dependencies with one package at a version: the app's install files, the version pinned in them. */
export function appVersionDir(appRoot: string, value: string, root = VERSIONS_DIR): string {
  return path.join(root, `app-${appInstallKey(appRoot)}+${value.replace('/', '+')}`);
}

export interface EnsureVersionOptions {
  /** the cache (default VERSIONS_DIR) */
  root?: string;
  /** a folder of `npm pack` tarballs to install from instead of the registry */
  from?: string;
  /**
   * the package folder of the user's app (`measure --versions`): the version is installed with the
   * app's own dependencies, from a copy of its package.json, lockfile and .npmrc (the app's folder is
   * only read), into a folder of the cache named by what those files hold
   */
  app?: string;
  /**
   * holds the cache (`root`) for this process while a version is installed into it, waiting while another run holds it
   * (measure/run-lock.ts's lockSharedFolder): without it, two runs installing into one emptied cache remove each
   * other's half-made folders (evict)
   */
  lock?: (root: string) => { release(): void };
}

/**
 * A package at a version, installed when not already (npm install into its own folder, no scripts
 * run); with `app`, the app's dependencies with that version pinned. A version that does not install
 * is an outcome with npm's reason, never an exception.
 */
export function ensureVersion(value: string, log: (line: string) => void, options: EnsureVersionOptions = {}): VersionOutcome {
  const root = options.root ?? VERSIONS_DIR;
  const dir = options.app ? appVersionDir(options.app, value, root) : versionDir(value, root);
  const known = readInstalled(dir, value);
  if (known) {
    touch(dir);
    return { ok: true, installed: known };
  }
  if (!options.lock) return install(value, dir, root, log, options);
  mkdirSync(root, { recursive: true });
  const held = options.lock(root);
  try {
    // another run may have installed it while this one waited
    const now = readInstalled(dir, value);
    if (now) {
      touch(dir);
      return { ok: true, installed: now };
    }
    return install(value, dir, root, log, options);
  } finally {
    held.release();
  }
}

/** Install `value` into `dir` of the cache `root` (ensureVersion, once it is not there). */
function install(value: string, dir: string, root: string, log: (line: string) => void, options: EnsureVersionOptions): VersionOutcome {
  const spec = options.from ? tarballIn(options.from, value) : value;
  if (options.from) {
    const refused = tarballRefusal(spec);
    if (refused) return { ok: false, reason: refused };
  }
  linkProjectModules(root);
  evict(root, MAX_VERSION_FOLDERS - 1);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (options.app) {
    for (const name of APP_INSTALL_FILES) {
      const file = path.join(options.app, name);
      if (existsSync(file)) copyFileSync(file, path.join(dir, name));
    }
  } else writeFileSync(path.join(dir, 'package.json'), versionPackageJson(value));
  const what = options.app ? `${value} with the dependencies of ${path.basename(options.app)}` : value;
  log(`installing ${what} into ${path.relative(process.cwd(), dir) || dir}…`);
  // in the folder itself: the app's .npmrc (its registry) applies
  const npm = npmInstall(dir, [spec], { in: 'cwd' });
  if (!npm.ok) {
    rmSync(dir, { recursive: true, force: true });
    return { ok: false, reason: npm.reason };
  }
  return recordInstall(value, dir, root, spec, !options.app);
}

/**
 * After npm installed `value` into `dir` of the cache `root` from `spec`: the version npm's lockfile records checked,
 * the folder's generated/ made (for a package's own folder, not an app's), and the mark of a finished install written.
 */
export function recordInstall(value: string, dir: string, root: string, spec: string, generated: boolean): VersionOutcome {
  const { pkg, version } = splitPackageVersion(value);
  let entry: LockEntry | undefined;
  try {
    const lock = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as { packages?: Record<string, LockEntry> };
    entry = lock.packages?.[`node_modules/${pkg}`];
  } catch {
    entry = undefined;
  }
  if (!entry || entry.version !== version) {
    rmSync(dir, { recursive: true, force: true });
    return { ok: false, reason: entry ? `npm installed ${String(entry.version)} for ${value}` : `npm installed no ${pkg}` };
  }
  const installed = { value, pkg, version, dir, resolved: entry.resolved ?? spec, integrity: entry.integrity ?? 'none' };
  if (generated) {
    mkdirSync(versionGeneratedDir(value, root), { recursive: true });
    // the generated files are CommonJS, as generated/package.json says of generated/
    writeFileSync(path.join(versionGeneratedDir(value, root), 'package.json'), '{ "type": "commonjs" }\n');
  }
  writeFileSync(path.join(dir, DONE), `${JSON.stringify({ value, resolved: installed.resolved, integrity: installed.integrity })}\n`);
  return { ok: true, installed };
}

/** The package.json of a version's own folder (what npm installs the version into). */
export function versionPackageJson(value: string): string {
  return `${JSON.stringify({ private: true, description: `coldstart: ${value}` })}\n`;
}

/** Why a --from tarball cannot be installed (missing, or not a regular file: npm would wait on a FIFO forever), or undefined. */
function tarballRefusal(file: string): string | undefined {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return `no tarball ${path.basename(file)} in the folder given`;
  }
  if (stat.isFile()) return undefined;
  const kind = stat.isDirectory() ? 'a folder' : stat.isFIFO() || stat.isSocket() ? 'a pipe or socket' : 'a device';
  return `${path.basename(file)} in the folder given is ${kind}, not a tarball`;
}

function touch(dir: string): void {
  const now = new Date();
  try {
    utimesSync(path.join(dir, DONE), now, now);
  } catch {
    // a read-only cache still serves
  }
}

/** Outside the project, the root's node_modules is the project's, so a versioned file finds the packages not at a version there. */
export function linkProjectModules(root: string): void {
  mkdirSync(root, { recursive: true });
  const fromProject = path.relative(PROJECT_ROOT, root);
  if (!fromProject.startsWith('..') && !path.isAbsolute(fromProject)) return;
  const link = path.join(root, 'node_modules');
  if (!existsSync(link)) symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), link, 'dir');
}

/** Keep at most `keep` finished installs under `root`: the least recently used go first (a killed install's folder too). */
export function evict(root: string, keep: number): string[] {
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.includes('@', 1) && n !== 'node_modules');
  } catch {
    return [];
  }
  const used = names.map((name) => {
    try {
      return { name, at: statSync(path.join(root, name, DONE)).mtimeMs };
    } catch {
      return { name, at: -1 };
    }
  });
  used.sort((a, b) => b.at - a.at);
  const removed = used.filter((u, i) => i >= keep || u.at < 0).map((u) => u.name);
  for (const name of removed) rmSync(path.join(root, name), { recursive: true, force: true });
  return removed;
}
