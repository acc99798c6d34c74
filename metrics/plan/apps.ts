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
import path from 'node:path';
import { writeAppFiles } from '../../generators/app-probe.ts';
import { defaultContract } from '../../generators/contract.ts';
import { referenceGenerator } from '../../generators/lambda-reference.ts';
import { lambdaTaskRoot, type AnswerReference, type AppSpec } from '../core/app.ts';
import type { AppsSource, CellSpec } from '../core/run-spec.ts';
import { APP_SOURCE, cellKey, makeCell, type Cell } from '../core/cell.ts';
import { BUNDLE_DIR, bundleFile, bundlePath } from './bundle.ts';
import {
  memoriesOf,
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
import { asksInitSplit } from './lambda-bootstrap.ts';
import type { ResolvedRic } from './ric.ts';
import { resolveRuntimes, type ResolvedRuntime } from './runtimes.ts';
import { appsAtVersions, type AppVersionInstaller } from './app-versions.ts';
import { ensureVersion, versionOf } from './versions.ts';
import { buildSnapshot, SNAPSHOT_FAILURE, snapshotUnsupported, type SnapshotBuilder } from './snapshot.ts';

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
  context: { env: NodeJS.ProcessEnv; log: (line: string) => void; builder?: SnapshotBuilder },
): Promise<{ app: AppSpec; blob?: string } | { blocked: BlockedCell }> {
  const { log } = context;
  if (cell.compileCache !== 'off' && runtime.compileCacheUnsupported)
    return { blocked: { kind: 'unsupported', reason: runtime.compileCacheUnsupported } };
  if (cell.build === 'plain') return { app };
  if (cell.build === 'snapshot') {
    const why = snapshotUnsupported(app, cell, runtime);
    if (why) return { blocked: { kind: 'unsupported', reason: why } };
  }
  const bundle = cell.build === 'snapshot' ? 'bundle' : cell.build;
  // an app at a version of a dependency (--versions) has a bundle of its own: the two versions' code differs
  const version = versionOf(cell);
  const relative = version
    ? path.posix.join('app', 'versions', version.replace('/', '+'), `${app.name}.js`)
    : path.posix.join('app', `${app.name}.js`);
  // a snapshot's bundle has a folder per runtime: its blob starts only on the node build that wrote it
  const output =
    cell.build === 'snapshot'
      ? path.join(BUNDLE_DIR, `${runtime.bundleTarget}-snapshot`, runtime.name, relative)
      : bundlePath(relative, runtime.bundleTarget, bundle);
  // reused only when every file esbuild read for it (the app's own modules and packages included) is unchanged
  const outcome = await bundleFile(app.file, output, runtime.bundleTarget, bundle);
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
  const where = app.kind === 'lambda' ? lambdaTaskRoot(outcome.file, app.exportName ?? 'handler', path.dirname(outcome.file)) : {};
  return { app: { ...app, file: outcome.file, ...where } };
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
  if (app.kind === 'server') {
    // started from a snapshot, node deserializes the app and runs its main function, not the file (kept as argv[1])
    const snapshot = blob ? ['--snapshot-blob', blob] : [];
    return { ...base, file: app.file, preArgs: ['--require', files.preload, ...snapshot], args: app.args };
  }
  const start = ric ? ricStart(cell, ric.dir, app.taskRoot ?? path.dirname(app.file)) : undefined;
  if (!start) return { ...base, file: files.lambdaBootstrap };
  // INIT's split of a CommonJS handler under the client: the split preload (inert unless the sample asks)
  const split = asksInitSplit(cell, app) ? ['--require', files.lambdaSplit] : [];
  return { ...base, file: app.file, start: { ...start, args: [...split, ...start.args] } };
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
  const memories = memoriesOf(spec);
  const { measures } = spec;
  const base = versioned.apps.flatMap(({ app, version }) =>
    memories.flatMap((memory) =>
      measures.map((measure) =>
        makeCell({ framework: app.name, variant: 'plain', routes: 1, target: app.kind, memory, measure, source: APP_SOURCE, version }),
      ),
    ),
  );
  const cells = expandCells(base, lists);
  const reference =
    spec.lambdaReference && kinds.includes('lambda')
      ? await prepareReferenceCells(memories, lists, { runtimes, log, variant: 'plain', measures })
      : undefined;
  // the client is built only for cells that run with it (a counted cell never does)
  const countable = (cell: Cell) => !uncountable(cell, runtimes.get(cell.runtime)!.kind);
  const ric = ricFor([...cells, ...(reference?.cells ?? [])].filter(countable), env, log);
  const files = new Map<string, string>(reference?.files);
  const blocked = new Map<string, BlockedCell>(reference?.blocked);
  if (cells.some((c) => c.build !== 'plain')) log('bundling the apps with esbuild…');
  const planned: PlannedCell[] = [];
  // with a bundle beside the plain build: every build of an app must answer as its plain build did
  const compared = lists.builds.includes('plain') && lists.builds.length > 1;
  const references = new Map<string, AnswerReference>(versioned.apps.map(({ app, version }) => [appKey(app.name, version), {}]));
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
    const app = compared
      ? { ...prepared.app, sameAs: { reference: references.get(appKey(cell.framework, cell.version))!, base: cell.build === 'plain' } }
      : prepared.app;
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
