/**
 * `lambda-reference` (npm run lambda:reference): rebuild the calibration table, real cold starts of
 * the hello-world reference function by runtime line, architecture and memory size, from
 * maxday/lambda-perf's daily data files and/or the REPORT lines of the reference function you
 * deployed yourself (metrics/cloud/lambda-perf.ts). It writes the table (by default over the one the
 * tool ships, metrics/core/lambda-reference.json) and prints its provenance and rows.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { buildReferenceTable, checkReferenceOut } from '../cloud/lambda-perf.ts';
import { UsageError } from '../core/errors.ts';
import { oneLine } from '../core/escape.ts';
import { referenceProvenance, SHIPPED_REFERENCE_FILE, type ReferenceTable } from '../core/lambda-reference.ts';
import { displayPath } from './shared.ts';
import { writeFileWhole } from '../core/files.ts';
import { ARCHITECTURES, type Architecture } from '../core/lambda-platform.ts';

export interface LambdaReferenceOptions {
  lambdaPerf: string[];
  reports: string[];
  runtime?: string;
  architecture?: Architecture;
  out: string;
}

const RUNTIME_LINE = /^nodejs\d+\.x$/;

export function runLambdaReference(options: LambdaReferenceOptions, log: (line: string) => void): ReferenceTable {
  if (options.lambdaPerf.length === 0 && options.reports.length === 0) {
    throw new UsageError('lambda:reference needs --lambda-perf FILE… (lambda-perf data files) and/or --reports FILE… (your REPORT lines)');
  }
  if (options.runtime !== undefined && !RUNTIME_LINE.test(options.runtime)) {
    throw new UsageError(`--runtime ${JSON.stringify(options.runtime)} is not a Node.js runtime line (nodejs22.x, nodejs24.x, …)`);
  }
  checkReferenceOut(options.out);
  const table = buildReferenceTable({
    lambdaPerfFiles: options.lambdaPerf,
    reportFiles: options.reports,
    ...(options.runtime ? { runtime: options.runtime } : {}),
    ...(options.architecture ? { architecture: options.architecture } : {}),
  });
  try {
    writeFileWhole(options.out, JSON.stringify(table, null, 2) + '\n');
  } catch (error) {
    throw new UsageError(`--out: ${(error as Error).message}`);
  }
  log(oneLine(`calibration table: ${referenceProvenance(table)}`));
  for (const r of table.rows) {
    log(
      `  ${r.runtime} ${r.architecture} ${r.memoryMB} MB: ` +
        `Init Duration ${r.initMs.median} ms (IQR ${r.initMs.p25}–${r.initMs.p75}, n ${r.initMs.n}), ` +
        `Duration ${r.durationMs.median} ms (IQR ${r.durationMs.p25}–${r.durationMs.p75}, n ${r.durationMs.n})`,
    );
  }
  log(`written: ${displayPath(options.out)}`);
  return table;
}

export function registerLambdaReferenceCommand(program: Command): void {
  program
    .command('lambda-reference')
    .description(
      "rebuild the calibration table (real cold starts of the hello-world reference) from lambda-perf's data files or your REPORT lines",
    )
    .option('--lambda-perf <files...>', 'maxday/lambda-perf data files (data/YYYY-MM-DD.json)', [])
    .option('--reports <files...>', 'REPORT lines (text, Logs Insights CSV or JSON) of the reference function you deployed', [])
    .option('--runtime <line>', 'the runtime line of --reports (nodejs22.x, nodejs24.x)')
    .addOption(new Option('--architecture <arch>', 'the architecture of --reports').choices(ARCHITECTURES))
    .option('--out <file>', 'where to write the table', SHIPPED_REFERENCE_FILE)
    .action((opts: { lambdaPerf: string[]; reports: string[]; runtime?: string; architecture?: Architecture; out: string }) => {
      runLambdaReference({ ...opts, out: path.resolve(opts.out) }, (line) => process.stdout.write(line + '\n'));
    });
}
