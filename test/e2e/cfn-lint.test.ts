/**
 * Every template lambda:package writes passes cfn-lint (AWS's CloudFormation linter, which knows the
 * runtimes Lambda has deprecated): the default (the newest runtime line), each line with the other
 * parameters, and functions behind HTTP APIs of both payload formats. Skipped with the reason when
 * cfn-lint is not installed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { writeLambdaPackage, type PackageCell, type PackageOptions } from '../../metrics/cloud/package.ts';
import { samTemplateYaml } from '../../metrics/cloud/sam-template.ts';
import { tempDir } from '../support/helpers.ts';
import { LAMBDA_RUNTIME_NAMES } from '../../metrics/core/lambda-platform.ts';

const version = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
const skip = version.error || version.status !== 0 ? 'cfn-lint is not installed (pip install cfn-lint); skipped' : false;

/** A package of two stand-in handlers, one deployed with payload 1.0, written with `options`. */
function packageWith(options: PackageOptions): string {
  const dir = tempDir();
  const bundle = path.join(dir, 'handler.js');
  writeFileSync(bundle, 'exports.handler = async () => ({ statusCode: 200, body: "{}" });\n');
  const cells: PackageCell[] = [
    { cell: { framework: 'hono', variant: 'validated', routes: 1 }, bundle },
    { cell: { framework: 'mion', variant: 'validated', routes: 100 }, bundle, eventFormat: '1.0' },
  ];
  const out = path.join(dir, 'package');
  return writeLambdaPackage(out, cells, options).template;
}

function cfnLint(templates: string[]): { status: number | null; output: string } {
  const run = spawnSync('cfn-lint', ['--', ...templates], { encoding: 'utf8', timeout: 180_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('cfn-lint on the templates lambda:package writes', { skip }, () => {
  it('the default template (the newest line, both payload formats) and each line at 128 MB on arm64 have no finding', () => {
    const templates = [
      packageWith({}),
      ...LAMBDA_RUNTIME_NAMES.map((runtime) => packageWith({ runtime, memorySize: 128, architecture: 'arm64' })),
    ];
    const result = cfnLint(templates);
    assert.equal(result.status, 0, result.output);
  });

  it('it does flag a deprecated line (the check can fail): the same template on nodejs20.x', () => {
    const file = path.join(tempDir(), 'template.yaml');
    writeFileSync(
      file,
      samTemplateYaml([{ functionName: 'coldstart-hono-1-validated', codeUri: 'functions/a.zip', description: 'a' }], {
        runtime: 'nodejs20.x',
      }),
    );
    const result = cfnLint([file]);
    assert.notEqual(result.status, 0);
    assert.match(result.output, /nodejs20\.x/);
  });
});
