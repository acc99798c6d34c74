/**
 * Which npm package a script belongs to, from its file URL or path: `node_modules/<pkg>` or
 * `node_modules/@scope/pkg` (the innermost node_modules in the path), `(app)` for any other file,
 * `(coldstart)` for coldstart's own files, `(node)` for Node's internals. The CPU profile's
 * attribution (analyse/attribution.ts) and a bundle's bytes (measure/bundle-bytes.ts) both count by it.
 */

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

/** The owner of a frame's script: a package name, (app), (coldstart), (node), or '' for a native frame. */
export function ownerOf(url: string, coldstartFiles: readonly string[] = []): string {
  if (url === '') return '';
  if (url.startsWith('node:') || !/^(file:|\/|[A-Za-z]:\\)/.test(url)) return OWNER.node;
  const file = pathOf(url);
  const parts = file.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at >= 0 && parts[at + 1]) {
    const first = parts[at + 1]!;
    return first.startsWith('@') && parts[at + 2] ? `${first}/${parts[at + 2]}` : first;
  }
  if (coldstartFiles.includes(file)) return OWNER.coldstart;
  return OWNER.app;
}
