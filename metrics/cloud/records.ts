/**
 * REPORT lines from AWS as samples.jsonl records, beside the ones measured locally. Only cold starts
 * (REPORT lines with an Init Duration) become samples: that is what every sample of this tool is.
 * The mapping is this one function, so the record's field names are decided in one place.
 *
 * A real cold start has no `listen` or `startup` of its own; its marks are Lambda's own figures:
 * `init` is Init Duration (Lambda's INIT phase) and `firstResponse` is Init Duration + Duration
 * (INIT, then the first invocation). Lambda's time before INIT (placing the environment, fetching
 * the code) is in neither figure, as Lambda does not report it.
 */
import path from 'node:path';
import { makeCell, type Cell } from '../core/cell.ts';
import type { LambdaFigures, SampleRecord } from '../core/samples.ts';
import type { FunctionCell } from '../core/function-name.ts';
import { formatSource, type SourcedInitFailure, type SourcedReport } from './report-lines.ts';
import type { Architecture } from '../core/lambda-platform.ts';

export const AWS_LAMBDA_TARGET = 'aws-lambda';

/** A cell measured on AWS Lambda: a bundle on Node, at one memory size. */
export interface AwsLambdaCell extends Cell {
  target: typeof AWS_LAMBDA_TARGET;
  /** the function's memory size in MB (Lambda scales CPU with it) */
  memory: number;
}

/** Lambda's figures for one cold start, as its REPORT line gave them, and where they came from. */
export interface ReportFigures extends LambdaFigures {
  functionName: string;
  requestId: string;
  memorySizeMB: number;
  maxMemoryUsedMB: number;
  /** when the user said which architecture the function ran on (REPORT lines do not say) */
  architecture?: Architecture;
  /** Lambda's Status and Error Type, on a failed invocation */
  status?: string;
  errorType?: string;
  /** the file (its name only) and line or record the figures were read from */
  source: string;
}

/** Marks of a cold start on Lambda, in ms from the start of INIT. */
export interface LambdaMarks {
  init: number;
  firstResponse: number;
}

export interface AwsLambdaSampleRecord extends Omit<SampleRecord, 'cell' | 'marks'> {
  cell: AwsLambdaCell;
  marks?: LambdaMarks;
  lambda: ReportFigures;
}

export function awsLambdaCell(cell: FunctionCell, memoryMB: number): AwsLambdaCell {
  return {
    ...makeCell({
      framework: cell.framework,
      variant: cell.variant,
      routes: cell.routes,
      runtime: 'node',
      build: 'bundle',
      compileCache: 'off',
      ...(cell.init ? { init: cell.init } : {}),
    }),
    target: AWS_LAMBDA_TARGET,
    memory: memoryMB,
  };
}

export interface RecordContext {
  functionName: string;
  /** 1-based, within the cell */
  index: number;
  /** used as `at` when the report has no timestamp */
  importedAt: string;
  architecture?: Architecture;
}

/** One cold start's REPORT line as a sample record. */
export function lambdaSampleRecord(report: SourcedReport, cell: FunctionCell, context: RecordContext): AwsLambdaSampleRecord {
  if (report.initMs === undefined) throw new Error(`${formatSource(report.source)} is a warm invocation, not a cold start`);
  const failed = report.status !== undefined && report.status !== 'success';
  // rounded to the microsecond, so that float addition does not print 235.15000000000001
  const total = Math.round((report.initMs + report.durationMs) * 1000) / 1000;
  const lambda: ReportFigures = {
    functionName: context.functionName,
    requestId: report.requestId,
    initMs: report.initMs,
    durationMs: report.durationMs,
    billedMs: report.billedMs,
    memorySizeMB: report.memorySizeMB,
    maxMemoryUsedMB: report.maxMemoryUsedMB,
    ...(context.architecture ? { architecture: context.architecture } : {}),
    ...(report.status !== undefined ? { status: report.status } : {}),
    ...(report.errorType !== undefined ? { errorType: report.errorType } : {}),
    source: formatSource({ ...report.source, file: path.basename(report.source.file) }),
  };
  return {
    cell: awsLambdaCell(cell, report.memorySizeMB),
    phase: 'sample',
    index: context.index,
    ok: !failed,
    ...(failed ? { error: `Lambda reported Status: ${report.status}${report.errorType ? ` (${report.errorType})` : ''}` } : {}),
    ...(failed ? {} : { marks: { init: report.initMs, firstResponse: total } }),
    lambda,
    durationMs: total,
    at: report.timestamp ?? context.importedAt,
  };
}

/**
 * An INIT that Lambda reported as failed (INIT_REPORT with Status timeout or error) as a failed sample
 * of its cell: a cold start that never served. Its figures say what the line said: the INIT's
 * duration when given; no invocation ran, so Duration and Max Memory Used are 0 (failed samples never
 * enter the statistics).
 */
export function initFailureRecord(
  init: SourcedInitFailure,
  cell: FunctionCell,
  memoryMB: number,
  context: RecordContext,
): AwsLambdaSampleRecord {
  const initMs = init.initMs ?? 0;
  const lambda: ReportFigures = {
    functionName: context.functionName,
    requestId: 'INIT_REPORT',
    initMs,
    durationMs: 0,
    billedMs: Math.ceil(initMs),
    memorySizeMB: memoryMB,
    maxMemoryUsedMB: 0,
    ...(context.architecture ? { architecture: context.architecture } : {}),
    status: init.status,
    ...(init.errorType !== undefined ? { errorType: init.errorType } : {}),
    source: formatSource({ ...init.source, file: path.basename(init.source.file) }),
  };
  const details = [
    init.errorType,
    init.phase ? `phase ${init.phase}` : undefined,
    init.initMs !== undefined ? `after ${initMs} ms` : undefined,
  ];
  return {
    cell: awsLambdaCell(cell, memoryMB),
    phase: 'sample',
    index: context.index,
    ok: false,
    error: `Lambda reported INIT_REPORT Status: ${init.status}${details.some(Boolean) ? ` (${details.filter(Boolean).join(', ')})` : ''}`,
    lambda,
    durationMs: initMs,
    at: init.timestamp ?? context.importedAt,
  };
}
