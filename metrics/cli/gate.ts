/** `gate --base REF`: base against head in instructions, for a pull request; the gate itself is pipeline/gate.ts. */
import type { Command as PlainCommand } from 'commander';
import { Command } from '@commander-js/extra-typings';
import { UsageError } from '../core/errors.ts';
import { parseInteger, parsePercentShare } from '../core/parse.ts';
import { FLOOR_MULTIPLE } from '../pipeline/gate-verdict.ts';
import { GATE_SIGNALS, GateAborted, runGate } from '../pipeline/gate.ts';
import { addTypedCommand } from './groups/common.ts';
import { terminalText } from './shared.ts';

const DEFAULT_GATE_THRESHOLD = 0.002;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function registerGateCommand(program: PlainCommand): void {
  const gate = new Command('gate')
    .description(
      'the cold-start gate of a pull request: the app at --base and at HEAD, each exported with git archive and installed ' +
        "with npm ci (cached by lockfile hash in the tool's .cache/gate-npm), counted in instructions in interleaved rounds; " +
        'markdown for the PR comment; exit 1 on a confirmed regression',
    )
    .requiredOption('--base <ref>', 'the commit, branch or tag of this repository to compare HEAD with')
    .option('--entry <file>', 'a server entry (path in the repository) and its arguments, as measure takes it; repeat for several', collect)
    .option('--handler <file.export>', 'a Lambda handler module and its export, as measure takes it; repeat for several', collect)
    .option('--name <list>', 'names for the apps (as measure)')
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
    .option('--out <dir>', "the folder for gate.md and every round's run folder", 'gate-out')
    .option('--work <dir>', 'where the scratch folder of both sides is made (default: the temp folder)')
    .option(
      '--measure-arg <arg>',
      'an option passed to each measure as given (repeat: --measure-arg=--request --measure-arg="GET /")',
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
      if (!entries.length && !handlers.length) throw new UsageError('gate: name the app with --entry or --handler');
      // a Ctrl-C, SIGTERM or SIGHUP stops the children and removes the scratch folder; the gate exits 128 + n
      const controller = new AbortController();
      const onSignal = (signal: NodeJS.Signals) => controller.abort(signal);
      for (const signal of GATE_SIGNALS) process.on(signal, onSignal);
      const result = await runGate({
        base: opts.base,
        entries,
        handlers,
        names: opts.name,
        rounds: opts.rounds,
        threshold: opts.threshold,
        out: opts.out,
        work: opts.work,
        measureArgs: opts.measureArg ?? [],
        ...(opts.attribute ? { attribute: true } : {}),
        cwd: process.cwd(),
        nodePath: process.execPath,
        stepSummary: process.env.GITHUB_STEP_SUMMARY || undefined,
        githubOutput: process.env.GITHUB_OUTPUT || undefined,
        log: (line) => process.stderr.write(terminalText(line) + '\n'),
        abort: controller.signal,
      }).catch((error: unknown) => {
        if (!(error instanceof GateAborted)) throw error;
        process.stderr.write(`${terminalText(error.message)}\n`);
        process.exitCode = error.exitCode;
        return undefined;
      });
      for (const signal of GATE_SIGNALS) process.off(signal, onSignal);
      if (!result) return;
      process.stdout.write(terminalText(result.markdown));
      if (result.exitCode) process.exitCode = result.exitCode;
    });
  addTypedCommand(program, gate);
}
