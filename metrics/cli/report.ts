/** `report DIR`: rebuild every artefact of a run folder from its samples.jsonl (and meta.json). */
import type { Command as PlainCommand } from 'commander';
import { Command, Option } from '@commander-js/extra-typings';
import { UsageError } from '../core/errors.ts';
import { runSpec, specRefusal } from '../core/run-spec.ts';
import { reportPipeline } from '../pipeline/report.ts';
import { addTypedCommand, givenFlags } from './groups/common.ts';
import { addCostGroup, costOf, WEB_RATE_FLAGS } from './groups/cost.ts';
import { addExportOptions, exportOf } from './groups/output.ts';
import { parseInteger } from '../core/parse.ts';
import { say, warn } from './shared.ts';

export function registerReportCommand(program: PlainCommand): void {
  const report = new Command('report')
    .description('rebuild every artefact of a run folder from its samples.jsonl (and meta.json)')
    .argument('<dir>', 'a run folder, e.g. results/latest (samples.jsonl read line by line, a line at most 4 MB; meta.json at most 16 MB)');
  const command = addExportOptions(addCostGroup(report).optionsGroup('Output:'))
    .addOption(
      new Option('--phases-at <N>', 'the route count of chart-phases.svg (default 1000, or the largest measured N below it)').argParser(
        parseInteger('--phases-at', 1),
      ),
    )
    .addOption(
      new Option(
        '--calibration <file>',
        'a calibration table for the Lambda estimates (lambda:calibrate fits one from your real runs; default: the shipped one)',
      ),
    )
    .action(async (dir, opts, self) => {
      const exportJson = exportOf(opts, [dir]);
      // the rules between options (--export-metric without --export-json) are run's
      // the Web Functions rates apply to the folder's lambda-web cells: the report checks them against the folder
      const given = new Set([...givenFlags(self)].filter((f) => !WEB_RATE_FLAGS.includes(f)));
      const refusal = specRefusal(runSpec(exportJson ? { output: { exportJson } } : {}), given);
      if (refusal) throw new UsageError(refusal);
      const written = await reportPipeline(
        {
          dir,
          cost: costOf(opts),
          ...(opts.phasesAt !== undefined ? { phasesAt: opts.phasesAt } : {}),
          ...(exportJson ? { exportJson } : {}),
          ...(opts.calibration !== undefined ? { calibrationFile: opts.calibration } : {}),
        },
        warn,
      );
      say(`wrote ${written.join(', ')} in ${dir}`);
    });
  addTypedCommand(program, command);
}
