/**
 * What each cell would ship, in bytes (the levers' answer table): a bundled build ships its bundle
 * (one file; its source map and metafile stay behind); a plain build ships the app's own files and
 * the whole folder of every package it loads (what an install puts in node_modules for them), found
 * by esbuild's metafile of the file (its static imports and requires; a package only reached by a
 * computed `require` is missed). A compile cache that ships is added by the report from what the
 * run's warm fill wrote (measure/compile-cache.ts).
 */
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../generators/registry.ts';
import type { ShippedCode } from '../core/meta.ts';
import { cellKey } from '../core/cell.ts';
import { packageFolderOf } from '../core/packages.ts';
import type { Build } from '../core/dimensions.ts';
import type { PlannedCell } from './cells.ts';
import { snapshotPaths } from './snapshot.ts';
import { buildWithService } from './esbuild-service.ts';

/** The bytes of every regular file under `dir`, symbolic links not followed, `node_modules` folders left out. */
export function treeBytes(dir: string): number {
  let total = 0;
  const walk = (folder: string) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(full);
      } else if (entry.isFile()) total += lstatSync(full).size;
    }
  };
  walk(dir);
  return total;
}

/** The files a plain file loads (its own and its packages'), from esbuild's metafile; an error line when esbuild cannot follow it. */
async function loadedFiles(file: string): Promise<string[] | { error: string }> {
  try {
    // only the metafile: nothing is written; ESM output takes a CommonJS app and an ESM one with top-level await alike
    const result = await buildWithService({
      entryPoints: [file],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
      absWorkingDir: PROJECT_ROOT,
    });
    return Object.keys(result.metafile.inputs)
      .filter((input) => !input.includes(':') || input.startsWith('/'))
      .map((input) => path.resolve(PROJECT_ROOT, input));
  } catch (error) {
    // esbuild's first error in the code, else its own line (a service that died twice: plan/esbuild-service.ts)
    const first =
      (error as { errors?: { text?: string }[] }).errors?.[0]?.text ?? (error instanceof Error ? error.message.split('\n')[0] : undefined);
    return { error: `esbuild cannot follow its imports${first ? ` (${first.replace(/\s+/g, ' ')})` : ''}` };
  }
}

/** What a plain build ships: the app's own loaded files and its packages' whole folders. */
export async function plainShipped(file: string): Promise<ShippedCode> {
  const loaded = await loadedFiles(file);
  if (!Array.isArray(loaded)) return { what: `plain: ${loaded.error}` };
  const own = loaded.filter((f) => packageFolderOf(f) === undefined);
  const packages = [...new Set(loaded.flatMap((f) => packageFolderOf(f) ?? []))];
  const bytes = own.reduce((sum, f) => sum + statSync(f).size, 0) + packages.reduce((sum, dir) => sum + treeBytes(dir), 0);
  const what =
    `the app's ${own.length} file${own.length === 1 ? '' : 's'} and the ${packages.length} ` +
    `package folder${packages.length === 1 ? '' : 's'} it loads`;
  return { bytes, what };
}

const SHIPPED_WHAT: Record<Build, string> = {
  plain: 'the files',
  bundle: 'the bundle',
  'bundle-min': 'the minified bundle',
  snapshot: "the startup snapshot's blob",
};

/** The file a planned cell's build is: the user's app (or its bundle), else the generated file (or its bundle). */
function buildFileOf(planned: PlannedCell): string | undefined {
  const file = planned.app?.file ?? planned.launch?.file;
  // a snapshot ships its blob (and needs the node build that wrote it), not its bundle
  return planned.cell.build === 'snapshot' && file ? snapshotPaths(file).blob : file;
}

/**
 * cellKey → what the cell's build ships, for every cell that runs and whose file is on disk (the fake
 * cell source writes none). Files shared by several cells (runtimes, compile caches) are read once.
 */
export async function shippedOfCells(cells: readonly PlannedCell[]): Promise<Record<string, ShippedCode>> {
  const byFile = new Map<string, Promise<ShippedCode>>();
  const shipped: Record<string, ShippedCode> = {};
  for (const planned of cells) {
    const file = buildFileOf(planned);
    if (planned.blocked || !file || !existsSync(file)) continue;
    let entry = byFile.get(file);
    if (!entry) {
      entry =
        planned.cell.build === 'plain'
          ? plainShipped(file)
          : Promise.resolve({ bytes: statSync(file).size, what: SHIPPED_WHAT[planned.cell.build] });
      byFile.set(file, entry);
    }
    shipped[cellKey(planned.cell)] = await entry;
  }
  return shipped;
}
