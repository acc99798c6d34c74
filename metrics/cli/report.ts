/** `report DIR`: rebuild every artefact of a run folder from its samples.jsonl (and meta.json). */
import type { Command } from 'commander';
import { reportPipeline } from '../pipeline/report.ts';
import { addCostOptions, addExportOptions, costOptionsOf, exportOf } from './options.ts';
import { parseInteger } from './parse.ts';

export function registerReportCommand(program: Command): void {
  const command = program
    .command('report')
    .description('rebuild every artefact of a run folder from its samples.jsonl (and meta.json)')
    .argument('<dir>', 'a run folder, e.g. results/latest');
  addCostOptions(command);
  addExportOptions(command);
  command
    .option(
      '--phases-at <N>',
      'the route count of chart-phases.svg (default 1000, or the largest measured N below it)',
      parseInteger('--phases-at', 1),
    )
    .action(async (dir: string, opts: Record<string, unknown> & { phasesAt?: number }) => {
      const exportJson = exportOf(opts);
      const written = await reportPipeline(
        { dir, cost: costOptionsOf(opts), phasesAt: opts.phasesAt, ...(exportJson ? { exportJson } : {}) },
        (line) => process.stderr.write(`warning: ${line}\n`),
      );
      process.stdout.write(`wrote ${written.join(', ')} in ${dir}\n`);
    });
}
