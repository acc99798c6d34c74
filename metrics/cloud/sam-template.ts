/**
 * The AWS SAM template of a package: one AWS::Serverless::Function per cell (its zip, `index.handler`),
 * each behind its own HTTP API (`POST /{proxy+}`, so `/route-<i>` reaches the framework's router as it
 * does locally) sending the payload format its adapter reads (2.0, or 1.0 where the generator says
 * so), and a log group per function with a retention, so deleting the stack leaves no logs behind.
 * Memory size, architecture and log retention are parameters.
 *
 * Functions are named by core/function-name.ts, so the log group `/aws/lambda/<name>` tells `lambda:import`
 * which cell a REPORT line belongs to. Intrinsic functions are written in their long form
 * (`{Ref: …}`, `{Fn::Sub: …}`), which CloudFormation reads like the short `!Ref` tags and any YAML
 * parser reads back.
 */
import { Document, Scalar } from 'yaml';
import { DEFAULT_EVENT_FORMAT, type EventFormat } from '../../generators/types.ts';
import {
  DEFAULT_LAMBDA_RUNTIME,
  DEFAULT_ARCHITECTURE,
  DEFAULT_MEMORY_MB,
  ARCHITECTURES,
  MAX_MEMORY_MB,
  MIN_MEMORY_MB,
  type Architecture,
} from '../core/lambda-platform.ts';

/** API Gateway's HTTP API answers 503 after 30 s whatever the function's timeout. */
export const FUNCTION_TIMEOUT_S = 30;
/** The retention periods CloudWatch Logs accepts, up to three months. */
export const LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90] as const;

export interface TemplateFunction {
  functionName: string;
  /** the zip, relative to the template's folder, with forward slashes */
  codeUri: string;
  /** one line shown in the console */
  description: string;
  /** the request that exercises it, shown in the stack's outputs */
  request?: { path: string };
  /** the payload format its HTTP API sends (default 2.0; 1.0 for an adapter that reads only that) */
  eventFormat?: EventFormat;
}

export interface TemplateOptions {
  /** a Lambda Node.js runtime identifier, e.g. nodejs20.x */
  runtime?: string;
  /** the MemorySize parameter's default, MB */
  memorySize?: number;
  /** the Architecture parameter's default */
  architecture?: Architecture;
}

/** `coldstart-deepkit-http-100-plain` → `ColdstartDeepkitHttp100Plain`: CloudFormation ids are alphanumeric. */
function logicalId(functionName: string): string {
  return functionName
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** Logical ids, one per function, unique even when two names differ only in their dashes. */
function logicalIds(functions: TemplateFunction[]): string[] {
  const used = new Set<string>();
  return functions.map((f) => {
    const base = logicalId(f.functionName);
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}N${n}`;
    used.add(id);
    return id;
  });
}

export function samTemplate(functions: TemplateFunction[], options: TemplateOptions = {}): Record<string, unknown> {
  const runtime = options.runtime ?? DEFAULT_LAMBDA_RUNTIME;
  const resources: Record<string, unknown> = {};
  const outputs: Record<string, unknown> = {};
  const ids = logicalIds(functions);
  functions.forEach((f, i) => {
    const id = ids[i]!;
    resources[`${id}Api`] = { Type: 'AWS::Serverless::HttpApi' };
    resources[`${id}Logs`] = {
      Type: 'AWS::Logs::LogGroup',
      Properties: { LogGroupName: `/aws/lambda/${f.functionName}`, RetentionInDays: { Ref: 'LogRetentionDays' } },
    };
    resources[id] = {
      Type: 'AWS::Serverless::Function',
      DependsOn: `${id}Logs`,
      Properties: {
        FunctionName: f.functionName,
        Description: f.description,
        CodeUri: f.codeUri,
        Handler: 'index.handler',
        Runtime: runtime,
        MemorySize: { Ref: 'MemorySize' },
        Architectures: [{ Ref: 'Architecture' }],
        Timeout: FUNCTION_TIMEOUT_S,
        Environment: { Variables: { NODE_ENV: 'production' } },
        Events: {
          Http: {
            Type: 'HttpApi',
            Properties: {
              ApiId: { Ref: `${id}Api` },
              Method: 'POST',
              Path: '/{proxy+}',
              PayloadFormatVersion: f.eventFormat ?? DEFAULT_EVENT_FORMAT,
            },
          },
        },
      },
    };
    outputs[`${id}Url`] = {
      Description: `${f.functionName}: POST ${f.request ? `this URL + ${f.request.path}` : 'this URL + /route-<i>'}`,
      Value: { 'Fn::Sub': `https://\${${id}Api}.execute-api.\${AWS::Region}.\${AWS::URLSuffix}` },
    };
  });
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Transform: 'AWS::Serverless-2016-10-31',
    Description: `coldstart: ${functions.length} Lambda function${functions.length === 1 ? '' : 's'}, one per measured cell`,
    Parameters: {
      MemorySize: {
        Type: 'Number',
        Default: options.memorySize ?? DEFAULT_MEMORY_MB,
        MinValue: MIN_MEMORY_MB,
        MaxValue: MAX_MEMORY_MB,
        Description: 'Memory of every function in MB (Lambda gives CPU in proportion)',
      },
      Architecture: {
        Type: 'String',
        Default: options.architecture ?? DEFAULT_ARCHITECTURE,
        AllowedValues: [...ARCHITECTURES],
        Description: 'Instruction set of every function',
      },
      LogRetentionDays: {
        Type: 'Number',
        Default: 7,
        AllowedValues: [...LOG_RETENTION_DAYS],
        Description: 'Days CloudWatch Logs keeps the REPORT lines',
      },
    },
    Resources: resources,
    Outputs: outputs,
  };
}

export function samTemplateYaml(functions: TemplateFunction[], options: TemplateOptions = {}): string {
  const document = new Document(samTemplate(functions, options));
  // quoted, as AWS writes it: a YAML 1.1 reader would take the bare 2010-09-09 for a date
  const version = document.get('AWSTemplateFormatVersion', true);
  if (version instanceof Scalar) version.type = Scalar.QUOTE_DOUBLE;
  return document.toString({ lineWidth: 0 });
}
