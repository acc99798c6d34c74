/**
 * Files appear whole or not at all: every artefact is written to a temporary name beside it and
 * renamed over it (write-file-atomic), so a full disk or a killed process never leaves a truncated
 * report, CSV or chart; samples.jsonl grows by whole lines. Any refusal is an EnvironmentError that
 * names the file.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import writeFileAtomic from 'write-file-atomic';
import { EnvironmentError } from './errors.ts';

function why(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'ENOSPC') return 'ENOSPC: no space left on device';
  if (code === 'EISDIR') return 'EISDIR: a folder is in the way';
  return code ?? message;
}

export function fileError(file: string, error: unknown, verb = 'write'): EnvironmentError {
  return new EnvironmentError(`cannot ${verb} ${file} (${why(error)})`);
}

/** Write `data` to `file` through a temporary file and a rename; nothing half-written is ever left. */
export function writeFileWhole(file: string, data: string | Uint8Array): void {
  try {
    writeFileAtomic.sync(file, typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  } catch (error) {
    throw fileError(file, error);
  }
}

/** Append one line; when it cannot be written whole, the file is cut back to where it was. */
export function appendLine(file: string, line: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'a');
  } catch (error) {
    throw fileError(file, error);
  }
  let size = 0;
  try {
    size = fstatSync(fd).size;
    const bytes = Buffer.from(line.endsWith('\n') ? line : `${line}\n`, 'utf8');
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } catch (error) {
    try {
      ftruncateSync(fd, size);
    } catch {
      // the error that matters is the write's
    }
    throw fileError(file, error);
  } finally {
    closeSync(fd);
  }
}
