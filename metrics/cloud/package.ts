/**
 * A deployable package of Lambda cells: in DIR, `functions/<function name>.zip` per cell (its bundled
 * handler as `index.js`), an AWS SAM `template.yaml` (sam-template.ts) and a README.txt.
 *
 * Zips are written with fflate: synchronous, no dependencies, and it takes each entry's time and
 * attributes, so a zip is a pure function of the bundle's bytes (fixed time, one entry, fixed
 * compression level). Everything is checked and built in memory before the first byte is written;
 * a write that fails removes what this call wrote.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';
import { contractOf, PROBE_NAME, routePath } from '../../generators/contract.ts';
import { DEFAULT_EVENT_FORMAT, type EventFormat } from '../../generators/types.ts';
import type { Contract } from '../../generators/types.ts';
import { EnvironmentError, UsageError } from '../core/errors.ts';
import { ownedDir, writeOwnedFile } from '../store/files.ts';
import { checkOutDir, makeWritableDir, type FolderKind } from '../store/out-dir.ts';
import { functionName, FunctionNameError, type FunctionCell } from '../core/function-name.ts';
import { packageReadme } from './package-readme.ts';
import { samTemplateYaml } from './sam-template.ts';
import {
  parseLambdaRuntime,
  isArchitecture,
  MAX_MEMORY_MB,
  MIN_MEMORY_MB,
  type Architecture,
  DEFAULT_MEMORY_MB,
  DEFAULT_ARCHITECTURE,
  DEFAULT_LAMBDA_RUNTIME,
} from '../core/lambda-platform.ts';

export const TEMPLATE_FILE = 'template.yaml';
export const README_FILE = 'README.txt';
export const FUNCTIONS_DIR = 'functions';
/**
 * The name of the handler file inside every zip (`index.handler`): index.js, or index.mjs for an ES
 * module (an eager handler's bundle; Lambda's Node runtime loads index.mjs for the same Handler setting).
 */
export function handlerFileOf(bundle: string): string {
  return bundle.endsWith('.mjs') ? 'index.mjs' : 'index.js';
}

export interface PackageCell {
  cell: FunctionCell;
  /** the cell's bundled Lambda handler: one self-contained file exporting `handler` */
  bundle: string;
  /** the framework's request shape when it is not the default `{"name": …}` */
  contract?: Partial<Omit<Contract, 'eventFormat'>>;
  /** the payload format its adapter reads (default 2.0): the function's HTTP API sends that */
  eventFormat?: EventFormat;
}

export interface PackageOptions {
  runtime?: string;
  /** the template's default memory size, MB */
  memorySize?: number;
  /** the template's default architecture */
  architecture?: string;
}

export interface PackagedFunction {
  functionName: string;
  /** the zip's path */
  zip: string;
  bytes: number;
}

export interface PackageResult {
  dir: string;
  template: string;
  readme: string;
  functions: PackagedFunction[];
}

/** `-rw-r--r--` on a regular file: Lambda's runtime user must be able to read the handler. */
const UNIX_FILE_MODE = 0o100644;
const UNIX = 3;

/** A zip holding `source` as index.js (or `file`); the same bytes in give the same zip out. */
export function zipHandler(source: Uint8Array, file = 'index.js'): Uint8Array {
  // dated 1980-01-01 00:00, the zip format's earliest time, built in local time (now, in the zone in
  // force) because zip times are local-time fields: every time zone writes the same bytes
  const time = new Date(1980, 0, 1, 0, 0, 0);
  return zipSync({ [file]: [source, { mtime: time, os: UNIX, attrs: UNIX_FILE_MODE << 16 }] }, { level: 9, mtime: time });
}

function checkOptions(options: PackageOptions): { runtime: string; memorySize: number; architecture: Architecture } {
  const runtime = options.runtime ?? DEFAULT_LAMBDA_RUNTIME;
  parseLambdaRuntime('--runtime', runtime, false);
  const memorySize = options.memorySize ?? DEFAULT_MEMORY_MB;
  if (!Number.isInteger(memorySize) || memorySize < MIN_MEMORY_MB || memorySize > MAX_MEMORY_MB) {
    throw new UsageError(`--memory must be an integer from ${MIN_MEMORY_MB} to ${MAX_MEMORY_MB} MB, got ${memorySize}`);
  }
  const architecture = options.architecture ?? DEFAULT_ARCHITECTURE;
  if (!isArchitecture(architecture)) throw new UsageError(`--architecture must be x86_64 or arm64, got ${architecture}`);
  return { runtime, memorySize, architecture };
}

/**
 * A package's files into `dir` (made, checked writable): each zip at its key, the template and the README, never
 * written through a link (store/files.ts). On a failure what this call wrote is undone, and the error is one line.
 */
export function writePackageFolder(dir: string, zips: readonly { key: string; zip: Uint8Array }[], template: string, readme: string): void {
  const made = makeWritableDir(dir);
  const created: string[] = [];
  try {
    created.push(ownedDir(dir, FUNCTIONS_DIR));
    for (const z of zips) writeOwnedFile(dir, z.key, z.zip);
    created.push(writeOwnedFile(dir, TEMPLATE_FILE, template));
    writeOwnedFile(dir, README_FILE, readme);
    created.push(path.join(dir, README_FILE));
  } catch (error) {
    // undo what this call wrote; a folder that could not be made (e.g. under a file) needs nothing
    for (const entry of made.length > 0 ? [made[0]!] : created) {
      try {
        rmSync(entry, { recursive: true, force: true });
      } catch {
        // the error that matters is the write's, reported below
      }
    }
    if (error instanceof EnvironmentError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new EnvironmentError(`cannot write the package into ${dir} (${code ?? (error as Error).message})`);
  }
}

/** A package folder, as an --out that exists: its template.yaml marks it as the tool's own (then refused below: it holds a package). */
const PACKAGE_FOLDER: FolderKind = { what: 'a package folder', markers: [TEMPLATE_FILE] };

/** Refuse a folder that cannot take a package (a file, a kernel filesystem, one that holds a package). */
export function checkPackageDir(dir: string): void {
  if (checkOutDir(dir, '--out', PACKAGE_FOLDER).length > 0) return;
  if (!statSync(dir).isDirectory()) throw new UsageError(`--out ${dir} is a file, not a folder`);
  for (const entry of [TEMPLATE_FILE, FUNCTIONS_DIR, README_FILE]) {
    if (existsSync(path.join(dir, entry)))
      throw new UsageError(`--out ${dir} already holds a package (${entry}): choose another folder or remove it`);
  }
}

function readBundle(bundle: string, name: string): Buffer {
  try {
    return readFileSync(bundle);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`the bundle of ${name} cannot be read (${code ?? 'error'}): ${bundle}`);
  }
}

/** Write the package of `cells` into `dir` (created if missing). */
export function writeLambdaPackage(dir: string, cells: PackageCell[], options: PackageOptions = {}): PackageResult {
  if (cells.length === 0) throw new UsageError('no Lambda cells to package: the selection is empty');
  const checked = checkOptions(options);
  checkPackageDir(dir);
  const names = new Set<string>();
  const built = cells.map((entry) => {
    let name: string;
    try {
      name = functionName(entry.cell);
    } catch (error) {
      if (error instanceof FunctionNameError) throw new UsageError(error.message);
      throw error;
    }
    if (names.has(name)) throw new UsageError(`${name} is selected twice`);
    names.add(name);
    const zip = zipHandler(readBundle(entry.bundle, name), handlerFileOf(entry.bundle));
    const codeUri = `${FUNCTIONS_DIR}/${name}.zip`;
    // the request a user sends to force a cold start: the LAST route (routes are numbered from 0)
    const last = entry.cell.routes - 1;
    const request = { path: routePath(last), body: contractOf({ contract: entry.contract }).validBody(last, PROBE_NAME) };
    return { name, zip, codeUri, request, cell: entry.cell, eventFormat: entry.eventFormat ?? DEFAULT_EVENT_FORMAT };
  });
  const template = samTemplateYaml(
    built.map((b) => ({
      functionName: b.name,
      codeUri: b.codeUri,
      description: `coldstart ${b.cell.framework}, ${b.cell.routes} route${b.cell.routes === 1 ? '' : 's'}, ${b.cell.variant}`,
      request: b.request,
      eventFormat: b.eventFormat,
    })),
    checked,
  );
  const readme = packageReadme(
    built.map((b) => ({ functionName: b.name, zip: b.codeUri, request: b.request })),
    checked,
  );

  writePackageFolder(
    dir,
    built.map((b) => ({ key: b.codeUri, zip: b.zip })),
    template,
    readme,
  );
  return {
    dir,
    template: path.join(dir, TEMPLATE_FILE),
    readme: path.join(dir, README_FILE),
    functions: built.map((b) => ({ functionName: b.name, zip: path.join(dir, b.codeUri), bytes: b.zip.length })),
  };
}
