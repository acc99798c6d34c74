/**
 * One measurement session, shared by `run` and `hyperfine`: the run folder (checked, made and
 * locked before anything is measured), a scratch folder the children run in (some frameworks write
 * files into their cwd), what killed runs left behind (cleaned first), the interrupt guard (Ctrl-C
 * kills every live child and stops the loop after the item in flight; further signals do not kill
 * the report), and the cleanup that leaves nothing behind.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { INSTALLED, PROJECT_ROOT } from '../core/paths.ts';
import { UsageError } from '../core/errors.ts';
import { catchInterrupts, killAll, liveChildren, type InterruptGuard } from './children.ts';
import { cleanLeftovers, scratchPrefix } from './leftovers.ts';
import { makeWritableDir } from '../store/out-dir.ts';
import { RUN_FOLDER } from '../store/meta-file.ts';
import { refuseRunFolderLinks } from '../store/run-folder.ts';
import { isLockFile, lockFolder, type FolderLock } from './run-lock.ts';
import { useGenerated } from './generated-users.ts';

/**
 * Where a run without --out goes (results/<timestamp>/): results/ of the checkout, or, for the tool
 * installed in a project, results/ of the folder it was run from.
 */
export const RESULTS_DIR = path.join(INSTALLED ? process.cwd() : PROJECT_ROOT, 'results');

export function timestampName(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
}

/**
 * results/<timestamp>/, made atomically: a second run in the same second gets `<timestamp>-2`
 * (mkdir fails when the name exists, so two runs never share a default folder).
 */
function makeDefaultDir(date: Date): string {
  makeWritableDir(RESULTS_DIR, 'results');
  const base = path.join(RESULTS_DIR, timestampName(date));
  for (let n = 1; n < 1000; n++) {
    const dir = n === 1 ? base : `${base}-${n}`;
    try {
      mkdirSync(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new UsageError(`cannot create ${dir} (${(error as NodeJS.ErrnoException).code})`);
    }
  }
  throw new UsageError(`cannot find a free folder name for ${base}`);
}

export interface SessionOptions {
  /** the folder the user named, or undefined for results/<timestamp>/ */
  out: string | undefined;
  /** a file whose presence means the folder already holds this kind of run (refused) */
  marker: string;
  /** what to call that kind of run in the refusal */
  what: string;
  /** the command, named in the folder's lock */
  command: string;
  startedAt?: Date;
  /** where the session says what it cleaned up or took over */
  say?: (line: string) => void;
}

/** A path the run writes that exists as something else than a file (a folder in its way). */
function notAFile(dir: string, names: string[]): string | undefined {
  for (const name of names) {
    try {
      if (!statSync(path.join(dir, name)).isFile()) return name;
    } catch {
      // absent: fine
    }
  }
  return undefined;
}

export class MeasurementSession {
  readonly dir: string;
  readonly scratch: string;
  readonly startedAt: Date;
  private readonly guard: InterruptGuard;
  private readonly lock: FolderLock;
  /** the folders this session made, outermost first: removed by abandon() while still empty */
  private readonly made: string[];
  private closed = false;
  private readonly releaseOnExit = () => this.lock.release();
  /** ends this run's mark on generated/ (measure/generated-users.ts): clean refuses while it is there */
  private releaseGenerated: () => void = () => undefined;

  constructor(options: SessionOptions) {
    this.startedAt = options.startedAt ?? new Date();
    const say = options.say ?? ((line: string) => process.stderr.write(`coldstart: ${line}\n`));
    let dir: string;
    if (options.out) {
      dir = path.resolve(options.out);
      if (existsSync(path.join(dir, options.marker))) {
        throw new UsageError(`${dir} already holds ${options.what} (${options.marker}): choose another --out`);
      }
      // the user's folder is never written into (only a run folder, an empty one or a new one), nor a link inside a run folder followed
      this.made = makeWritableDir(dir, '--out', RUN_FOLDER);
      refuseRunFolderLinks(dir, 'run');
    } else {
      dir = makeDefaultDir(this.startedAt);
      this.made = [dir];
    }
    this.dir = dir;
    try {
      this.lock = lockFolder(dir, options.command, say);
    } catch (error) {
      this.removeMade();
      throw error;
    }
    process.on('exit', this.releaseOnExit);
    // another run may have written between our check and our lock
    const inTheWay = existsSync(path.join(dir, options.marker)) ? options.marker : notAFile(dir, [options.marker, 'meta.json']);
    if (inTheWay) {
      this.releaseLock();
      throw new UsageError(
        inTheWay === options.marker
          ? `${dir} already holds ${options.what} (${options.marker}): choose another --out`
          : `--out: ${path.join(dir, inTheWay)} is in the way (not a file): choose another --out`,
      );
    }
    cleanLeftovers(say);
    this.releaseGenerated = useGenerated();
    this.scratch = mkdtempSync(scratchPrefix());
    this.guard = catchInterrupts(say);
  }

  get interrupted(): boolean {
    return this.guard.interrupted;
  }

  /** the signal that interrupted the run, if one did */
  get signal(): NodeJS.Signals | undefined {
    return this.guard.signal;
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

  /** From here on the session writes its report: a further signal does not kill it (see catchInterrupts). */
  writingReport(): void {
    this.guard.writingReport(this.dir);
  }

  private releaseLock(): void {
    process.off('exit', this.releaseOnExit);
    this.lock.release();
    this.releaseGenerated();
  }

  private removeMade(): void {
    for (const dir of [...this.made].reverse()) {
      try {
        if (readdirSync(dir).some((name) => !isLockFile(name))) break;
        rmSync(dir, { recursive: true, force: true });
      } catch {
        break;
      }
    }
  }

  /** Finish, and remove the run folder again when this session made it and nothing was written (a usage error). */
  abandon(): void {
    this.finish();
    this.removeMade();
  }

  /** Kill anything still alive and remove the scratch folder; signals are still caught (the report follows). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (liveChildren() > 0) killAll();
    rmSync(this.scratch, { recursive: true, force: true });
  }

  /** The end: close, stop catching signals, release the folder. */
  finish(): void {
    this.close();
    this.guard.dispose();
    this.releaseLock();
  }
}

/**
 * Open a session (the run folder checked, made and locked), then `prepare` what it will measure;
 * when that fails (a usage error) the folder is removed again while still empty, and the error goes on.
 */
export async function openSession<T>(
  options: SessionOptions,
  prepare: (session: MeasurementSession) => Promise<T>,
): Promise<{ session: MeasurementSession; prepared: T }> {
  const session = new MeasurementSession(options);
  try {
    return { session, prepared: await prepare(session) };
  } catch (error) {
    session.abandon();
    throw error;
  }
}

/** results/latest names the newest run, when the run lives in results/. */
export function pointLatest(dir: string): void {
  if (path.dirname(dir) !== RESULTS_DIR) return;
  // a new link renamed over the old one: two runs ending together never find the name taken
  const link = path.join(RESULTS_DIR, 'latest');
  const temporary = path.join(RESULTS_DIR, `.latest-${process.pid}`);
  try {
    unlinkSync(temporary);
  } catch {
    // none left over
  }
  symlinkSync(path.basename(dir), temporary);
  renameSync(temporary, link);
}
