/**
 * A deployable Lambda Web Functions package: in DIR, `functions/<name>.zip` per cell (its bundled server
 * as `index.js` at the zip's root, which the runtime runs), `template.yaml` (web-function-template.ts) and
 * a README.txt. Checked and built in memory first; a failed write removes what it wrote.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { functionName, FunctionNameError, MAX_FUNCTION_NAME, type FunctionCell } from '../core/function-name.ts';
import {
  checkPackageDir,
  FUNCTIONS_DIR,
  README_FILE,
  TEMPLATE_FILE,
  writePackageFolder,
  zipHandler,
  type PackageResult,
} from './package.ts';
import { WEB_FUNCTION_RUNTIME, webFunctionTemplateYaml } from './web-function-template.ts';

export interface WebPackageCell {
  cell: FunctionCell;
  /** the cell's bundled server: one self-contained CommonJS file that listens on AWS_LAMBDA_HTTP_ENDPOINT */
  bundle: string;
}

/** A Web Function's name: the cell's function name and `-web` (an event function of the same cell keeps its own). */
export function webFunctionName(cell: FunctionCell): string {
  let name: string;
  try {
    name = `${functionName(cell)}-web`;
  } catch (error) {
    if (error instanceof FunctionNameError) throw new UsageError(error.message);
    throw error;
  }
  if (name.length > MAX_FUNCTION_NAME) throw new UsageError(`function name ${name} is longer than ${MAX_FUNCTION_NAME} characters`);
  return name;
}

/**
 * Whether a bundled server can be seen listening by Lambda: it must read AWS_LAMBDA_HTTP_ENDPOINT (the
 * runtime sets no PORT). A source that never names the variable would fail INIT's 10 s on Lambda.
 */
export function readsHttpEndpoint(source: string): boolean {
  return source.includes('AWS_LAMBDA_HTTP_ENDPOINT');
}

function webReadme(names: readonly string[]): string {
  return [
    `coldstart: ${names.length} Lambda Web Function${names.length === 1 ? '' : 's'} (runtime ${WEB_FUNCTION_RUNTIME}, arm64).`,
    '',
    "A Web Function's code is an object of a versioned S3 bucket (SAM does not upload it for this resource):",
    '  1. upload every zip of functions/ to the bucket under the same key (functions/<name>.zip);',
    '  2. deploy with the bucket and each object version as parameters:',
    '     sam deploy --template-file template.yaml --stack-name coldstart-web --capabilities CAPABILITY_IAM \\',
    '       --parameter-overrides CodeBucket=<bucket> <Id>Version=<version id> …',
    '  3. export the log group of each function and read its cold starts: npm run lambda:import -- <log export>',
    '',
    'coldstart does not deploy Web Functions itself (lambda:run refuses them).',
    '',
    ...names.map((n) => `  ${n}`),
    '',
  ].join('\n');
}

/** Write the package of `cells` into `dir` (created if missing). */
export function writeWebPackage(dir: string, cells: readonly WebPackageCell[]): PackageResult {
  if (cells.length === 0) throw new UsageError('no cells to package: the selection is empty');
  checkPackageDir(dir);
  const names = new Set<string>();
  const built = cells.map((entry) => {
    const name = webFunctionName(entry.cell);
    if (names.has(name)) throw new UsageError(`${name} is selected twice`);
    names.add(name);
    if (entry.bundle.endsWith('.mjs')) throw new UsageError(`${name}: a Web Function runs index.js; this bundle is an ES module`);
    let source: Buffer;
    try {
      source = readFileSync(entry.bundle);
    } catch (error) {
      throw new UsageError(`the bundle of ${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const key = `${FUNCTIONS_DIR}/${name}.zip`;
    const { framework, routes, variant } = entry.cell;
    const description = `coldstart ${framework}, ${routes} route${routes === 1 ? '' : 's'}, ${variant}`;
    return { name, key, description, zip: zipHandler(source, 'index.js') };
  });
  const template = webFunctionTemplateYaml(built.map(({ name, key, description }) => ({ functionName: name, key, description })));
  const readme = webReadme(built.map((b) => b.name));
  writePackageFolder(dir, built, template, readme);
  return {
    dir,
    template: path.join(dir, TEMPLATE_FILE),
    readme: path.join(dir, README_FILE),
    functions: built.map((b) => ({ functionName: b.name, zip: path.join(dir, b.key), bytes: b.zip.length })),
  };
}
