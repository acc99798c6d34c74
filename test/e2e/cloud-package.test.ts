import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { parse } from 'yaml';
import { parseFunctionName } from '../../metrics/core/function-name.ts';
import { writeLambdaPackage, zipHandler, type PackageCell } from '../../metrics/cloud/package.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { tempDir } from '../support/helpers.ts';

/** Stand-in bundles: distinct bytes per cell, with non-ASCII text so a re-encoding would show. */
function bundles(dir: string): PackageCell[] {
  const cells: PackageCell['cell'][] = [
    { framework: 'fastify', variant: 'validated', routes: 100 },
    { framework: 'deepkit-http', variant: 'plain', routes: 1 },
    { framework: 'mion', variant: 'validated', routes: 10 },
  ];
  return cells.map((cell) => {
    const bundle = path.join(dir, `${cell.framework}-${cell.routes}.js`);
    writeFileSync(
      bundle,
      `"use strict";\n// ${cell.framework} – ${cell.routes} routes ✓\nexports.handler = async () => ({ statusCode: 200 });\n`,
    );
    return {
      cell,
      bundle,
      ...(cell.framework === 'mion' ? { contract: { validBody: (i: number, name: string) => ({ [`route${i}`]: [name] }) } } : {}),
    };
  });
}

function usageError(pattern: RegExp) {
  return (error: unknown) => error instanceof UsageError && pattern.test(error.message) && !error.message.includes('\n');
}

interface Template {
  Transform: string;
  Parameters: Record<
    string,
    { Type: string; Default: unknown; AllowedValues?: unknown[]; MinValue?: number; MaxValue?: number; Description?: string }
  >;
  Resources: Record<string, { Type: string; DependsOn?: string; Properties: Record<string, unknown> }>;
  Outputs: Record<string, { Value: unknown; Description: string }>;
}

/** What the test reads of an AWS::Serverless::Function resource's properties. */
interface FunctionProperties {
  FunctionName: string;
  Handler: string;
  Runtime: string;
  CodeUri: string;
  MemorySize: unknown;
  Architectures: unknown;
  Events: { Http: { Type: string; Properties: unknown } };
}

describe('the handler zip', () => {
  it("holds the bundle's exact bytes as index.js", () => {
    const source = new TextEncoder().encode('exports.handler = async () => "✓";\n');
    const files = unzipSync(zipHandler(source));
    assert.deepEqual(Object.keys(files), ['index.js']);
    assert.deepEqual(Buffer.from(files['index.js']!), Buffer.from(source));
  });

  it('is the same bytes for the same input, in any time zone, dated 1980-01-01 00:00', () => {
    const source = new TextEncoder().encode('x'.repeat(10_000));
    const zone = process.env.TZ;
    try {
      process.env.TZ = 'Pacific/Kiritimati';
      const a = zipHandler(source);
      process.env.TZ = 'America/Los_Angeles';
      const b = zipHandler(source);
      assert.deepEqual(Buffer.from(a), Buffer.from(b));
      // local file header: modification time at offset 10, date at 12 (MS-DOS fields)
      const header = Buffer.from(a);
      assert.equal(header.readUInt32LE(0), 0x04034b50);
      assert.equal(header.readUInt16LE(10), 0);
      assert.equal(header.readUInt16LE(12), (0 << 9) | (1 << 5) | 1);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe('a Lambda package', () => {
  it('writes one zip per cell, a SAM template with one function each, and a README', () => {
    const work = tempDir('coldstart-cloud-test-');
    const cells = bundles(work);
    const out = path.join(work, 'package');
    const result = writeLambdaPackage(out, cells, { memorySize: 512, architecture: 'arm64' });
    assert.deepEqual(readdirSync(out).sort(), ['README.txt', 'functions', 'template.yaml']);
    assert.deepEqual(
      result.functions.map((f) => f.functionName),
      ['coldstart-fastify-100-validated', 'coldstart-deepkit-http-1-plain', 'coldstart-mion-10-validated'],
    );
    for (const [i, f] of result.functions.entries()) {
      const files = unzipSync(readFileSync(f.zip));
      assert.deepEqual(Buffer.from(files['index.js']!), readFileSync(cells[i]!.bundle), `${f.functionName}'s index.js is its bundle`);
      assert.equal(readFileSync(f.zip).length, f.bytes);
    }

    const text = readFileSync(result.template, 'utf8');
    assert.match(text, /^AWSTemplateFormatVersion: "2010-09-09"$/m, 'quoted, so no YAML 1.1 reader takes it for a date');
    const template = parse(text) as Template;
    assert.equal(template.Transform, 'AWS::Serverless-2016-10-31');
    const { Description: _d, ...memory } = template.Parameters.MemorySize!;
    assert.deepEqual(memory, { Type: 'Number', Default: 512, MinValue: 128, MaxValue: 10240 });
    assert.equal(template.Parameters.Architecture!.Default, 'arm64');
    assert.deepEqual(template.Parameters.Architecture!.AllowedValues, ['x86_64', 'arm64']);
    const functions = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::Serverless::Function');
    assert.equal(functions.length, cells.length);
    for (const [id, fn] of functions) {
      const p = fn.Properties as unknown as FunctionProperties;
      const cell = parseFunctionName(p.FunctionName);
      assert.ok(cell, `${p.FunctionName} parses back to a cell`);
      assert.equal(
        cells.filter((c) => c.cell.framework === cell.framework && c.cell.routes === cell.routes && c.cell.variant === cell.variant).length,
        1,
      );
      assert.equal(p.Handler, 'index.handler');
      assert.equal(p.Runtime, 'nodejs24.x');
      assert.equal(p.CodeUri, `functions/${p.FunctionName}.zip`);
      assert.ok(existsSync(path.join(out, p.CodeUri)));
      assert.deepEqual(p.MemorySize, { Ref: 'MemorySize' });
      assert.deepEqual(p.Architectures, [{ Ref: 'Architecture' }]);
      const event = p.Events.Http;
      assert.equal(event.Type, 'HttpApi');
      assert.deepEqual(event.Properties, { ApiId: { Ref: `${id}Api` }, Method: 'POST', Path: '/{proxy+}', PayloadFormatVersion: '2.0' });
      assert.equal(template.Resources[`${id}Api`]!.Type, 'AWS::Serverless::HttpApi');
      const logs = template.Resources[fn.DependsOn!]!;
      assert.equal(logs.Type, 'AWS::Logs::LogGroup');
      assert.equal(logs.Properties.LogGroupName, `/aws/lambda/${p.FunctionName}`);
      assert.ok(template.Outputs[`${id}Url`]);
    }

    const readme = readFileSync(result.readme, 'utf8');
    assert.match(readme, /sam deploy --guided/);
    assert.match(readme, /update-function-configuration/);
    assert.match(readme, /lambda:import/);
    for (const f of result.functions) assert.ok(readme.includes(f.functionName));
    // the request that forces a cold start goes to the LAST route: routes are numbered from 0
    assert.ok(readme.includes('POST /route-99 {"name":"coldstart"}'));
    assert.ok(readme.includes('POST /route-9 {"route9":["coldstart"]}'), "a framework's own request shape");
  });

  it('is byte-for-byte the same when written twice from the same bundles', () => {
    const work = tempDir('coldstart-cloud-test-');
    const cells = bundles(work);
    const a = writeLambdaPackage(path.join(work, 'a'), cells);
    const b = writeLambdaPackage(path.join(work, 'b'), cells);
    for (const name of ['template.yaml', 'README.txt', ...a.functions.map((f) => `functions/${f.functionName}.zip`)]) {
      assert.deepEqual(readFileSync(path.join(a.dir, name)), readFileSync(path.join(b.dir, name)), name);
    }
  });

  it('zip entries are readable files for the unzip tool (mode rw-r--r--)', (t) => {
    if (spawnSync('unzip', ['-v']).error) {
      t.skip('unzip is not installed');
      return;
    }
    const work = tempDir('coldstart-cloud-test-');
    const [fn] = writeLambdaPackage(path.join(work, 'p'), bundles(work).slice(0, 1)).functions;
    const test = spawnSync('unzip', ['-t', fn!.zip], { encoding: 'utf8' });
    assert.equal(test.status, 0, test.stdout + test.stderr);
    const info = spawnSync('unzip', ['-Z', fn!.zip], { encoding: 'utf8' });
    assert.match(info.stdout, /^-rw-r--r--.* unx .* index\.js$/m);
  });

  it('refuses bad input with one line, and writes nothing', () => {
    const work = tempDir('coldstart-cloud-test-');
    const cells = bundles(work);
    const out = path.join(work, 'out', 'nested');
    assert.throws(
      () =>
        writeLambdaPackage(out, [
          ...cells,
          { cell: { framework: 'koa', variant: 'plain', routes: 1 }, bundle: path.join(work, 'nope.js') },
        ]),
      usageError(/bundle of coldstart-koa-1-plain cannot be read \(ENOENT\)/),
    );
    assert.equal(existsSync(path.join(work, 'out')), false);
    assert.throws(() => writeLambdaPackage(out, []), usageError(/no Lambda cells/));
    assert.throws(() => writeLambdaPackage(out, [cells[0]!, cells[0]!]), usageError(/selected twice/));
    assert.throws(() => writeLambdaPackage(out, cells, { memorySize: 64 }), usageError(/--memory must be an integer from 128 to 10240/));
    assert.throws(() => writeLambdaPackage(out, cells, { architecture: 'mips' }), usageError(/--architecture must be x86_64 or arm64/));
    assert.throws(
      () => writeLambdaPackage(out, cells, { runtime: 'python3.12' }),
      usageError(/--runtime: "python3\.12" is not a Lambda Node\.js runtime/),
    );
    assert.equal(existsSync(path.join(work, 'out')), false);

    const file = path.join(work, 'a-file');
    writeFileSync(file, 'x');
    assert.throws(() => writeLambdaPackage(file, cells), usageError(/--out: .*a-file is not a folder \(.*a-file is a file\)/));
    assert.throws(
      () => writeLambdaPackage(path.join(file, 'sub'), cells),
      usageError(/--out: .*a-file\/sub is not a folder \(.*a-file is a file\)/),
    );
    assert.equal(readFileSync(file, 'utf8'), 'x');

    const used = path.join(work, 'used');
    writeLambdaPackage(used, cells);
    assert.throws(() => writeLambdaPackage(used, cells), usageError(/already holds a package \(template\.yaml\)/));
    const other = path.join(work, 'other');
    mkdirSync(path.join(other, 'functions'), { recursive: true });
    // a folder holding only functions/ is not a package folder (no template.yaml): refused as the user's (issue 46)
    assert.throws(() => writeLambdaPackage(other, cells), usageError(/already holds a package \(functions\)|not a package folder/));
  });
});
