/** `report DIR`: rebuild every artefact of a run folder from its samples.jsonl (and meta.json). */
import path from 'node:path';
import type { Command } from 'commander';
import { assertNotHeld } from '../measure/run-lock.ts';
import { loadRun, writeReport } from '../report/write.ts';
import { addCostOptions, addExportOptions, costOptionsOf, exportOf } from './options.ts';
import { parseInteger } from './parse.ts';
import { writeExport } from './shared.ts';

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
    .action(async (dir: string, opts: Record<string, unknown>) => {
      // a run still writing the folder would overwrite (or be overwritten by) this report
      assertNotHeld(path.resolve(dir));
      const written = await writeReport(path.resolve(dir), {
        cost: costOptionsOf(opts),
        phasesAt: opts.phasesAt as number | undefined,
        warn: (line) => process.stderr.write(`warning: ${line}\n`),
      });
      writeExport(exportOf(opts), loadRun(path.resolve(dir)).summaries);
      process.stdout.write(`wrote ${written.join(', ')} in ${dir}\n`);
    });
}
