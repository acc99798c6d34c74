/**
 * What a bundle is made of, from the files esbuild writes beside it (plan/bundle.ts): bytes per
 * package (its metafile), and the file each position came from (its source map, read with Node's
 * own `module.SourceMap`), so that a profile of the bundle is attributed to packages too.
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../generators/registry.ts';
import { ownerOf, pathOf } from '../core/packages.ts';
import { bundleMetaPath } from '../plan/bundle.ts';

interface Metafile {
  outputs?: Record<string, { inputs?: Record<string, { bytesInOutput?: number }> }>;
}

/** Package → bytes of the bundle `file`, or undefined when it has no readable metafile. */
export function bundleBytes(file: string): Record<string, number> | undefined {
  let meta: Metafile;
  try {
    meta = JSON.parse(readFileSync(bundleMetaPath(file), 'utf8')) as Metafile;
  } catch {
    return undefined;
  }
  const output = Object.entries(meta.outputs ?? {}).find(([out]) => path.resolve(PROJECT_ROOT, out) === path.resolve(file))?.[1];
  if (!output?.inputs) return undefined;
  const bytes: Record<string, number> = {};
  for (const [input, { bytesInOutput = 0 }] of Object.entries(output.inputs)) {
    // esbuild names inputs relative to its working folder (the project), namespaced ones (`ns:path`) as they are
    const resolved = input.includes(':') && !input.startsWith('/') ? input : path.resolve(PROJECT_ROOT, input);
    const owner = ownerOf(resolved) || '(other)';
    bytes[owner] = (bytes[owner] ?? 0) + bytesInOutput;
  }
  return bytes;
}

/** For frames of the bundle `file`: the original file of a (0-based) position, from its source map; undefined without one. */
export function bundleOrigins(file: string): ((url: string, line: number, column: number) => string | undefined) | undefined {
  const mapFile = `${file}.map`;
  let map: SourceMap;
  try {
    map = new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload);
  } catch {
    return undefined;
  }
  const bundle = path.resolve(file);
  return (url, line, column) => {
    if (line < 0 || path.resolve(pathOf(url)) !== bundle) return undefined;
    const entry = map.findEntry(line, column);
    return 'originalSource' in entry ? path.resolve(path.dirname(mapFile), pathOf(entry.originalSource)) : undefined;
  };
}
