/** lambda:package --target lambda-web's package (metrics/cloud/web-package.ts) against SAM's model of AWS::Serverless::WebFunction. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { unzipSync } from 'fflate';
import { parse } from 'yaml';
import { readsHttpEndpoint, writeWebPackage } from '../../metrics/cloud/web-package.ts';
import { fixture, tempDir } from '../support/helpers.ts';

const schema = JSON.parse(readFileSync(path.join(fixture('web-functions'), 'sam-webfunction.schema.json'), 'utf8')) as object;
const validate = new Ajv({ allErrors: true }).compile(schema);

function packaged() {
  const dir = tempDir();
  const bundle = path.join(dir, 'server.js');
  writeFileSync(bundle, "require('node:http').createServer((q, s) => s.end('ok')).listen(8080);\n");
  const out = path.join(dir, 'pkg');
  const result = writeWebPackage(out, [
    { cell: { framework: 'hono', variant: 'plain', routes: 1000 }, bundle },
    { cell: { framework: 'fastify', variant: 'plain', routes: 1 }, bundle },
  ]);
  const template = parse(readFileSync(result.template, 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  };
  return { out, result, template, bundle };
}

test('every resource is an AWS::Serverless::WebFunction that SAM model accepts, on nodejs24.x', () => {
  const { template } = packaged();
  const resources = Object.values(template.Resources);
  assert.equal(resources.length, 2);
  for (const resource of resources) {
    assert.ok(validate(resource), JSON.stringify(validate.errors));
    assert.equal(resource.Properties.Runtime, 'nodejs24.x');
    assert.equal('Architectures' in resource.Properties, false);
  }
  assert.deepEqual(
    resources.map((r) => r.Properties.FunctionName),
    ['coldstart-hono-1000-plain-web', 'coldstart-fastify-1-plain-web'],
  );
});

test('the schema check can fail: an event function property is refused', () => {
  const { template } = packaged();
  const resource = structuredClone(Object.values(template.Resources)[0]!);
  resource.Properties.Architectures = ['arm64'];
  assert.equal(validate(resource), false);
  delete resource.Properties.Architectures;
  delete resource.Properties.Runtime;
  assert.equal(validate(resource), false);
});

test('each zip holds the bundled server as index.js at its root, and its key is the CodeUri key', () => {
  const { out, result, template, bundle } = packaged();
  for (const [i, f] of result.functions.entries()) {
    const entries = unzipSync(readFileSync(f.zip));
    assert.deepEqual(Object.keys(entries), ['index.js']);
    assert.equal(Buffer.from(entries['index.js']!).toString('utf8'), readFileSync(bundle, 'utf8'));
    const codeUri = Object.values(template.Resources)[i]!.Properties.CodeUri as { Key: string };
    assert.equal(path.join(out, codeUri.Key), f.zip);
  }
});

test('a server that never reads AWS_LAMBDA_HTTP_ENDPOINT is told apart (lambda:package warns about it)', () => {
  assert.equal(readsHttpEndpoint('server.listen(Number(process.env.PORT ?? 3000))'), false);
  assert.equal(readsHttpEndpoint("const [host, port] = process.env.AWS_LAMBDA_HTTP_ENDPOINT.split(':')"), true);
});
