/** Output: the run folder, attribution, failures accepted, and hyperfine's JSON shape. */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { EXIT_FAILED_SAMPLES } from '../../core/errors.ts';
import type { OutputSpec } from '../../core/run-spec.ts';
import { DEFAULT_EXPORT_METRIC, METRICS } from '../../core/samples.ts';
import { checkExportFile, checkOutputFile } from '../../store/output-file.ts';
import { parseChoice } from '../../core/parse.ts';
import { byDefault, type Empty, type OptsOf } from './common.ts';
import { PUBLISH_MAX_LOAD_PER_CORE } from '../../pipeline/publish.ts';

/** `--export-json FILE` and `--export-metric`: the results in hyperfine's JSON shape (run, measure, report). */
export function addExportOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return command
    .addOption(
      new Option('--export-json <file>', "also write the results in hyperfine's --export-json shape (seconds) to FILE").argParser((file) =>
        checkExportFile('--export-json', file),
      ),
    )
    .addOption(
      new Option('--export-metric <metric>', 'the metric --export-json writes as times' + byDefault(DEFAULT_EXPORT_METRIC)).argParser(
        parseChoice('--export-metric', METRICS),
      ),
    );
}

type ExportOpts = OptsOf<ReturnType<typeof addExportOptions<[], Empty, Empty>>>;

/** The export asked for; `runDirs` (the run folder written or read) must not hold the export file. */
export function exportOf(opts: ExportOpts, runDirs: readonly string[]): OutputSpec['exportJson'] {
  if (opts.exportJson === undefined) return undefined;
  checkOutputFile('--export-json', opts.exportJson, runDirs);
  return { file: opts.exportJson, metric: opts.exportMetric ?? DEFAULT_EXPORT_METRIC };
}

export function addOutputGroup<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return addExportOptions(
    command
      .optionsGroup('Output:')
      .addOption(new Option('-o, --out <dir>', 'run folder (default results/<timestamp>/; results/latest then names it)'))
      .addOption(
        new Option(
          '--attribute',
          'after the samples, one unrecorded run per cell with --cpu-prof: where its cold start goes, by npm package (attribution.md)',
        ),
      )
      .addOption(new Option('--allow-failures', `exit 0 even when samples failed (otherwise exit ${EXIT_FAILED_SAMPLES})`))
      .addOption(
        new Option(
          '--force-publish',
          `start a run whose --out is under results/published/ although the 1-min load is above ${PUBLISH_MAX_LOAD_PER_CORE} a core ` +
            '(otherwise refused, exit 2; docs/dev/publishing.md)',
        ),
      ),
  );
}

type OutputOpts = OptsOf<ReturnType<typeof addOutputGroup<[], Empty, Empty>>>;

export function outputOf(opts: OutputOpts): Partial<OutputSpec> {
  const exportJson = exportOf(opts, opts.out ? [opts.out] : []);
  return {
    ...(opts.out !== undefined ? { out: opts.out } : {}),
    ...(opts.attribute ? { attribute: true } : {}),
    ...(opts.allowFailures ? { allowFailures: true } : {}),
    ...(opts.forcePublish ? { forcePublish: true } : {}),
    ...(exportJson ? { exportJson } : {}),
  };
}
