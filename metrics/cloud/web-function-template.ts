/**
 * The AWS SAM template of a Lambda Web Functions package: one `AWS::Serverless::WebFunction` per cell,
 * with the properties SAM's own model declares for it (aws/serverless-application-model,
 * samtranslator/internal/schema_source/aws_serverless_webfunction.py; test/fixtures/web-functions/
 * sam-webfunction.schema.json checks the output against them):
 * - `Runtime: nodejs24.x`, the only runtime of Web Functions; no architecture or memory setting exists
 *   (arm64 with 2 vCPUs and 2 GB an environment, AWS's Web Functions pages);
 * - `CodeUri` as {Bucket, Key, Version}: a Web Function's code must be an S3 object in a versioned bucket
 *   (`sam build`/`sam package` do not take a local path for this resource), so the bucket and each zip's
 *   object version are parameters filled after the upload (README.txt says how);
 * - the runtime runs `index.js` at the package's root (no EntryPoint needed), listening on
 *   AWS_LAMBDA_HTTP_ENDPOINT; `MaxConcurrencyPerEnvironment` and `AuthType` are parameters.
 */
import { Document, Scalar } from 'yaml';
import { WEB_FUNCTION_RUNTIME } from '../core/lambda-platform.ts';

export { WEB_FUNCTION_RUNTIME };
/** Requests an environment serves at once: AWS's default, and the range it allows. */
export const WEB_CONCURRENCY = { default: 64, min: 1, max: 128 } as const;

export interface WebTemplateFunction {
  functionName: string;
  /** the zip's key in the bucket (and its path in the package), forward slashes */
  key: string;
  description: string;
}

/** `coldstart-hono-100-plain-web` → `ColdstartHono100PlainWeb`. */
function logicalId(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

export function webFunctionTemplate(functions: readonly WebTemplateFunction[]): Record<string, unknown> {
  const parameters: Record<string, unknown> = {
    CodeBucket: { Type: 'String', Description: 'The versioned S3 bucket the zips are uploaded to (README.txt)' },
    AuthType: {
      Type: 'String',
      Default: 'ApplicationManaged',
      Description: "Who authenticates requests: ApplicationManaged (the server; coldstart's servers check nothing) or IAM",
    },
    MaxConcurrencyPerEnvironment: {
      Type: 'Number',
      Default: WEB_CONCURRENCY.default,
      MinValue: WEB_CONCURRENCY.min,
      MaxValue: WEB_CONCURRENCY.max,
      Description: 'Requests an environment serves at once',
    },
  };
  const resources: Record<string, unknown> = {};
  const used = new Set<string>();
  for (const f of functions) {
    let id = logicalId(f.functionName);
    for (let n = 2; used.has(id); n++) id = `${logicalId(f.functionName)}N${n}`;
    used.add(id);
    parameters[`${id}Version`] = { Type: 'String', Description: `The S3 object version of ${f.key}` };
    resources[id] = {
      Type: 'AWS::Serverless::WebFunction',
      Properties: {
        FunctionName: f.functionName,
        RevisionDescription: f.description,
        Runtime: WEB_FUNCTION_RUNTIME,
        CodeUri: { Bucket: { Ref: 'CodeBucket' }, Key: f.key, Version: { Ref: `${id}Version` } },
        AuthType: { Ref: 'AuthType' },
        MaxConcurrencyPerEnvironment: { Ref: 'MaxConcurrencyPerEnvironment' },
        EnvironmentVariables: { NODE_ENV: 'production' },
      },
    };
  }
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Transform: 'AWS::Serverless-2016-10-31',
    Description: `coldstart: ${functions.length} Lambda Web Function${functions.length === 1 ? '' : 's'}, one per measured cell`,
    Parameters: parameters,
    Resources: resources,
  };
}

export function webFunctionTemplateYaml(functions: readonly WebTemplateFunction[]): string {
  const document = new Document(webFunctionTemplate(functions));
  const version = document.get('AWSTemplateFormatVersion', true);
  if (version instanceof Scalar) version.type = Scalar.QUOTE_DOUBLE;
  return document.toString({ lineWidth: 0 });
}
