/**
 * The cells of `measure`: the user's own server entries and Lambda handlers instead of generated
 * files. An app is a cell like any other (framework = its name, variant plain, routes 1, source
 * app), multiplied by the same levers and memory sizes, so every output and `compare` work on it;
 * only the SOURCE of its file and how it is asked differ (core/app.ts). A server entry runs with
 * coldstart's preload (`--require`). A handler starts as the generated Lambda cells do: by default
 * under AWS's Runtime Interface Client launched as the managed runtime's bootstrap does (`ric`), which
 * loads it from its task root by its Handler setting, with the same runtime lines, file cache and
 * hello-world reference; `probe` runs coldstart's Lambda bootstrap, which requires it.
 */
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EAGER_WRAPPER_FILE, eagerWrapper } from '../../generators/app-eager.ts';
import { writeAppFiles } from '../../generators/app-probe.ts';
import { defaultContract } from '../../generators/contract.ts';
import { referenceGenerator } from '../../generators/lambda-reference.ts';
import { lambdaTaskRoot, type AnswerReference, type AppSpec } from '../core/app.ts';
import type { AppsSource, CellSpec } from '../core/run-spec.ts';
import { APP_SOURCE, cellKey, makeCell, type Cell, type CellFields } from '../core/cell.ts';
import { cellsOf, stageDimensions, type PartialCell } from '../core/cell-space.ts';
import { BUNDLE_DIR, bundleFile, bundlePath, isModuleFile } from './bundle.ts';
import {
  planGeneratedCell,
  prepareReferenceCells,
  ricFor,
  ricStart,
  ricUnsupported,
  uncountable,
  type PlannedCell,
  type PreparedCells,
} from './cells.ts';
import type { CellLaunch } from './launch.ts';
import { expandCells, runtimesOfTargets, type BlockedCell } from './levers.ts';
import { asksInitSplit, isEsModuleFile } from './lambda-bootstrap.ts';
import type { ResolvedRic } from './ric.ts';
import { resolveRuntimes, type ResolvedRuntime } from './runtimes.ts';
import { appsAtVersions, type AppVersionInstaller } from './app-versions.ts';
import { ensureVersion, versionOf } from './versions.ts';
import { buildSnapshot, SNAPSHOT_FAILURE, snapshotUnsupported, type SnapshotBuilder } from './snapshot.ts';
import { targetKind } from '../core/kinds.ts';

export interface AppCellEffects {
  /** what runs `node --build-snapshot` (tests: a stand-in) */
  snapshotBuilder?: SnapshotBuilder;
  /** the run's scratch folder: `--versions` copies the apps there */
  scratch?: string;
  /** how an app's dependencies are installed at a version (`--versions`; default ensureVersion into .versions/) */
  installVersion?: AppVersionInstaller;
}

/** The real install of an app's dependencies at a version: cached in .versions/. */
const installAppVersion: AppVersionInstaller = (value, appRoot, log) => ensureVersion(value, log, { app: appRoot });

/** An app cell's app: by its name and version (the same app at two versions runs from two copies). */
const appKey = (name: string, version: string) => `${name}\u0000${version}`;

/** What the terminal adds to a snapshot that cannot be built: the lever does not apply, and the run goes on. */
const SNAPSHOT_NOT_APPLICABLE = 'the snapshot variant is unsupported for this app, not a failure: its other variants are measured';

/**
 * A snapshot that cannot be built (every app that loads node:http on today's Node lines; an app that
 * leaves a timer open at its top level): a lever that does not apply to this app, listed as
 * unsupported with node's reason, as a compile cache on a runtime without one is. The app itself is
 * judged by its other variants: a plain build that fails still fails the run (exit 3).
 */
function snapshotNotApplicable(reason: string): BlockedCell {
  return { kind: 'unsupported', reason };
}

/**
 * What one app cell runs: its file or bundle (and, for a snapshot, its blob), and the app as the
 * target asks it (a bundled handler is its bundle's `name.export`).
 */
async function appFile(
  app: AppSpec,
  cell: Cell,
  runtime: ResolvedRuntime,
  context: { env: NodeJS.ProcessEnv; log: (line: string) => void; builder?: SnapshotBuilder; scratch?: string },
): Promise<{ app: AppSpec; blob?: string } | { blocked: BlockedCell }> {
  const { log } = context;
  if (cell.compileCache !== 'off' && runtime.compileCacheUnsupported)
    return { blocked: { kind: 'unsupported', reason: runtime.compileCacheUnsupported } };
  if (cell.init === 'eager') return eagerAppFile(app, cell, runtime, context);
  if (cell.build === 'plain') return { app };
  if (cell.build === 'snapshot') {
    const why = snapshotUnsupported(app, cell, runtime);
    if (why) return { blocked: { kind: 'unsupported', reason: why } };
  }
  const bundle = cell.build === 'snapshot' ? 'bundle' : cell.build;
  // an app at a version of a dependency (--versions) has a bundle of its own: the two versions' code differs
  const version = versionOf(cell);
  // an .mjs handler is bundled as an ES module (plan/bundle.ts), which Node loads as one only from an .mjs
  const extension = isModuleFile(app.file) ? '.mjs' : '.js';
  const relative = version
    ? path.posix.join('app', 'versions', version.replace('/', '+'), `${app.name}${extension}`)
    : path.posix.join('app', `${app.name}${extension}`);
  // a snapshot's bundle has a folder per runtime: its blob starts only on the node build that wrote it
  const output =
    cell.build === 'snapshot'
      ? path.join(BUNDLE_DIR, `${runtime.bundleTarget}-snapshot`, runtime.name, relative)
      : bundlePath(relative, runtime.bundleTarget, bundle);
  // reused only when every file esbuild read for it (the app's own modules and packages included) is unchanged
  // Lambda's client tries .js before .mjs: a bundle of the other kind left beside it by an older run would be loaded instead
  rmSync(output.slice(0, -extension.length) + (extension === '.mjs' ? '.js' : '.mjs'), { force: true });
  const outcome = await bundleFile(app.file, output, runtime.bundleTarget, bundle, true);
  if (!outcome.ok) {
    log(`${app.name}: ${outcome.error}`);
    // a snapshot that cannot be built is a lever that does not apply to this app (its plain build says whether the app works)
    return {
      blocked:
        cell.build === 'snapshot'
          ? snapshotNotApplicable(`${SNAPSHOT_FAILURE}: ${outcome.error}`)
          : { kind: 'failed', reason: outcome.error },
    };
  }
  if (cell.build === 'snapshot') {
    const env = { ...context.env, ...app.env };
    const built = buildSnapshot(runtime.command, outcome.file, {
      env,
      cwd: app.cwd,
      ...(context.builder ? { builder: context.builder } : {}),
    });
    const said = built.ok ? `startup snapshot built in ${Math.round(built.buildMs)} ms` : `${built.error} (${SNAPSHOT_NOT_APPLICABLE})`;
    log(`${app.name} (${runtime.name}): ${said}`);
    return built.ok ? { app: { ...app, file: outcome.file }, blob: built.blob } : { blocked: snapshotNotApplicable(built.error) };
  }
  // the bundle is the function's whole code: its folder is the task root, as a zip of it would be
  const where = targetKind(app.kind).handler ? lambdaTaskRoot(outcome.file, app.exportName ?? 'handler', path.dirname(outcome.file)) : {};
  return { app: { ...app, file: outcome.file, ...where } };
}

/** Why a handler has no snapshot of its eager form: its wrapper awaits at its top level, which a snapshot cannot hold. */
const EAGER_SNAPSHOT =
  "a handler's eager cell has no snapshot build: its wrapper is an ES module awaiting the init export at its top level";

/**
 * An eager cell's app: the wrapper (generators/app-eager.ts) written into the run's scratch folder, one
 * folder per app (and version), which is its task root as a function's zip would be (`index.mjs`,
 * Handler `index.<export>`); the app still runs in its own folder. A bundled build bundles the wrapper
 * and the module it loads into one ES module (its top-level await kept).
 */
async function eagerAppFile(
  app: AppSpec,
  cell: Cell,
  runtime: ResolvedRuntime,
  context: { log: (line: string) => void; scratch?: string },
): Promise<{ app: AppSpec } | { blocked: BlockedCell }> {
  if (cell.build === 'snapshot') return { blocked: { kind: 'unsupported', reason: EAGER_SNAPSHOT } };
  if (!context.scratch) throw new Error('eagerAppFile: the wrapper is written into the run scratch folder, and none was given');
  const version = versionOf(cell);
  const folder = path.join(context.scratch, 'eager', app.name, ...(version ? [version.replace('/', '+')] : []));
  const build = cell.build;
  const plain = build === 'plain';
  // the module's real path: the ES module split's load hook knows it by the URL Node resolves it to
  const input = {
    file: realpathSync(app.file),
    esm: isEsModuleFile(app.file),
    exportName: app.exportName ?? 'handler',
    initExport: app.initExport!,
  };
  const wrapper = path.join(folder, plain ? EAGER_WRAPPER_FILE : `bundle-entry-${build}.mjs`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(wrapper, eagerWrapper({ ...input, bundled: !plain }));
  const eager = { ...app, eagerOf: app.file };
  if (build === 'plain') return { app: { ...eager, file: wrapper, ...lambdaTaskRoot(wrapper, input.exportName, folder) } };
  const relative = path.posix.join('app', 'eager', ...(version ? ['versions', version.replace('/', '+')] : []), `${app.name}.mjs`);
  const outcome = await bundleFile(wrapper, bundlePath(relative, runtime.bundleTarget, build), runtime.bundleTarget, build, true);
  if (!outcome.ok) {
    context.log(`${app.name} (eager): ${outcome.error}`);
    return { blocked: { kind: 'failed', reason: outcome.error } };
  }
  return { app: { ...eager, file: outcome.file, ...lambdaTaskRoot(outcome.file, input.exportName, path.dirname(outcome.file)) } };
}

/**
 * How an app cell starts. A server: its entry with the preload. A handler under `ric`: the client,
 * which loads it from its task root (where it runs, as Lambda's /var/task); under `probe`: coldstart's
 * Lambda bootstrap, which requires it.
 */
function appLaunch(
  app: AppSpec,
  cell: Cell,
  runtime: ResolvedRuntime,
  files: { preload: string; lambdaBootstrap: string; lambdaSplit: string },
  ric: ResolvedRic | undefined,
  blob?: string,
): CellLaunch {
  const base = { command: runtime.command, compileCache: cell.compileCache, cwd: app.cwd };
  if (!targetKind(app.kind).handler) {
    // started from a snapshot, node deserializes the app and runs its main function, not the file (kept as argv[1])
    const snapshot = blob ? ['--snapshot-blob', blob] : [];
    return { ...base, file: app.file, preArgs: ['--require', files.preload, ...snapshot], args: app.args };
  }
  // NODE_PATH holds the handler's own task root (an eager cell's wrapper sits beside it, as in a function's zip)
  const start = ric ? ricStart(cell, ric.dir, app.eagerOf ? app.cwd : (app.taskRoot ?? path.dirname(app.file))) : undefined;
  // an eager cell's wrapper carries the probe, as a generated eager file does: it is its own bootstrap, and its own split
  if (app.eagerOf) return start ? { ...base, file: app.file, start } : { ...base, file: app.file };
  if (!start) return { ...base, file: files.lambdaBootstrap };
  // INIT's split of a CommonJS handler under the client: the split preload (inert unless the sample asks)
  const split = asksInitSplit(cell, app) ? ['--require', files.lambdaSplit] : [];
  return { ...base, file: app.file, start: { ...start, args: [...split, ...start.args] } };
}

/**
 * Every app × memory size × measure × init mode, before the levers: the table's run stage, then its file
 * stage, of which an app varies only in init mode (its name, kind, variant and route count are its own:
 * the spec has no list of them); a handler has an eager form only with --init-export (core/cell-space.ts ROW_EXCLUSIONS).
 */
function baseCells(apps: readonly { app: AppSpec; version: string }[], spec: CellSpec): Cell[] {
  const bases = apps.map(({ app, version }) =>
    makeCell({ framework: app.name, variant: 'plain', routes: 1, target: app.kind, source: APP_SOURCE, version }),
  );
  const byName = new Map(apps.map(({ app }) => [app.name, app]));
  const eagerForm = (cell: PartialCell) => byName.get(String(cell.framework))?.initExport !== undefined;
  const lists = { ...spec, targets: undefined };
  return cellsOf(bases, [...stageDimensions('run'), ...stageDimensions('file')], lists, { facts: { eagerForm } }).map((fields) =>
    makeCell(fields as CellFields),
  );
}

/**
 * Every app × memory size × runtime × build × compile cache (and, for handlers, Lambda line × start ×
 * file cache, with the defaults of generated Lambda cells), each with its launch; with handlers and
 * `lambdaReference`, the hello-world reference under the same settings.
 */
export async function prepareAppCells(
  source: Pick<AppsSource, 'apps'>,
  spec: CellSpec,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  options: AppCellEffects = {},
): Promise<PreparedCells> {
  const lists = spec;
  const kinds = [...new Set(source.apps.map((a) => a.kind))];
  const runtimes = resolveRuntimes(runtimesOfTargets(lists, kinds), spec.node, env, log);
  const appFiles = writeAppFiles();
  const install = options.installVersion ?? installAppVersion;
  const versioned = appsAtVersions(source.apps, spec.versions, { scratch: options.scratch, install, log });
  const byKey = new Map(versioned.apps.map(({ app, version }) => [appKey(app.name, version), app]));
  const appOf = (cell: Cell) => byKey.get(appKey(cell.framework, cell.version))!;
  const base = baseCells(versioned.apps, spec);
  const cells = expandCells(base, lists);
  const reference =
    spec.lambdaReference && kinds.some((k) => targetKind(k).handler)
      ? await prepareReferenceCells(lists, { runtimes, log, variant: 'plain' })
      : undefined;
  // the client is built only for cells that run with it (a counted cell never does)
  const countable = (cell: Cell) => !uncountable(cell, runtimes.get(cell.runtime)!.kind);
  const ric = await ricFor([...cells, ...(reference?.cells ?? [])].filter(countable), env, log);
  const files = new Map<string, string>(reference?.files);
  const blocked = new Map<string, BlockedCell>(reference?.blocked);
  if (cells.some((c) => c.build !== 'plain')) log('bundling the apps with esbuild…');
  const planned: PlannedCell[] = [];
  // with a bundle beside the plain build: every build of an app must answer as its plain build did
  const compared = lists.builds.includes('plain') && lists.builds.length > 1;
  // per init mode too: an eager cell may answer otherwise than the handler as written (its init already done)
  const references = new Map<string, AnswerReference>();
  const referenceOf = (cell: Cell) => {
    const at = `${appKey(cell.framework, cell.version)}\u0000${cell.init}`;
    if (!references.has(at)) references.set(at, {});
    return references.get(at)!;
  };
  for (const cell of cells) {
    const runtime = runtimes.get(cell.runtime)!;
    const key = cellKey(cell);
    const why = uncountable(cell, runtime.kind);
    const unrunnable: BlockedCell | undefined = why ? { kind: 'unsupported', reason: why } : ricUnsupported(cell);
    const prepared = unrunnable
      ? { blocked: unrunnable }
      : await appFile(appOf(cell), cell, runtime, {
          env,
          log,
          ...(options.scratch ? { scratch: options.scratch } : {}),
          ...(options.snapshotBuilder ? { builder: options.snapshotBuilder } : {}),
        });
    if ('blocked' in prepared) {
      blocked.set(key, prepared.blocked);
      planned.push({
        cell,
        launch: undefined,
        blocked: prepared.blocked,
        contract: defaultContract,
        validates: false,
        app: appOf(cell),
      });
      continue;
    }
    const launch = appLaunch(prepared.app, cell, runtime, appFiles, ric, prepared.blob);
    files.set(key, launch.file);
    const app = compared ? { ...prepared.app, sameAs: { reference: referenceOf(cell), base: cell.build === 'plain' } } : prepared.app;
    planned.push({ cell, launch, blocked: undefined, contract: defaultContract, validates: false, app });
  }
  if (reference) planned.push(...reference.cells.map((cell) => planGeneratedCell(cell, reference, referenceGenerator, ric)));
  return {
    selected: [],
    skipped: versioned.skipped,
    cells: planned,
    levers: { cells: [...cells, ...(reference?.cells ?? [])], runtimes, files, blocked },
    ...(ric ? { ric } : {}),
    ...(versioned.installed.size ? { versions: versioned.installed } : {}),
  };
}
