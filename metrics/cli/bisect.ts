/**
 * `bisect` (npm run bisect): the first release of a package whose counted cold start (or CPU time)
 * passes a threshold over the good end, by binary search over its releases (pipeline/bisect.ts), on a
 * generated cell or on your server entry. Exit 0 with a verdict (found, or no change), 1 when there is
 * none (an end was skipped).
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command as PlainCommand } from 'commander';
import { Command, Option } from '@commander-js/extra-typings';
import { MEASURES, TARGETS } from '../core/dimensions.ts';
import { UsageError } from '../core/errors.ts';
import { childDeadlineMs, childFailureLine, deadlinePassed } from '../core/child-deadlines.ts';
import { parseChoice, parseInteger, parsePercentShare } from '../core/parse.ts';
import { parseRequest } from '../core/app.ts';
import { appsOf } from '../pipeline/apps.ts';
import { checkBisectedDependency, realBisectDeps } from '../pipeline/bisect-deps.ts';
import { MAX_CANDIDATES, packagesTable, runBisect, type BisectCell } from '../pipeline/bisect.ts';
import { addTypedCommand } from './groups/common.ts';
import { depsOf } from './run.ts';
import { commandLine, displayPath, say, tell } from './shared.ts';
import { EXIT_NO_VERDICT } from '../core/exit-codes.ts';

const RANGE = /^([^.\s][^\s]*?)\.\.([^.\s][^\s]*)$/;

export function registerBisectCommand(program: PlainCommand, hooks: { argv?: readonly string[] } = {}): void {
  const bisect = new Command('bisect')
    .description(
      'find the first release of a package whose cold start passes a threshold over the good end, by binary search ' +
        'over its releases, on a generated cell (--framework) or your server entry (--entry); resumable from its --out folder',
    )
    .addOption(new Option('--package <name>', 'the npm package whose releases are bisected (e.g. fastify)'))
    .addOption(new Option('--range <good..bad>', 'with --package: the good and the bad release, e.g. 4.0.0..5.6.1 (both included)'))
    .addOption(
      new Option(
        '--git <good..bad>',
        "instead of --package: the commits of your app's repository (--entry's), each exported into a scratch folder and installed",
      ),
    )
    .addOption(new Option('--pre', 'include pre-releases (default: releases only)'))
    .addOption(
      new Option('--step <n>', 'try every n-th release only (both ends kept) (default: 1)').argParser(parseInteger('--step', 1, 1000)),
    )
    .addOption(new Option('--yes', `bisect a range of more than ${MAX_CANDIDATES} releases`))
    .addOption(
      new Option('--threshold <percent>', 'a release is bad above the good end by more than this (default: 1%)').argParser(
        parsePercentShare('--threshold'),
      ),
    )
    .addOption(
      new Option(
        '--measure <measure>',
        'instructions (counted under valgrind: deterministic) or time (CPU time to the first answer) (default: instructions)',
      ).argParser(parseChoice('--measure', MEASURES)),
    )
    .addOption(
      new Option('-f, --framework <name>', 'the generated cell: its framework (the package is its framework, adapter or validator)'),
    )
    .addOption(
      new Option('-r, --routes <n>', 'the generated cell: its route count (default: 1000)').argParser(parseInteger('--routes', 1, 100_000)),
    )
    .addOption(
      new Option('--target <target>', `the generated cell: ${TARGETS.join(', ')} (default: server)`).argParser(
        parseChoice('--target', TARGETS),
      ),
    )
    .addOption(
      new Option('--entry <file>', 'your server entry instead (the package one of its dependencies); its folder is copied per release'),
    )
    .addOption(new Option('--cwd <dir>', "your app's folder, copied once per release (default: where the command ran)"))
    .addOption(
      new Option('--request <request>', 'the first request to your server: "METHOD /path" (default: GET /)').argParser(parseRequest),
    )
    .addOption(
      new Option('--from <folder>', 'take the releases from a folder of `npm pack` tarballs (name-x.y.z.tgz) instead of the registry'),
    )
    .addOption(
      new Option(
        '-o, --out <dir>',
        "the bisect's folder: its state (bisect.json), bisect.md and each step's run (default: results/bisect-<package>-<good>-<bad>/)",
      ),
    )
    .addOption(new Option('--debug-mode [script]', 'run with the fake sampler and cells: nothing is started').hideHelp());
  const command = bisect.action((opts) => bisectAction(opts, hooks.argv));
  addTypedCommand(program, command);
}

interface BisectOpts {
  package?: string;
  range?: string;
  git?: string;
  pre?: true;
  step?: number;
  yes?: true;
  threshold?: number;
  measure?: (typeof MEASURES)[number];
  framework?: string;
  routes?: number;
  target?: (typeof TARGETS)[number];
  entry?: string;
  cwd?: string;
  request?: { method: string; path: string };
  from?: string;
  out?: string;
  debugMode?: string | true;
}

/** --from, checked: a folder (a file, a FIFO or a device was 'cannot scandir', exit 4). */
function fromFolder(dir: string): string {
  let folder: boolean;
  try {
    folder = statSync(dir).isDirectory();
  } catch (error) {
    throw new UsageError(`--from: cannot read ${dir} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!folder) throw new UsageError(`--from: ${dir} is not a folder of npm pack tarballs`);
  return dir;
}

/** What is bisected: a package's releases (--package, --range) or the app's commits (--git). */
function bisectedOf(opts: BisectOpts): { pkg: string; good: string; bad: string; git: boolean } {
  const git = opts.git !== undefined;
  if (git && (opts.package !== undefined || opts.range !== undefined || opts.from !== undefined))
    throw new UsageError('bisect: --git bisects your commits: --package, --range and --from are for releases');
  if (git && opts.entry === undefined) throw new UsageError('bisect: --git needs --entry (the app whose commits are bisected)');
  if (!git && (opts.package === undefined || opts.range === undefined))
    throw new UsageError('bisect: give --package NAME --range GOOD..BAD, or --git GOOD..BAD with --entry');
  const text = git ? opts.git! : opts.range!;
  const range = RANGE.exec(text);
  if (!range) throw new UsageError(`${git ? '--git' : '--range'}: "${text}" is not good..bad (e.g. 4.0.0..5.6.1)`);
  return { pkg: opts.package ?? '', good: range[1]!, bad: range[2]!, git };
}

/** The git repository an app's folder belongs to (its top level). */
function repositoryOf(folder: string): string {
  const deadlineMs = childDeadlineMs('git', process.env);
  const top = spawnSync('git', ['-C', folder, 'rev-parse', '--show-toplevel'], {
    encoding: 'utf8',
    timeout: deadlineMs,
    killSignal: 'SIGKILL',
  });
  if (deadlinePassed(top)) throw new UsageError(`--git: ${childFailureLine('`git rev-parse --show-toplevel`', top, deadlineMs)!}`);
  if (top.status !== 0) throw new UsageError(`--git: ${displayPath(folder)} is not in a git repository`);
  return top.stdout.trim();
}

async function bisectAction(opts: BisectOpts, argv: readonly string[] | undefined): Promise<void> {
  const { pkg, good, bad, git } = bisectedOf(opts);
  // where the user ran the command: runCli started there (npm's INIT_CWD for an npm script)
  const base = process.cwd();
  let cell: BisectCell;
  if (opts.entry !== undefined) {
    if (opts.framework !== undefined || opts.routes !== undefined || opts.target !== undefined)
      throw new UsageError('bisect: --entry measures your app: --framework, --routes and --target are for a generated cell');
    const app = appsOf(
      { entry: [opts.entry], ...(opts.cwd ? { cwd: opts.cwd } : {}), ...(opts.request ? { request: opts.request } : {}) },
      base,
    )[0]!;
    if (path.relative(app.cwd, app.file).startsWith('..'))
      throw new UsageError('--entry: the entry must lie inside --cwd (its folder is copied per release)');
    if (!git) checkBisectedDependency(app, pkg);
    cell = { kind: 'app', app };
  } else {
    if (opts.framework === undefined)
      throw new UsageError('bisect: give the cell, --framework NAME (with --routes, --target) or --entry FILE');
    if (opts.cwd !== undefined || opts.request !== undefined) throw new UsageError('bisect: --cwd and --request are for --entry');
    cell = { kind: 'generated', framework: opts.framework, routes: opts.routes ?? 1000, target: opts.target ?? 'server' };
  }
  const named = git ? 'git' : pkg.replace('/', '+');
  const dir = path.resolve(opts.out ?? path.join('results', `bisect-${named}-${good}-${bad}`));
  const options = {
    pkg,
    ...(git && cell.kind === 'app' ? { git: repositoryOf(cell.app.cwd) } : {}),
    good,
    bad,
    pre: Boolean(opts.pre),
    step: opts.step ?? 1,
    yes: Boolean(opts.yes),
    threshold: opts.threshold ?? 0.01,
    measure: opts.measure ?? 'instructions',
    cell,
    from: opts.from === undefined ? undefined : fromFolder(path.resolve(base, opts.from)),
    dir,
    command: commandLine([...(argv ?? process.argv)], 'bisect'),
  };
  const log = tell;
  const outcome = await runBisect(options, realBisectDeps(options, depsOf(opts.debugMode), log));
  const v = outcome.verdict;
  const summary =
    v.kind === 'found'
      ? `culprit: ${git ? `commit ${v.culprit}` : `${pkg}@${v.culprit}`} (last good ${v.lastGood})`
      : v.kind === 'no-change'
        ? `no regression over the threshold from ${good} to ${bad}`
        : `no verdict: ${v.kind === 'failed' ? v.reason : ''}`;
  const moved = outcome.packages;
  if (moved) say(`packages whose loaded code changed most, ${moved.from} → ${moved.to}:\n${packagesTable(moved).join('\n')}`);
  say(`${summary}; ${outcome.measuredNow} run(s) now, ${displayPath(path.join(dir, 'bisect.md'))}`);
  if (v.kind === 'failed') process.exitCode = EXIT_NO_VERDICT;
}
