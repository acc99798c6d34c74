/** Bytes per package in a bundle, from the esbuild metafile written beside it (plan/bundle.ts). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../generators/registry.ts';
import { ownerOf } from '../analyse/attribution.ts';
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
