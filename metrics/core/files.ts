/**
 * Files appear whole or not at all: every artefact is written to a temporary name beside it and
 * renamed over it, so a full disk or a killed process never leaves a truncated report, CSV or chart;
 * samples.jsonl grows by whole lines. Any refusal is an EnvironmentError that names the file.
 *
 * Hand-written rather than write-file-atomic: that package writes with one writeSync and does not
 * check for a short write, which is what a filling disk returns before ENOSPC: the full-disk test
 * found a truncated chart renamed into place.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { EnvironmentError, UsageError } from './errors.ts';

function why(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'ENOSPC') return 'ENOSPC: no space left on device';
  if (code === 'EISDIR') return 'EISDIR: a folder is in the way';
  return code ?? message;
}

export function fileError(file: string, error: unknown, verb = 'write'): EnvironmentError {
  return new EnvironmentError(`cannot ${verb} ${file} (${why(error)})`);
}

/** Write all of `bytes` to `fd`: a short write is followed by another until done or an error is thrown. */
/** Every byte written, however many short writes a filling disk makes first. */
export function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) {
    const wrote = writeSync(fd, bytes, done, bytes.length - done);
    if (wrote <= 0) throw Object.assign(new Error('no progress writing'), { code: 'EIO' });
    done += wrote;
  }
}

let temporaries = 0;
/** Temporary files of this process not renamed yet: removed if the process exits first. */
const pending = new Set<string>();
process.on('exit', () => {
  for (const file of pending) {
    try {
      unlinkSync(file);
    } catch {
      // gone already
    }
  }
});

/** The temporary name of `file`: hidden, beside it (a rename within one folder is atomic). */
export function temporaryName(file: string): string {
  temporaries += 1;
  return path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${temporaries}`);
}

/** Write `data` to `file` through a temporary file and a rename; nothing half-written is ever left. */
export function writeFileWhole(file: string, data: string | Uint8Array): void {
  const temporary = temporaryName(file);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let fd: number | undefined;
  try {
    fd = openSync(temporary, 'wx', 0o644);
    pending.add(temporary);
    writeAll(fd, bytes);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temporary, file);
    pending.delete(temporary);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temporary);
    } catch {
      // never made
    }
    pending.delete(temporary);
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
    writeAll(fd, Buffer.from(line.endsWith('\n') ? line : `${line}\n`, 'utf8'));
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

/**
 * A text file read whole, bounded before it is read: at most `maxBytes` (more is a UsageError naming
 * the bound), a pipe or socket refused rather than waited on, a device read up to the bound only (so
 * `/dev/zero` is refused, not read until memory runs out). `what` names the input in the message.
 */
export function readTextBounded(file: string, maxBytes: number, what: string): string {
  const stat = statSync(file);
  if (stat.isFIFO() || stat.isSocket()) throw new UsageError(`${file} is a pipe or socket: ${what} must be a file`);
  if (stat.isDirectory()) throw new UsageError(`${file} is a folder, not ${what}`);
  const limit = `${what} is at most ${maxBytes >= 1024 * 1024 ? `${maxBytes / 1024 / 1024} MB` : `${maxBytes} bytes`}`;
  if (stat.isFile() && stat.size > maxBytes) throw new UsageError(`${file} is too large: ${limit}`);
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(maxBytes, stat.isFile() ? stat.size : maxBytes) + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > maxBytes) throw new UsageError(`${file} is too large: ${limit}`);
      if (length === buffer.length) break;
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
