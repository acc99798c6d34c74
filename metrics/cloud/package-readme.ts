/** README.txt of a Lambda package: how to deploy it, force cold starts, and bring the REPORT lines back. */
import { FUNCTION_PREFIX } from '../core/function-name.ts';

export interface ReadmeFunction {
  functionName: string;
  zip: string;
  request: { path: string; body: unknown };
}

export interface ReadmeOptions {
  runtime: string;
  memorySize: number;
  architecture: string;
}

/**
 * One shell word in single quotes. (hyperfine-command.ts has the same quoting, but importing it would
 * pull the CLI in and make a cycle once the CLI imports the packaging.)
 */
function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function packageReadme(functions: ReadmeFunction[], options: ReadmeOptions): string {
  const width = Math.max(...functions.map((f) => f.functionName.length));
  const first = functions[0]!;
  const body = shellWord(JSON.stringify(first.request.body));
  const lines = [
    `coldstart Lambda package: ${functions.length} function${functions.length === 1 ? '' : 's'}, one per cell.`,
    `Each zip holds the cell's bundled handler as index.js (handler index.handler, runtime ${options.runtime}).`,
    '',
    'FUNCTIONS (name, zip, the request its checks use)',
    ...functions.map((f) => `  ${f.functionName.padEnd(width)}  ${f.zip}  POST ${f.request.path} ${JSON.stringify(f.request.body)}`),
    '',
    'DEPLOY (AWS SAM CLI, with credentials for the account and region to use)',
    '  In this folder: sam deploy --guided',
    `  Parameters: MemorySize (MB, default ${options.memorySize}), Architecture (x86_64 or arm64, default ${options.architecture}),`,
    "  LogRetentionDays (default 7). Let SAM create the functions' IAM roles. The stack outputs one URL per function.",
    '  Function names are fixed, so deploy one stack per account and region. `sam delete` removes everything,',
    '  the log groups included (export the REPORT lines first).',
    '',
    'FORCE COLD STARTS',
    "  Lambda starts a new execution environment (a cold start, with INIT) after the function's configuration",
    '  changes. For each sample: change a variable, wait for the update, send one request. For example:',
    `    NAME=${first.functionName}; URL=<the stack output of that function>`,
    '    for i in $(seq 1 20); do',
    '      aws lambda update-function-configuration --function-name "$NAME" \\',
    '        --environment "Variables={NODE_ENV=production,COLDSTART_SAMPLE=$i}" > /dev/null',
    '      aws lambda wait function-updated --function-name "$NAME"',
    `      curl -s -X POST "$URL${first.request.path}" -H 'content-type: application/json' -d ${body}`,
    '    done',
    '  --environment replaces every variable: keep NODE_ENV=production. Requests sent while an environment is',
    '  warm give REPORT lines without Init Duration; they are counted on import but are not cold-start samples.',
    '',
    'EXPORT THE REPORT LINES (either way)',
    '  Plain text, one file per function, named after it:',
    `    aws logs tail /aws/lambda/$NAME --since 2h --filter-pattern '"REPORT RequestId"' > $NAME.txt`,
    `  Logs Insights: select the log groups /aws/lambda/${FUNCTION_PREFIX}-*, run`,
    '    filter @type = "REPORT"',
    '    | fields @timestamp, @log, @requestId, @duration, @billedDuration, @initDuration, @maxMemoryUsed, @memorySize',
    '    | sort @timestamp asc | limit 10000',
    '  and export the results as CSV or JSON (one query returns at most 10,000 rows).',
    '',
    'IMPORT',
    '  npm run lambda:import -- FILE... --out DIR [--function NAME] [--arch x86_64|arm64]',
    '  The function, hence the cell, comes from the log group in an Insights export, else --function, else the',
    '  file name. Every REPORT line that cannot be read is counted and named. Then `npm run report -- DIR`.',
    '',
  ];
  return lines.join('\n');
}
