/**
 * Which npm package a script belongs to, from its file URL or path: `node_modules/<pkg>` or
 * `node_modules/@scope/pkg` (the innermost node_modules in the path), `(app)` for any other file,
 * `(coldstart)` for coldstart's own files, `(node)` for Node's internals. The CPU profile's
 * attribution (analyse/attribution.ts) and a bundle's bytes (measure/bundle-bytes.ts) both count by it; what a
 * plain build ships (plan/shipped.ts) takes each loaded package's whole folder.
 */

import path from 'node:path';

/** The owners that are not a package. */
export const OWNER = { app: '(app)', coldstart: '(coldstart)', node: '(node)', program: '(program)', gc: '(gc)', idle: '(idle)' } as const;

/** A file URL or path as a path (`file:///a/b.js` → `/a/b.js`); other URLs as they are. */
export function pathOf(url: string): string {
  if (!url.startsWith('file://')) return url;
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url.slice('file://'.length);
  }
}

/**
 * Where the package name stands in a path's parts: after the innermost `node_modules`, one part, or
 * two for a scoped package (`@scope/pkg`); undefined for a file in no package.
 */
function packageName(parts: readonly string[]): { from: number; to: number } | undefined {
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || !parts[at + 1]) return undefined;
  return { from: at + 1, to: parts[at + 1]!.startsWith('@') && parts[at + 2] ? at + 3 : at + 2 };
}

/** The package folder of a file (`…/node_modules/<pkg>` or `…/node_modules/@scope/pkg`); undefined for a file in no package. */
export function packageFolderOf(file: string): string | undefined {
  const parts = file.split(path.sep);
  const name = packageName(parts);
  return name && parts.slice(0, name.to).join(path.sep);
}

/** The owner of a frame's script: a package name, (app), (coldstart), (node), or '' for a native frame. */
export function ownerOf(url: string, coldstartFiles: readonly string[] = []): string {
  if (url === '') return '';
  if (url.startsWith('node:') || !/^(file:|\/|[A-Za-z]:\\)/.test(url)) return OWNER.node;
  const file = pathOf(url);
  const parts = file.split(/[\\/]/);
  const name = packageName(parts);
  if (name) return parts.slice(name.from, name.to).join('/');
  if (coldstartFiles.includes(file)) return OWNER.coldstart;
  return OWNER.app;
}

/** A module a start loaded: its file and its size on disk, bytes. */
export interface LoadedModule {
  file: string;
  bytes: number;
}

/** One owner's loaded code: how many modules, how many bytes. */
export interface PackageLoad {
  name: string;
  modules: number;
  bytes: number;
}

/** Loaded modules summed per owner (a package, or (app) for a file in no package), by name. */
export function loadByPackage(modules: readonly LoadedModule[]): PackageLoad[] {
  const by = new Map<string, PackageLoad>();
  for (const m of modules) {
    const name = ownerOf(m.file);
    const load = by.get(name) ?? { name, modules: 0, bytes: 0 };
    by.set(name, { name, modules: load.modules + 1, bytes: load.bytes + m.bytes });
  }
  return [...by.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
