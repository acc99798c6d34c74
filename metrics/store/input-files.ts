/**
 * Bounded reads of input: a file opened without following it into a special file, read whole up to a cap
 * or line by line in bounded memory, and the check of an app's file.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { UsageError } from '../core/errors.ts';

/** A size as the bounds are written in messages and `--help`: `6 MB`, `64 KiB`… (MB here means MiB, as elsewhere). */
export function sizeText(bytes: number): string {
  if (bytes >= 2 ** 20 && bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * An input opened for reading, its kind checked on the opened descriptor (fstat), never on the path
 * first: opened non-blocking, so a FIFO with no writer is refused at once instead of waited on; a
 * folder, a pipe or a socket is a UsageError; a device only when `devices` allows it (read up to the
 * caller's bound). Errors of the open itself (ENOENT, EACCES) are thrown as they are, for the caller
 * to name. Returns the descriptor (the caller closes it) and the file's size (0 for a device).
 */
export function openInput(file: string, what: string, options: { devices?: boolean } = {}): { fd: number; size: number } {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new UsageError(`${file} is a folder, not ${what}`);
    if (stat.isFIFO() || stat.isSocket()) throw new UsageError(`${file} is a pipe or socket: ${what} must be a file`);
    if (!stat.isFile() && !options.devices) throw new UsageError(`${file} is a device: ${what} must be a file`);
    return { fd, size: stat.isFile() ? stat.size : 0 };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** readSync that reports a device with nothing to give yet (EAGAIN: a terminal) as a refusal, not a crash. */
function readSome(fd: number, buffer: Buffer, offset: number, length: number, file: string, what: string): number {
  try {
    return readSync(fd, buffer, offset, length, null);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') throw new UsageError(`${file} has nothing to read yet: ${what} must be a file`);
    throw error;
  }
}

/**
 * A text file read whole, bounded before it is read: at most `maxBytes` (more is a UsageError naming
 * the bound, before a byte is read when the file says its size), a pipe or socket refused rather than
 * waited on, a device read up to the bound only (so `/dev/zero` is refused, not read until memory
 * runs out). `what` names the input in the message. With `prefix`, only the first `maxBytes` are read
 * and returned, whatever the size (to tell a file's format from its start).
 */
export function readTextBounded(file: string, maxBytes: number, what: string, options: { prefix?: boolean } = {}): string {
  return readBytesBounded(file, maxBytes, what, options).toString('utf8');
}

/** readTextBounded's bytes, for an input that is not text (a function's zip). */
export function readBytesBounded(file: string, maxBytes: number, what: string, options: { prefix?: boolean } = {}): Buffer {
  const { fd, size } = openInput(file, what, { devices: true });
  try {
    const limit = `${what} is at most ${sizeText(maxBytes)}`;
    if (!options.prefix && size > maxBytes) throw new UsageError(`${file} is too large: ${limit}`);
    // a regular file: its size, and one byte more to see it did not grow; a device: the bound and one byte more
    const buffer = Buffer.alloc(Math.min(maxBytes, size > 0 ? size : maxBytes) + 1);
    let length = 0;
    for (;;) {
      const read = readSome(fd, buffer, length, buffer.length - length, file, what);
      if (read === 0) break;
      length += read;
      if (length > maxBytes) {
        if (options.prefix) return buffer.subarray(0, maxBytes);
        throw new UsageError(`${file} is too large: ${limit}`);
      }
      if (length === buffer.length) break;
    }
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** Small enough that each chunk and each line read are short-lived young objects, not large ones kept to the next full GC. */
const CHUNK_BYTES = 64 * 1024;

export interface LineReading {
  /** lines longer than this many bytes are not passed on */
  maxLine: number;
  /** what an overlong line does: 'skip' passes on nothing (`skipped` counts it), 'error' throws a UsageError naming its line */
  overlong: 'skip' | 'error';
  /** called once per skipped overlong line, with its number */
  skipped?: (number: number) => void;
}

/**
 * Call `each` with every line of a file (without its newline) and its 1-based number, reading 64 KiB
 * at a time and decoding line by line (a newline byte is never inside a UTF-8 character): memory
 * stays bounded by the chunk and `maxLine`, whatever the file's size, even without a newline in it.
 * Only a regular file is read (a pipe, socket, folder or device is a UsageError), and only up to the
 * size it had when opened, so a file that grows while it is read still ends. `what` names the input
 * in messages.
 */
export function readLinesBounded(file: string, what: string, reading: LineReading, each: (line: string, number: number) => void): void {
  const { fd, size } = openInput(file, what);
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    // the start of the current line, copied out of earlier chunks
    let pieces: Buffer[] = [];
    let pending = 0;
    let number = 0;
    // inside an overlong line already counted: skip to its end
    let skipping = false;
    const overlong = () => {
      number++;
      if (reading.overlong === 'error') {
        throw new UsageError(`${file}:${number} is longer than ${sizeText(reading.maxLine)}: ${what} has no line that long`);
      }
      reading.skipped?.(number);
    };
    for (let left = size; left > 0;) {
      const read = readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, left), null);
      // the file shrank while read
      if (read === 0) break;
      left -= read;
      const chunk = buffer.subarray(0, read);
      let from = 0;
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, from)) {
        if (skipping) skipping = false;
        else if (pending + at - from > reading.maxLine) overlong();
        else if (pending === 0) each(chunk.toString('utf8', from, at), ++number);
        else each(Buffer.concat([...pieces, chunk.subarray(from, at)]).toString('utf8'), ++number);
        pieces = [];
        pending = 0;
        from = at + 1;
      }
      if (from === read || skipping) continue;
      pending += read - from;
      if (pending > reading.maxLine) {
        overlong();
        skipping = true;
        pieces = [];
        pending = 0;
      } else {
        // a copy: the buffer is read into again
        pieces.push(Buffer.from(chunk.subarray(from)));
      }
    }
    if (pending > 0) each(Buffer.concat(pieces).toString('utf8'), ++number);
  } finally {
    closeSync(fd);
  }
}

/** An app's file (measure's --entry) must exist and be a file and be a file: a one-line UsageError otherwise. */
export function checkAppFile(option: string, file: string): string {
  if (!existsSync(file)) throw new UsageError(`${option}: ${file} does not exist`);
  if (!statSync(file).isFile()) throw new UsageError(`${option}: ${file} is not a file`);
  return file;
}
