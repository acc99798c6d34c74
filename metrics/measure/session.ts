/**
 * One measurement session, shared by `run` and `hyperfine`: the run folder (checked and made before
 * anything is measured), a scratch folder the children run in (some frameworks write files into
 * their cwd), the interrupt guard (Ctrl-C kills every live child and stops the loop after the item
 * in flight), and the cleanup that leaves nothing behind.
 */
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../generators/registry.ts';
import { UsageError } from '../core/errors.ts';
import { catchInterrupts, killAll, liveChildren, type InterruptGuard } from './children.ts';

export const RESULTS_DIR = path.join(PROJECT_ROOT, 'results');

export function timestampName(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
}

function code(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/**
 * Make `dir` one level at a time (a recursive mkdir can loop forever under /proc) and check that it
 * is a writable folder; any problem is a one-line UsageError naming the path.
 */
export function makeWritableDir(dir: string, option = '--out'): string[] {
  const missing: string[] = [];
  let existing = dir;
  while (!existsSync(existing)) {
    missing.unshift(existing);
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  try {
    if (!statSync(existing).isDirectory()) throw new UsageError(`${option}: ${dir} is not a folder (${existing} is a file)`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${option}: cannot use ${dir} (${code(error)})`);
  }
  for (const part of missing) {
    try {
      mkdirSync(part);
    } catch (error) {
      throw new UsageError(`${option}: cannot create ${dir} (${code(error)} at ${part})`);
    }
  }
  try {
    accessSync(dir, constants.W_OK);
    const probe = mkdtempSync(path.join(dir, '.coldstart-'));
    rmSync(probe, { recursive: true, force: true });
  } catch (error) {
    throw new UsageError(`${option}: cannot write in ${dir} (${code(error)})`);
  }
  return missing;
}

export interface SessionOptions {
  /** the folder the user named, or undefined for results/<timestamp>/ */
  out: string | undefined;
  /** a file whose presence means the folder already holds this kind of run (refused) */
  marker: string;
  /** what to call that kind of run in the refusal */
  what: string;
  startedAt?: Date;
}

export class MeasurementSession {
  readonly dir: string;
  readonly scratch: string;
  readonly startedAt: Date;
  private readonly guard: InterruptGuard;
  /** the folders this session made, outermost first: removed by abandon() while still empty */
  private readonly made: string[];

  constructor(options: SessionOptions) {
    this.startedAt = options.startedAt ?? new Date();
    const dir = path.resolve(options.out ?? path.join(RESULTS_DIR, timestampName(this.startedAt)));
    if (existsSync(path.join(dir, options.marker))) {
      throw new UsageError(`${dir} already holds ${options.what} (${options.marker}): choose another --out`);
    }
    if (!options.out && existsSync(dir) && readdirSync(dir).length > 0) throw new UsageError(`${dir} exists and is not empty`);
    this.made = makeWritableDir(dir);
    this.dir = dir;
    this.scratch = mkdtempSync(path.join(os.tmpdir(), 'coldstart-'));
    this.guard = catchInterrupts();
  }

  get interrupted(): boolean {
    return this.guard.interrupted;
  }

  /** Run `step` on each item in order; stops (without starting another) once interrupted. */
  async each<T>(items: Iterable<T>, step: (item: T) => Promise<void>): Promise<void> {
    for (const item of items) {
      if (this.interrupted) break;
      await step(item);
    }
  }

  /**
   * Run `step` on the items with up to `jobs` in flight, taking them in order; stops starting new
   * ones once interrupted. With one job it is each().
   */
  async eachParallel<T>(items: Iterable<T>, jobs: number, step: (item: T) => Promise<void>): Promise<void> {
    if (jobs <= 1) return this.each(items, step);
    const iterator = items[Symbol.iterator]();
    const worker = async () => {
      for (let next = iterator.next(); !next.done && !this.interrupted; next = iterator.next()) await step(next.value);
    };
    await Promise.all(Array.from({ length: jobs }, worker));
  }

  /** Close, and remove the run folder again when this session made it and nothing was written (a usage error). */
  abandon(): void {
    this.close();
    for (const dir of [...this.made].reverse()) {
      try {
        if (readdirSync(dir).length > 0) break;
        rmSync(dir, { recursive: true, force: true });
      } catch {
        break;
      }
    }
  }

  /** Stop catching signals, kill anything still alive, remove the scratch folder. */
  close(): void {
    this.guard.dispose();
    if (liveChildren() > 0) killAll();
    rmSync(this.scratch, { recursive: true, force: true });
  }
}

/**
 * Open a session (the run folder checked and made), then `prepare` what it will measure; when that
 * fails (a usage error) the folder is removed again while still empty, and the error goes on.
 */
export async function openSession<T>(
  options: SessionOptions,
  prepare: () => Promise<T>,
): Promise<{ session: MeasurementSession; prepared: T }> {
  const session = new MeasurementSession(options);
  try {
    return { session, prepared: await prepare() };
  } catch (error) {
    session.abandon();
    throw error;
  }
}

/** results/latest names the newest run, when the run lives in results/. */
export function pointLatest(dir: string): void {
  if (path.dirname(dir) !== RESULTS_DIR) return;
  const link = path.join(RESULTS_DIR, 'latest');
  try {
    unlinkSync(link);
  } catch {
    // no previous link
  }
  symlinkSync(path.basename(dir), link);
}
