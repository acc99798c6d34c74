/**
 * coldstart's command line (commander). npm scripts and the Makefile are thin doors into it:
 *   run (npm run metrics), generate, report DIR, clean.
 * Every user mistake is one line on stderr and exit 2; never a stack trace.
 */
import { Command, CommanderError, Option } from 'commander';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Variant } from '../../generators/types.ts';
import { GENERATED_DIR } from '../../generators/write.ts';
import { COMPILED_CACHE_DIR } from '../../generators/typescript.ts';
import { addCostOptions, archOption, costOptionsOf, memoryOption, priceOption } from '../analyse/cost.ts';
import { EXIT_INTERRUPTED, EXIT_USAGE, UsageError } from '../core/errors.ts';
import { buildOption, compileCacheOption, leverListsOf, runtimeOption } from '../plan/levers.ts';
import { DEFAULT_ROUTES, parseChoice, parseInteger, parseRoutes, parseSeconds, parseVariants } from '../plan/selection.ts';
import { ORDERS } from '../plan/order.ts';
import type { CellSummary } from '../analyse/aggregate.ts';
import { DEFAULT_EXPORT_METRIC, writeHyperfineExport } from '../report/hyperfine-json.ts';
import { loadRun, writeReport } from '../report/write.ts';
import { METRICS, type Metric } from '../core/samples.ts';
import { prepareCells, runMetrics } from './run.ts';
import { registerExtraCommands } from './commands.ts';

/** A path as the user would type it: relative under the current folder, absolute elsewhere. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative === '' ? '.' : relative.startsWith('..') ? file : relative;
}

export function commandLine(argv: string[], script = 'metrics'): string {
  return [`npm run ${script} --`, ...argv.slice(3)].join(' ').replace(/ --$/, '');
}

/** The parsed selection options, checked before a command selects, prints or writes anything. */
export function selectionOf(opts: Record<string, unknown>): { frameworks: string; routes: number[]; variants: Variant[] } {
  return {
    frameworks: opts.frameworks as string,
    routes: parseRoutes(opts.routes as string),
    variants: parseVariants(opts.variant as string),
  };
}

/** Options shared by every command that picks frameworks, route counts and variants. */
export function addSelectionOptions(command: Command): Command {
  return command
    .option('-f, --frameworks <list>', 'comma-separated frameworks, or all (those whose packages are installed)', 'all')
    .option('-r, --routes <list>', 'comma-separated route counts, each 1–100000', DEFAULT_ROUTES.join(','))
    .option('--variant <variant>', 'validated, plain or all', 'validated');
}

/** `--export-json FILE`: the run's results in hyperfine's JSON shape (metrics/output/hyperfine-json.ts). */
function exportJsonOption(): Option {
  return new Option('--export-json <file>', "also write the results in hyperfine's --export-json shape (seconds) to FILE").argParser((file: string) => {
    // checked before a long run, not after it
    if (!existsSync(path.dirname(path.resolve(file)))) throw new UsageError(`--export-json: the folder of ${file} does not exist`);
    return file;
  });
}

function exportMetricOption(): Option {
  return new Option('--export-metric <metric>', 'the metric --export-json writes as times')
    .default(DEFAULT_EXPORT_METRIC)
    .argParser(parseChoice('--export-metric', METRICS));
}

function exportJson(opts: Record<string, unknown>, summaries: CellSummary[]): void {
  if (typeof opts.exportJson !== 'string') return;
  const file = path.resolve(opts.exportJson);
  try {
    writeHyperfineExport(file, summaries, opts.exportMetric as Metric);
  } catch (error) {
    throw new UsageError(`--export-json: cannot write ${file}: ${(error as Error).message}`);
  }
}

export function buildProgram(): Command {
  const program = new Command('coldstart')
    .description('Cold-start metrics for Node.js HTTP frameworks as the number of routes grows')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });

  addSelectionOptions(
    program
      .command('run')
      .description('generate, run every file as fresh processes, verify the answers, write the report'),
  )
    .option('-s, --samples <n>', 'timed samples per cell', parseInteger('--samples', 1, 10_000), 5)
    .option('-w, --warmup <n>', 'unrecorded warm-up runs per cell', parseInteger('--warmup', 0, 100), 1)
    .option('-t, --timeout <seconds>', 'per-sample limit from spawn to a verified answer', parseSeconds('--timeout'), 120)
    .addOption(new Option('--order <order>', 'interleaved (sample 1 of every cell, then 2 …), sequential or random').default('interleaved').argParser(parseChoice('--order', ORDERS)))
    .option('--seed <text>', 'seed for --order random', 'coldstart')
    .option('--node <path>', 'the node binary to measure', process.execPath)
    .addOption(runtimeOption())
    .addOption(buildOption())
    .addOption(compileCacheOption())
    .addOption(memoryOption())
    .addOption(archOption())
    .addOption(priceOption())
    .option('-o, --out <dir>', 'run folder (default results/<timestamp>/; results/latest then names it)')
    .addOption(exportJsonOption())
    .addOption(exportMetricOption())
    .action(async (opts: Record<string, unknown>) => {
      const result = await runMetrics({
        ...selectionOf(opts),
        samples: opts.samples as number,
        warmup: opts.warmup as number,
        timeoutMs: (opts.timeout as number) * 1000,
        order: opts.order as (typeof ORDERS)[number],
        seed: opts.seed as string,
        node: opts.node as string,
        out: opts.out as string | undefined,
        command: commandLine(process.argv),
        cost: costOptionsOf(opts),
        levers: leverListsOf(opts),
      });
      exportJson(opts, result.summaries);
      const failed = result.summaries.reduce((n, s) => n + s.failed, 0);
      process.stdout.write(`${result.interrupted ? 'interrupted; partial results in' : 'results in'} ${displayPath(result.dir)} (summary.md)${failed ? `; ${failed} failed samples` : ''}\n`);
      if (result.interrupted) process.exitCode = EXIT_INTERRUPTED;
    });

  addSelectionOptions(program.command('generate').description('write the generated files only')).action(async (opts: Record<string, unknown>) => {
    const { cells } = await prepareCells({ ...selectionOf(opts), node: process.execPath }, process.stderr);
    process.stdout.write(`${cells.length} files in ${displayPath(GENERATED_DIR)}\n`);
  });

  addCostOptions(program.command('report'))
    .description('rebuild every artefact of a run folder from its samples.jsonl (and meta.json)')
    .argument('<dir>', 'a run folder, e.g. results/latest')
    .addOption(exportJsonOption())
    .addOption(exportMetricOption())
    .option('--phases-at <N>', 'the route count of chart-phases.svg (default 1000, or the largest measured N below it)', parseInteger('--phases-at', 1))
    .action(async (dir: string, opts: Record<string, unknown>) => {
      const written = await writeReport(path.resolve(dir), {
        cost: costOptionsOf(opts),
        phasesAt: opts.phasesAt as number | undefined,
        warn: (line) => process.stderr.write(`warning: ${line}\n`),
      });
      exportJson(opts, loadRun(path.resolve(dir)).summaries);
      process.stdout.write(`wrote ${written.join(', ')} in ${dir}\n`);
    });

  program
    .command('clean')
    .description('remove the generated files, bundles and compiled TypeScript cache (runs in results/ are kept)')
    .action(() => {
      for (const entry of readdirSync(GENERATED_DIR)) {
        if (entry === '.gitkeep' || entry === 'package.json') continue;
        rmSync(path.join(GENERATED_DIR, entry), { recursive: true, force: true });
      }
      rmSync(COMPILED_CACHE_DIR, { recursive: true, force: true });
      process.stdout.write('generated/ and the compile cache are clean\n');
    });

  registerExtraCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
      process.stderr.write(`coldstart: ${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`coldstart: ${error.message}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(`coldstart: internal error: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}\n`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith(path.join('metrics', 'cli', 'main.ts'))) {
  process.exitCode = await main(process.argv);
}
