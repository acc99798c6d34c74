/**
 * `gate -f FRAMEWORK -r ROUTES --framework-from PATH`: the gate of a framework's own repository. The package at PATH in
 * each side's exported checkout is packed (`npm pack`, no scripts run) and installed as a version of that package, as
 * `--versions` installs a release (plan/versions.ts), into the side's own versions folder: `<scratch>/va` for base,
 * `<scratch>/vb` for head, paths of the same length. A round of a side is `coldstart run` of the generated cells at that
 * version, counted, with COLDSTART_VERSIONS_DIR naming the side's folder: every other package the cells load is the
 * project's, the same on both sides.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadGenerators } from '../../generators/registry.ts';
import { isPackageVersion } from '../core/dimensions.ts';
import { UsageError } from '../core/errors.ts';
import { oneLine } from '../core/escape.ts';
import { npmInstallArgs } from '../plan/npm-install.ts';
import { linkProjectModules, recordInstall, versionDir, versionPackageJson } from '../plan/versions.ts';

/** The most bytes of the package.json read from HEAD (git show) to learn the package's name. */
const PACKAGE_JSON_BYTES = 1 << 20;

export interface FrameworkFrom {
  /** the generated cells: frameworks and route counts, as `run -f … -r …` takes them */
  readonly frameworks: readonly string[];
  readonly routes: readonly number[];
  /** the package's folder, as given (relative to the folder the gate is run from) */
  readonly from: string;
}

/** The package the gate installs from each side: its folder in the repository and its name. */
export interface FrameworkPackage {
  readonly rel: string;
  readonly name: string;
}

/** A child the gate runs and tracks (its deadline, a signal to the gate stops it): pipeline/gate.ts's runChild. */
export type GateChild = (
  command: string,
  args: readonly string[],
  cwd: string,
  what: string,
  deadlineMs: number,
  env?: NodeJS.ProcessEnv,
) => Promise<{ code: number | null; stdout: string; stderr: string }>;

const lastLine = (text: string) => oneLine(text.trim().split('\n').at(-1) ?? '').slice(0, 300);

/**
 * Checked before anything is exported: PATH is inside the repository, HEAD has a package.json there, and its
 * package is one that every framework named loads (fastify's cells load `fastify`; hono's, `hono` and its adapter).
 */
export async function checkFrameworkFrom(spec: FrameworkFrom, repoTop: string, cwd: string): Promise<FrameworkPackage> {
  const rel = path.relative(repoTop, path.resolve(cwd, spec.from));
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new UsageError(`--framework-from ${spec.from} is outside the repository`);
  const file = rel ? `${rel.split(path.sep).join('/')}/package.json` : 'package.json';
  const shown = spawnSync('git', ['-C', repoTop, 'show', `HEAD:${file}`], {
    encoding: 'utf8',
    maxBuffer: PACKAGE_JSON_BYTES,
    timeout: 60_000,
  });
  if (shown.error && 'code' in shown.error && shown.error.code === 'ENOBUFS')
    throw new UsageError(`--framework-from ${spec.from}: its package.json at HEAD is over ${PACKAGE_JSON_BYTES} bytes`);
  if (shown.status !== 0 || shown.error) throw new UsageError(`--framework-from ${spec.from}: HEAD has no package.json there`);
  let name: unknown;
  try {
    name = (JSON.parse(shown.stdout) as { name?: unknown }).name;
  } catch {
    throw new UsageError(`--framework-from ${spec.from}: its package.json at HEAD is not JSON`);
  }
  if (typeof name !== 'string' || !name) throw new UsageError(`--framework-from ${spec.from}: its package.json at HEAD names no package`);
  const generators = await loadGenerators('server');
  for (const framework of spec.frameworks) {
    const generator = generators.find((g) => g.name === framework);
    if (!generator)
      throw new UsageError(`-f ${framework}: not a framework coldstart generates (${generators.map((g) => g.name).join(', ')})`);
    if (!generator.packages.includes(name))
      throw new UsageError(
        `--framework-from: ${framework}'s cells do not load ${oneLine(name).slice(0, 214)} ` +
          `(they load ${generator.packages.join(', ') || 'no package'})`,
      );
  }
  return { rel, name };
}

/**
 * The side's package packed and installed into `root` (its versions folder); resolves with the `name@version` the
 * cells are run at. npm installs the package's own dependencies from the registry (or npm's cache).
 */
export async function installFrameworkSide(
  side: string,
  pkg: FrameworkPackage,
  root: string,
  run: GateChild,
  deadlines: { export: number; install: number },
  log: (line: string) => void,
): Promise<string> {
  const folder = path.join(side, pkg.rel);
  if (!existsSync(path.join(folder, 'package.json')))
    throw new UsageError(`--framework-from: the ${sideName(side)} commit has no package.json at ${pkg.rel || '.'}`);
  const packs = `${root}-pack`;
  mkdirSync(packs, { recursive: true });
  const packed = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--loglevel=error', '--pack-destination', packs],
    folder,
    `npm pack of ${sideName(side)}`,
    deadlines.export,
  );
  if (packed.code !== 0) throw new UsageError(`npm pack failed in the ${sideName(side)} commit: ${lastLine(packed.stderr)}`);
  const tarball = readdirSync(packs).find((file) => file.endsWith('.tgz'));
  const version = packedVersion(packed.stdout);
  if (!tarball || !version) throw new UsageError(`npm pack of the ${sideName(side)} commit wrote no tarball of ${pkg.name}`);
  const value = `${pkg.name}@${version}`;
  if (!isPackageVersion(value)) throw new UsageError(`--framework-from: ${oneLine(value)} is not a package at an exact version`);
  linkProjectModules(root);
  const dir = versionDir(value, root);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), versionPackageJson(value));
  log(`gate: installing ${value} of ${sideName(side)} (npm install of its npm pack)`);
  const spec = path.join(packs, tarball);
  const installed = await run(
    'npm',
    [...npmInstallArgs(dir, [spec], { in: 'cwd' }), '--prefer-offline'],
    dir,
    'npm install',
    deadlines.install,
  );
  if (installed.code !== 0)
    throw new UsageError(`npm install of the ${sideName(side)} commit's ${pkg.name} failed: ${lastLine(installed.stderr)}`);
  const outcome = recordInstall(value, dir, root, spec, true);
  if (!outcome.ok) throw new UsageError(`--framework-from: ${outcome.reason}`);
  rmSync(packs, { recursive: true, force: true });
  return value;
}

/** The version `npm pack --json` reports (an array of one entry per package packed). */
function packedVersion(stdout: string): string | undefined {
  try {
    const entries = JSON.parse(stdout) as { version?: unknown }[];
    const version = entries[0]?.version;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

/** Which side a side's folder is: gate.ts exports base into `<scratch>/a` and head into `<scratch>/b`. */
export const sideName = (side: string) => (path.basename(side) === 'a' ? 'base' : 'head');

/** The arguments of one counted round of a side's generated cells (`coldstart run`), before --out. */
export function frameworkRunArgs(spec: FrameworkFrom, value: string): string[] {
  return [
    'run',
    '--frameworks',
    spec.frameworks.join(','),
    '--routes',
    spec.routes.join(','),
    '--versions',
    value,
    '--measure',
    'instructions',
    '--samples',
    '1',
  ];
}
