/**
 * `measure --versions`: the user's app at other versions of one of its dependencies. The app's
 * package folder (the nearest package.json above its file) is only read: its dependencies are
 * installed once per version into the .versions/ cache from a copy of its package.json, lockfile and
 * .npmrc with that version pinned (plan/versions.ts ensureVersion, cached and bounded as the
 * generated cells' versions are), and for the run its code is copied into the run's scratch folder
 * (outside the app, removed at the end and by the next run after a kill) with `node_modules` linked
 * to that install. Each version is a cell of its own (`version` of the dimension table).
 */
import { closeSync, constants, cpSync, existsSync, fstatSync, openSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import type { AppSpec } from '../core/app.ts';
import { displayPath } from '../core/display.ts';
import { INSTALLED_VERSION, splitPackageVersion } from '../core/dimensions.ts';
import { UsageError } from '../core/errors.ts';
import type { InstalledVersion, VersionOutcome } from './versions.ts';

/** The fields of package.json whose packages an app depends on (and npm installs). */
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

/** Folders left out of an app's copy: its installed packages (the version's install takes their place) and git's store. */
const NOT_COPIED = new Set(['node_modules', '.git']);

/** The app's package folder: the nearest folder holding a package.json, from the app file's own folder up. */
export function appPackageRoot(file: string): string | undefined {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** An app's package.json is read whole up to this; a larger one is refused. */
const MAX_PACKAGE_JSON_BYTES = 2 ** 20;

/**
 * The app's package.json, bounded and of its kind before it is read (opened without blocking: a FIFO
 * named package.json is refused, not waited on), or undefined when there is none to open.
 */
function packageJsonText(root: string): string | undefined {
  const file = path.join(root, 'package.json');
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`${displayPath(file)} is not a file: an app's package.json must be one`);
    if (stat.size > MAX_PACKAGE_JSON_BYTES) throw new UsageError(`${displayPath(file)} is too large: a package.json is at most 1 MiB`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The packages a package.json names in dependencies, devDependencies or optionalDependencies; empty when
 * it cannot be read or parsed; one line (UsageError) when it is not a file or is too large.
 */
export function declaredDependencies(root: string): Set<string> {
  const text = packageJsonText(root);
  if (text === undefined) return new Set();
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const names = DEPENDENCY_FIELDS.flatMap((field) => {
      const deps = json[field];
      return deps && typeof deps === 'object' && !Array.isArray(deps) ? Object.keys(deps) : [];
    });
    return new Set(names);
  } catch {
    return new Set();
  }
}

/** One app at the versions that concern it: its package folder, and the `--versions` values of its dependencies, in the order given. */
export interface AppVersionsPlan {
  app: AppSpec;
  /** undefined: the app has no package.json (it runs at its installed versions) */
  root: string | undefined;
  values: string[];
}

/**
 * Which versions each app is measured at. A package that no app given declares as a dependency is
 * refused (UsageError, one line): the app would run at its installed version under another label.
 */
export function planAppVersions(apps: readonly AppSpec[], versions: readonly string[]): AppVersionsPlan[] {
  const plans = apps.map((app): AppVersionsPlan => {
    const root = appPackageRoot(app.file);
    const declared = root ? declaredDependencies(root) : new Set<string>();
    return { app, root, values: versions.filter((v) => declared.has(splitPackageVersion(v).pkg)) };
  });
  for (const value of versions) {
    if (plans.some((p) => p.values.includes(value))) continue;
    const { pkg } = splitPackageVersion(value);
    const where = plans.map(
      (p) => `${p.app.name}: ${p.root ? displayPath(path.join(p.root, 'package.json')) : 'no package.json above its file'}`,
    );
    throw new UsageError(
      `--versions ${value}: ${pkg} is not a dependency of ${apps.length === 1 ? 'the app' : 'any app'} ` +
        `(not in the dependencies, devDependencies or optionalDependencies of ${where.join('; ')})`,
    );
  }
  return plans;
}

/** An app as a cell runs it: at a version of one of its dependencies (`version`), or at its own install (`installed`). */
export interface AppAtVersion {
  app: AppSpec;
  version: string;
}

/** Maps a path inside `from` to the same path inside `to` (a path outside `from` stays). */
function mover(from: string, to: string): (file: string) => string {
  return (file) => {
    const relative = path.relative(from, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : path.join(to, relative);
  };
}

/**
 * The app's package folder copied into `into` (without node_modules and .git), its node_modules a
 * link to the version's install, and the app with its paths moved there.
 */
export function appCopyAt(app: AppSpec, root: string, installed: InstalledVersion, into: string): AppSpec {
  const inside = path.relative(root, into);
  if (!inside.startsWith('..') && !path.isAbsolute(inside))
    throw new UsageError(`--versions: the app's package folder ${displayPath(root)} holds the temporary folder; move the app out of it`);
  cpSync(root, into, { recursive: true, filter: (src) => !NOT_COPIED.has(path.basename(src)) });
  symlinkSync(path.join(installed.dir, 'node_modules'), path.join(into, 'node_modules'), 'dir');
  const move = mover(root, into);
  return { ...app, file: move(app.file), cwd: move(app.cwd), ...(app.taskRoot ? { taskRoot: move(app.taskRoot) } : {}) };
}

/** How an app's dependencies are installed at a version: plan/versions.ts ensureVersion with `app`, or a test's stand-in. */
export type AppVersionInstaller = (value: string, appRoot: string, log: (line: string) => void) => VersionOutcome;

/**
 * Every app at each of its versions (an app none concerns: once, at its installed versions), each
 * version installed once per app folder and the app copied under `scratch`; a version that does not
 * install is skipped and said, its cells dropped, never measured at the installed version.
 */
export function appsAtVersions(
  apps: readonly AppSpec[],
  versions: readonly string[],
  options: { scratch: string | undefined; install: AppVersionInstaller; log: (line: string) => void },
): { apps: AppAtVersion[]; skipped: Map<string, string>; installed: Map<string, InstalledVersion> } {
  const skipped = new Map<string, string>();
  const installed = new Map<string, InstalledVersion>();
  if (!versions.length) return { apps: apps.map((app) => ({ app, version: INSTALLED_VERSION })), skipped, installed };
  const { scratch, log } = options;
  if (!scratch) throw new Error('appsAtVersions: the apps are copied into the run scratch folder, and none was given');
  const result: AppAtVersion[] = [];
  for (const plan of planAppVersions(apps, versions)) {
    if (!plan.root || !plan.values.length) {
      result.push({ app: plan.app, version: INSTALLED_VERSION });
      continue;
    }
    for (const value of plan.values) {
      const outcome = options.install(value, plan.root, log);
      if (!outcome.ok) {
        const reason = `does not install: ${outcome.reason}`;
        skipped.set(value, reason);
        log(`${value}: skipped (${reason}; ${plan.app.name} is not measured at it)`);
        continue;
      }
      installed.set(value, outcome.installed);
      const into = path.join(scratch, 'apps', plan.app.name, value.replace('/', '+'));
      result.push({ app: appCopyAt(plan.app, plan.root, outcome.installed, into), version: value });
    }
  }
  return { apps: result, skipped, installed };
}
