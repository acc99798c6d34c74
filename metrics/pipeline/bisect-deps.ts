/**
 * What a real bisect does at each step (realBisectDeps): the registry's releases of a package, a git
 * repository's commits, the app copied and installed at a version or a commit, the step's run and its
 * figure, and what each step keeps on disk. pipeline/bisect.ts is the search and its report.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { median } from 'simple-statistics';
import { versionRange, type BisectResult } from '../analyse/bisect.ts';
import { instructionFigures } from '../analyse/instructions.ts';
import { loadGenerators } from '../../generators/registry.ts';
import { writeGenerated } from '../../generators/write.ts';
import type { AppSpec } from '../core/app.ts';
import { cellFile } from '../core/cell.ts';
import { UsageError } from '../core/errors.ts';
import { loadByPackage } from '../core/packages.ts';
import { runSpec, type RunSpec } from '../core/run-spec.ts';
import type { Measure } from '../core/dimensions.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { writeOwnedFile } from '../store/files.ts';
import { versionsCacheLock } from '../measure/run-lock.ts';
import { readSamples } from '../store/samples-file.ts';
import { readMeta } from '../store/meta-file.ts';
import { readAttribution } from '../store/attribution-file.ts';
import { npmErrorLine, npmInstall, REGISTRY_ANSWER_BYTES, REGISTRY_DEADLINE_MS } from '../plan/npm-install.ts';
import { ensureVersion, versionGeneratedDir } from '../plan/versions.ts';
import { loadedModules } from '../measure/loaded-modules.ts';
import { scratchPrefix } from '../measure/leftovers.ts';
import { appCopyAt, appPackageRoot, declaredDependencies } from '../plan/app-versions.ts';
import { displayPath } from '../core/display.ts';
import type { Deps } from './ports.ts';
import { exitCodeOf, runPipeline } from './run.ts';
import { targetKind, measureKind } from '../core/kinds.ts';
import { named, type BisectDeps, type BisectOptions, type StepLoad } from './bisect.ts';

const RELEASE = /^(?=.{5,200}$)\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/;

/** The versions cache held while a version is installed into it: a second bisect (or measure) waits, saying so. */
const cacheLock = (log: (line: string) => void) => versionsCacheLock('bisect', log);

/** The published versions: the registry's list, or the tarballs of a folder (`name-x.y.z.tgz`). */
export function publishedVersions(pkg: string, from: string | undefined): string[] {
  if (from) {
    const prefix = `${pkg.replace(/^@/, '').replace('/', '-')}-`;
    return readdirSync(from)
      .filter((f) => f.startsWith(prefix) && f.endsWith('.tgz'))
      .map((f) => f.slice(prefix.length, -'.tgz'.length))
      .filter((v) => RELEASE.test(v));
  }
  // bounded in bytes and in time: npm is stopped past either
  const npm = spawnSync('npm', ['view', pkg, 'versions', '--json'], {
    encoding: 'utf8',
    timeout: REGISTRY_DEADLINE_MS,
    maxBuffer: REGISTRY_ANSWER_BYTES,
  });
  if (npm.error || npm.status !== 0) {
    const code = (npm.error as { code?: string } | undefined)?.code;
    const why =
      code === 'ENOBUFS'
        ? `npm's answer passed ${REGISTRY_ANSWER_BYTES} bytes: stopped reading it`
        : code === 'ETIMEDOUT'
          ? `npm did not answer within ${REGISTRY_DEADLINE_MS / 1000} s: stopped it`
          : (npm.error?.message ?? (npmErrorLine(npm.stderr) || `npm exited ${npm.status}`));
    throw new UsageError(`--package ${pkg}: the registry's list of versions: ${why}`);
  }
  return versionList(npm.stdout, pkg);
}

/** The versions in `npm view PKG versions --json`'s answer (a list, or a single version's string); else one line, exit 2. */
export function versionList(answer: string, pkg: string): string[] {
  let list: unknown;
  try {
    list = JSON.parse(answer);
  } catch {
    throw new UsageError(`--package ${pkg}: the registry's list of versions is not JSON`);
  }
  const versions = Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : typeof list === 'string' ? [list] : [];
  // a release's name only (bisect.json's schema): a tarball or an answer naming one with escape bytes is left out
  return versions.filter((v) => RELEASE.test(v));
}

/** The step's run: one generated or app cell, measured as `run`/`measure` would, into `stepDir`. */
function stepSpec(o: BisectOptions, candidate: string, stepDir: string, app: AppSpec | undefined): RunSpec {
  const measures: Measure[] = [o.measure];
  const sampling = measureKind(o.measure).counted ? { countSamples: 1 } : { samples: 5 };
  // one more, unrecorded, profiled run: the packages' shares the report compares
  const output = { out: stepDir, attribute: true };
  if (o.cell.kind === 'generated') {
    return runSpec({
      command: `${o.command} (step ${named(o, candidate)})`,
      source: {
        kind: 'generated',
        frameworks: [o.cell.framework],
        routes: [o.cell.routes],
        variants: ['validated'],
        shapes: ['flat'],
        schemas: ['small'],
      },
      cells: { targets: [o.cell.target], measures, versions: [`${o.pkg}@${candidate}`], lambdaReference: false },
      sampling,
      output,
    });
  }
  return runSpec({
    command: `${o.command} (step ${named(o, candidate)})`,
    source: { kind: 'apps', apps: [app!], cwd: app!.cwd },
    cells: { targets: ['server'], measures },
    sampling,
    output,
  });
}

/**
 * Refuse (one line, exit 2) a bisect of an app over a package it does not declare: every step would
 * install the release beside the app and measure the app unchanged, a "no regression" that means
 * nothing. The same rule as `measure --versions` (plan/app-versions.ts).
 */
export function checkBisectedDependency(app: AppSpec, pkg: string): void {
  const root = appPackageRoot(app.file);
  if (!root)
    throw new UsageError(`--entry: no package.json above ${displayPath(app.file)}: bisect installs the app's dependencies at each release`);
  if (!declaredDependencies(root).has(pkg))
    throw new UsageError(
      `--package ${pkg} is not a dependency of the app (not in the dependencies, devDependencies or optionalDependencies of ` +
        `${displayPath(path.join(root, 'package.json'))})`,
    );
}

/**
 * The app at a release of the package: its dependencies installed with that release pinned into the
 * .versions/ cache (as `measure --versions` does: plan/versions.ts ensureVersion with the app's package
 * folder; a resumed or repeated bisect installs nothing again), its code copied into `into` with
 * node_modules linked to that install. The app's own folder is only read.
 */
function appAtVersion(o: BisectOptions, app: AppSpec, candidate: string, into: string, log: (line: string) => void): AppSpec | string {
  const root = appPackageRoot(app.file);
  if (!root) return 'the app has no package.json above its file';
  const installed = ensureVersion(`${o.pkg}@${candidate}`, log, { app: root, ...(o.from ? { from: o.from } : {}), lock: cacheLock(log) });
  if (!installed.ok) return `does not install: ${installed.reason}`;
  return appCopyAt(app, root, installed.installed, into);
}

/** The value and phases of a step's run folder: the counted total, or the median CPU time to the first answer. */
function resultOf(o: BisectOptions, stepDir: string): BisectResult {
  const file = path.join(stepDir, SAMPLES_FILE);
  const samples = existsSync(file) ? readSamples(file).filter((s) => s.phase === 'sample') : [];
  const ok = samples.filter((s) => s.ok);
  if (!ok.length) {
    const why = samples.find((s) => s.error)?.error ?? samples.find((s) => s.unsupported)?.unsupported ?? 'no sample';
    return { kind: 'skipped', reason: `did not answer right: ${why}` };
  }
  if (measureKind(o.measure).counted) {
    const figures = instructionFigures(ok[0]!.instructions ?? {});
    if (figures.total === undefined) return { kind: 'skipped', reason: 'no instruction count' };
    const phases = Object.fromEntries(Object.entries(figures).filter(([k]) => k !== 'total')) as Record<string, number>;
    return { kind: 'measured', value: figures.total, phases };
  }
  const cpu = ok.map((s) => s.cpu?.firstResponse).filter((v): v is number => v !== undefined);
  if (!cpu.length) return { kind: 'skipped', reason: 'no CPU time' };
  return { kind: 'measured', value: median(cpu), phases: {} };
}

/** The commits from `good` to `bad` (first parents), both included, oldest first; undefined when good is not an ancestor of bad. */
export function gitCommits(repo: string, good: string, bad: string): string[] | undefined {
  const git = (...args: string[]) => spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', timeout: 60_000 });
  const first = git('rev-parse', '--verify', '--short=12', `${good}^{commit}`);
  if (first.status !== 0 || git('rev-parse', '--verify', `${bad}^{commit}`).status !== 0) return undefined;
  if (git('merge-base', '--is-ancestor', good, bad).status !== 0) return undefined;
  const list = git('rev-list', '--first-parent', '--reverse', '--abbrev-commit', '--abbrev=12', `${good}..${bad}`);
  if (list.status !== 0) return undefined;
  return [first.stdout.trim(), ...list.stdout.trim().split('\n').filter(Boolean)];
}

/** The candidates of real bisects: the commits of --git, or the releases of the registry (or of the tarball folder). */
function realCandidates(o: BisectOptions): string[] | undefined {
  if (o.git) return gitCommits(o.git, o.good, o.bad);
  return versionRange(publishedVersions(o.pkg, o.from), o.good, o.bad, o);
}

/** The app's repository at a commit, exported into `into` (`git archive`: the repository itself is not touched) and installed. */
function appAtCommit(repo: string, app: AppSpec, commit: string, into: string): AppSpec | string {
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  const archive = spawnSync('sh', ['-c', 'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"', 'sh', repo, commit, into], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (archive.status !== 0) return `cannot check out: ${archive.stderr.trim().split('\n')[0] ?? ''}`;
  if (existsSync(path.join(into, 'package.json'))) {
    const ci = existsSync(path.join(into, 'package-lock.json'));
    const npm = npmInstall(into, [], { in: 'cwd', ci, save: 'none' });
    if (!npm.ok) return `does not install: ${npm.reason}`;
  }
  const map = (file: string) => path.join(into, path.relative(repo, file));
  return { ...app, cwd: map(app.cwd), file: map(app.file) };
}

/** The real deps: the registry (or folder, or git), and a run per step through the run pipeline with `runDeps`. */
export function realBisectDeps(o: BisectOptions, runDeps: () => Deps, log: (line: string) => void): BisectDeps {
  return {
    candidates: realCandidates,
    log,
    interrupted: (stepDir) => readMeta(stepDir)?.interrupted === true,
    loaded(candidate, stepDir) {
      return stepLoad(o, candidate, stepDir, log);
    },
    shares(stepDir) {
      const attribution = readAttribution(stepDir)?.cells.find((c) => c.attribution)?.attribution;
      if (!attribution || !(attribution.busyMs > 0)) return undefined;
      return Object.fromEntries(attribution.packages.map((p) => [p.name, p.selfMs / attribution.busyMs]));
    },
    async measure(candidate, stepDir) {
      rmSync(stepDir, { recursive: true, force: true });
      let app: AppSpec | undefined;
      let scratch: string | undefined;
      if (o.cell.kind === 'generated') {
        const installed = ensureVersion(`${o.pkg}@${candidate}`, log, { ...(o.from ? { from: o.from } : {}), lock: cacheLock(log) });
        if (!installed.ok) return { kind: 'skipped', reason: `does not install: ${installed.reason}` };
      } else {
        // outside the app and the bisect folder: a scratch folder of this runner's, which the next run removes after a kill
        scratch = mkdtempSync(scratchPrefix());
        const into = path.join(scratch, 'app');
        const copy = o.git ? appAtCommit(o.git, o.cell.app, candidate, into) : appAtVersion(o, o.cell.app, candidate, into, log);
        if (typeof copy === 'string') {
          rmSync(scratch, { recursive: true, force: true });
          return { kind: 'skipped', reason: copy };
        }
        app = copy;
      }
      try {
        const run = await runPipeline(stepSpec(o, candidate, stepDir, app), runDeps());
        if (run.interrupted) return { kind: 'interrupted', exitCode: exitCodeOf(run, true) };
        // an app's copy is removed after its step: its modules are listed now
        if (app && resultOf(o, stepDir).kind === 'measured') listStepModules(app.file, app.cwd, stepDir, 'app', app.args);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        return { kind: 'skipped', reason: error.message };
      } finally {
        if (scratch) rmSync(scratch, { recursive: true, force: true });
      }
      slimStep(stepDir);
      return resultOf(o, stepDir);
    },
  };
}

/** What a step folder drops: the report and its charts, which `npm run report` writes again from the samples. */
const REBUILT = (file: string) => file === 'report.html' || (file.startsWith('chart-') && file.endsWith('.svg'));

/** A step folder keeps its samples, meta.json and summaries; report.html (about 0.5 MB) and the charts go. */
export function slimStep(stepDir: string): void {
  if (!existsSync(stepDir)) return;
  for (const file of readdirSync(stepDir)) if (REBUILT(file)) rmSync(path.join(stepDir, file), { force: true });
}

/** A step's loaded packages, kept in the step's folder once listed (they do not change: the same file and install). */
export const LOADED_FILE = 'loaded-packages.json';

/** Each package's loaded code at a measured step of a generated cell: read from its folder, else listed by one more run of its file. */
async function stepLoad(o: BisectOptions, candidate: string, stepDir: string, log: (line: string) => void): Promise<StepLoad | string> {
  const file = path.join(stepDir, LOADED_FILE);
  if (existsSync(file)) {
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<StepLoad>;
      if (Array.isArray(saved.packages) && Array.isArray(saved.node)) return { packages: saved.packages, node: saved.node };
    } catch {
      // listed again below
    }
  }
  if (o.cell.kind !== 'generated') return "its modules were not listed when the step ran (an app's copy is removed after its step)";
  if (targetKind(o.cell.target).ready !== 'listen') return 'listed for server cells only (a Lambda handler does not listen)';
  const samples = existsSync(path.join(stepDir, SAMPLES_FILE)) ? readSamples(path.join(stepDir, SAMPLES_FILE)) : [];
  const cell = samples.find((s) => s.ok)?.cell;
  if (!cell) return 'the step has no answered sample';
  const value = `${o.pkg}@${candidate}`;
  const installed = ensureVersion(value, log, { ...(o.from ? { from: o.from } : {}), lock: cacheLock(log) });
  if (!installed.ok) return `does not install: ${installed.reason}`;
  const cellPath = path.join(versionGeneratedDir(value), cellFile(cell));
  if (!existsSync(cellPath)) {
    // written again (the same bytes as the step ran): the version's folder holds the files of its last runs only
    const generator = (await loadGenerators('server')).find((g) => g.name === cell.framework);
    if (!generator) return `no generator for ${cell.framework}`;
    await writeGenerated(generator, cell.routes, cell.variant, versionGeneratedDir(value), { shape: cell.shape, schema: cell.schema });
  }
  log(`listing the modules ${value} loads…`);
  return listStepModules(cellPath, path.dirname(cellPath), stepDir, cellFile(cell));
}

/** The modules a step's server loads, per package, kept in the step's folder; or why they could not be listed. */
function listStepModules(file: string, cwd: string, stepDir: string, name: string, args: readonly string[] = []): StepLoad | string {
  const listed = loadedModules(file, cwd, args);
  if (!listed.ok) return `its file did not list its modules: ${listed.reason}`;
  const packages = loadByPackage(listed.modules);
  const node = listed.modules.filter((m) => m.file.startsWith('node:')).map((m) => m.file.slice('node:'.length));
  writeOwnedFile(stepDir, LOADED_FILE, `${JSON.stringify({ version: 1, file: name, packages, node }, null, 2)}\n`);
  return { packages, node };
}
