// What the command line needs before tsx loads it, checked in plain JavaScript (imported first: by
// bin/coldstart.js, and by each npm script as `node --import ./bin/preflight.js --import tsx …`).
// tsx compiles the TypeScript sources into a cache under the temporary folder and opens a few dozen
// files at once; without a writable TMPDIR or with a low open-file limit it failed with a stack trace
// from deep inside tsx or esbuild (or, with TMPDIR=/proc, spun forever). Here each is one line on
// stderr and exit 4 (the machine refused something: README's exit codes). What still fails later
// with EMFILE, or inside tsx, is caught the same way.
import { mkdtempSync, readFileSync, rmdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

/** README's exit codes: the machine refusing something, a bug (metrics/core/exit-codes.ts; test/unit/exit-codes.test.ts checks). */
const EXIT_ENVIRONMENT = 4;
const EXIT_BUG = 70;
/**
 * The fewest open files the tool runs with: tsx, esbuild, a run's pipes and sockets, the report's
 * modules (at 64 a small run's report failed with EMFILE; at 128 it is written).
 */
const MIN_OPEN_FILES = 128;

function refuse(line) {
  // one printable line whatever a path or message holds
  const printable = [...line]
    .map((c) => (c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) < 0xa0) ? ' ' : c))
    .join('');
  process.stderr.write(`coldstart: ${printable}\n`);
  process.exit(EXIT_ENVIRONMENT);
}

/** The soft open-file limit, or undefined when it cannot be read. */
function openFileLimit() {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === 'unlimited') return Infinity;
    if (soft !== undefined && /^\d+$/.test(soft)) return Number(soft);
  } catch {
    // not Linux: ask a shell
  }
  // a shell's builtin: milliseconds; past 10 s (metrics/core/child-deadlines.ts's probe) the limit is not known, as on a failure
  const shell = spawnSync('/bin/sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 10_000, killSignal: 'SIGKILL' });
  const text = shell.stdout?.trim();
  if (text === 'unlimited') return Infinity;
  return text && /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Why the temporary folder cannot hold tsx's cache, or undefined when it can. */
function temporaryFolderProblem() {
  const dir = os.tmpdir();
  try {
    rmdirSync(mkdtempSync(path.join(dir, 'coldstart-preflight-')));
    return undefined;
  } catch (error) {
    return `the temporary folder ${dir} (TMPDIR) cannot be written (${error.code ?? error.message}): set TMPDIR to a writable folder`;
  }
}

function tooFewFiles(limit) {
  return `the open-file limit is ${limit} (ulimit -n), under the ${MIN_OPEN_FILES} the tool needs: raise it (ulimit -n 1024)`;
}

function preflight() {
  const limit = openFileLimit();
  if (limit !== undefined && limit < MIN_OPEN_FILES) refuse(tooFewFiles(limit));
  const problem = temporaryFolderProblem();
  if (problem) refuse(problem);
  // what still goes wrong while tsx loads the sources (or later, out of files): one line, not a trace
  process.on('uncaughtException', (error) => {
    const code = error?.code;
    if (code === 'EMFILE' || code === 'ENFILE')
      refuse(`out of open files (${code}${error.path ? `, at ${error.path}` : ''}): raise the limit (ulimit -n 1024)`);
    const where = String(error?.stack ?? '');
    if (/[\\/]node_modules[\\/](tsx|esbuild)[\\/]/.test(where))
      refuse(`cannot load the command line (tsx: ${error?.message ?? error}); check TMPDIR and the open-file limit`);
    process.stderr.write(`coldstart: internal error: ${String(error?.message ?? error).replace(/\s*\n\s*/g, ' ')}\n`);
    process.exit(EXIT_BUG);
  });
}

preflight();
