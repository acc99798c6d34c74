/** `gate --base REF`: base against head in instructions, for a pull request; the gate itself is pipeline/gate.ts. */
import type { Command as PlainCommand } from 'commander';
import { Command } from '@commander-js/extra-typings';
import { UsageError } from '../core/errors.ts';
import { parseFrameworks, parseInteger, parsePercentShare, parseRoutes } from '../core/parse.ts';
import type { FrameworkFrom } from '../pipeline/gate-framework.ts';
import { FLOOR_MULTIPLE } from '../pipeline/gate-verdict.ts';
import { GATE_SIGNALS, GateAborted, runGate, type GateOptions } from '../pipeline/gate.ts';
import { addTypedCommand, dimensionOption } from './groups/common.ts';
import { DIMENSIONS } from '../core/dimensions.ts';
import { terminalText } from './shared.ts';

const DEFAULT_GATE_THRESHOLD = 0.002;

const DEFAULT_GATE_ROUTES = [1, 1000];
/** The gate's generated cells: servers, the framework's package from each side. */
const GATE_CELLS = { what: 'cell', lambda: false } as const;

/** What the gate counts: an app (--entry, --handler), or generated cells of a framework from its checkout (-f, --framework-from). */
function frameworkFromOptions(
  opts: { frameworks?: string[] | 'all'; routes?: number[]; frameworkFrom?: string; name?: string },
  app: boolean,
): FrameworkFrom | undefined {
  if (app && (opts.frameworks || opts.frameworkFrom || opts.routes))
    throw new UsageError('gate: an app (--entry, --handler) or generated cells (-f, -r, --framework-from), not both');
  if (app) return undefined;
  if (!opts.frameworks && !opts.frameworkFrom && !opts.routes)
    throw new UsageError('gate: name the app with --entry or --handler, or a framework with -f and --framework-from');
  if (!opts.frameworks) throw new UsageError('gate: --framework-from and -r need -f: the frameworks whose cells load the package');
  if (!opts.frameworkFrom)
    throw new UsageError("gate: -f needs --framework-from: the folder of the framework's package in this repository");
  if (opts.frameworks === 'all') throw new UsageError('gate: -f all: name the frameworks whose cells load the package');
  if (opts.name) throw new UsageError('gate: --name names apps; generated cells are named by framework and routes');
  return { frameworks: opts.frameworks, routes: opts.routes ?? DEFAULT_GATE_ROUTES, from: opts.frameworkFrom };
}

/** The gate, stopped by a Ctrl-C, SIGTERM or SIGHUP (its children stopped, the scratch folder removed; exit 128 + n). */
async function gateWithSignals(options: Omit<GateOptions, 'abort'>): Promise<void> {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => controller.abort(signal);
  for (const signal of GATE_SIGNALS) process.on(signal, onSignal);
  const result = await runGate({ ...options, abort: controller.signal }).catch((error: unknown) => {
    if (!(error instanceof GateAborted)) throw error;
    process.stderr.write(`${terminalText(error.message)}\n`);
    process.exitCode = error.exitCode;
    return undefined;
  });
  for (const signal of GATE_SIGNALS) process.off(signal, onSignal);
  if (!result) return;
  process.stdout.write(terminalText(result.markdown));
  if (result.exitCode) process.exitCode = result.exitCode;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function registerGateCommand(program: PlainCommand): void {
  const gate = new Command('gate')
    .description(
      'the cold-start gate of a pull request: the app at --base and at HEAD, each exported with git archive and installed ' +
        "with npm ci (cached by lockfile hash in the tool's .cache/gate-npm), or a framework's generated cells with its package " +
        'packed from each side (-f, --framework-from), counted in instructions in interleaved rounds; ' +
        'markdown for the PR comment; exit 1 on a confirmed regression',
    )
    .requiredOption('--base <ref>', 'the commit, branch or tag of this repository to compare HEAD with')
    .option('--entry <file>', 'a server entry (path in the repository) and its arguments, as measure takes it; repeat for several', collect)
    .option('--handler <file.export>', 'a Lambda handler module and its export, as measure takes it; repeat for several', collect)
    .option('--name <list>', 'names for the apps (as measure)')
    // the table's own flags (core/dimensions.ts): generated cells instead of an app, with --framework-from
    .addOption(dimensionOption(DIMENSIONS.framework, '--frameworks', parseFrameworks, GATE_CELLS, 'none: the app of --entry'))
    .addOption(dimensionOption(DIMENSIONS.routes, '--routes', parseRoutes, GATE_CELLS, DEFAULT_GATE_ROUTES.join(',')))
    .option(
      '--framework-from <dir>',
      "the folder of the framework's package in this repository (`.` for its root): packed and installed from each side " +
        'as --versions installs a release',
    )
    .option(
      '--rounds <n>',
      'counted rounds per side (base, head, base, head…); 2 or more measures the noise floor',
      parseInteger('--rounds', 1, 20),
      2,
    )
    .option(
      '--threshold <percent>',
      `a phase that grew by more than the larger of this and ${FLOOR_MULTIPLE} × its noise floor is a regression ` +
        `(default ${DEFAULT_GATE_THRESHOLD * 100}%)`,
      parsePercentShare('--threshold'),
      DEFAULT_GATE_THRESHOLD,
    )
    .option(
      '--cache-sim',
      "count with valgrind's cache simulation as well: estimated cycles beside the instructions in gate.md and the ≈ ms " +
        'taken from them (the closer fit); the verdict stays on instructions',
    )
    .option('--out <dir>', "the folder for gate.md and every round's run folder", 'gate-out')
    .option('--work <dir>', 'where the scratch folder of both sides is made (default: the temp folder)')
    .option(
      '--measure-arg <arg>',
      'an option passed as given to each count (measure, or run with -f) (repeat: --measure-arg=--request --measure-arg="GET /")',
      collect,
    )
    .option(
      '--attribute',
      "one more counted round per side, cut where a require's CommonJS loading enters and leaves each npm package: which " +
        "package's loading grew (gate.md's per-package table, gate.json); ES modules loaded by import are not cut",
    )
    .action(async (opts) => {
      const entries = opts.entry ?? [];
      const handlers = opts.handler ?? [];
      const framework = frameworkFromOptions(opts, entries.length + handlers.length > 0);
      await gateWithSignals({
        base: opts.base,
        entries,
        handlers,
        names: opts.name,
        ...(framework ? { framework } : {}),
        rounds: opts.rounds,
        threshold: opts.threshold,
        out: opts.out,
        work: opts.work,
        measureArgs: opts.measureArg ?? [],
        cacheSim: opts.cacheSim === true,
        ...(opts.attribute ? { attribute: true } : {}),
        cwd: process.cwd(),
        nodePath: process.execPath,
        env: process.env,
        stepSummary: process.env.GITHUB_STEP_SUMMARY || undefined,
        githubOutput: process.env.GITHUB_OUTPUT || undefined,
        log: (line) => process.stderr.write(terminalText(line) + '\n'),
      });
    });
  addTypedCommand(program, gate);
}
