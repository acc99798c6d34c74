/**
 * The compile-cache directories of one run, under its scratch folder: `cold` gets a fresh empty one
 * per run (removed after it), `warm` one per cell, filled by an unrecorded run before the cell's
 * first planned run. Everything goes with cleanup() (and with the scratch folder).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { cellKey, type Cell } from '../core/cell.ts';
import type { SampleRecord } from '../core/samples.ts';
import { treeBytes } from '../plan/shipped.ts';

/** Runs one sample with the cache directory it is given (none for `off`); `recorded` false for a fill. */
export type MeasureWith = (cacheDir: string | undefined, recorded: boolean) => Promise<SampleRecord>;

export class CompileCacheDirs {
  private readonly root: string;
  private readonly warmDirs = new Map<string, string>();
  /** the unrecorded runs that filled warm caches: cellKey → what happened */
  readonly fills = new Map<string, SampleRecord>();

  constructor(
    scratch: string,
    /** true once the run is interrupted: no sample starts after a warm cache's fill */
    private readonly stopped: () => boolean = () => false,
  ) {
    this.root = path.join(scratch, 'compile-cache');
  }

  private fresh(prefix: string): string {
    mkdirSync(this.root, { recursive: true });
    return mkdtempSync(path.join(this.root, prefix));
  }

  /** One run of `cell` with the right cache directory for its compile-cache mode. */
  async run(cell: Cell, measure: MeasureWith): Promise<SampleRecord> {
    switch (cell.compileCache) {
      case 'cold': {
        const dir = this.fresh('cold-');
        try {
          return await measure(dir, true);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      case 'warm': {
        const key = cellKey(cell);
        let dir = this.warmDirs.get(key);
        if (!dir) {
          dir = this.fresh('warm-');
          this.warmDirs.set(key, dir);
          const fill = await measure(dir, false);
          this.fills.set(key, fill);
          if (this.stopped()) return fill;
        }
        return measure(dir, true);
      }
      default:
        return measure(undefined, true);
    }
  }

  /** A directory for a cell's runs outside this class's own loop (hyperfine): fresh for cold, shared for warm. */
  dirFor(cell: Cell): string | undefined {
    if (cell.compileCache === 'off') return undefined;
    if (cell.compileCache === 'cold') return this.fresh('cold-');
    const key = cellKey(cell);
    let dir = this.warmDirs.get(key);
    if (!dir) {
      dir = this.fresh('warm-');
      this.warmDirs.set(key, dir);
    }
    return dir;
  }

  /** cellKey → the bytes each warm cache holds (what a cache made at build time would ship); read before cleanup() */
  bytes(): Record<string, number> {
    return Object.fromEntries([...this.warmDirs].map(([key, dir]) => [key, treeBytes(dir)]));
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
    this.warmDirs.clear();
  }
}
