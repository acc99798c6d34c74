/** `generate` and `clean`, the use cases: write the generated files of a selection; remove them, the bundles and the compile cache. */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { COMPILED_CACHE_DIR } from '../../generators/typescript.ts';
import { GENERATED_DIR } from '../../generators/write.ts';
import { generateCells, type Selection } from '../plan/cells.ts';

/** Writes the selection's server files (`generate` writes no Lambda file, no reference); returns how many and the folder they are in. */
export async function generateFiles(selection: Selection, log: (line: string) => void): Promise<{ files: number; dir: string }> {
  const { cells } = await generateCells({ ...selection, targets: ['server'], lambdaReference: false }, log);
  return { files: cells.length, dir: GENERATED_DIR };
}

/** Removes generated/ (but its .gitkeep and package.json) and the compiled-TypeScript cache; runs in results/ are kept. */
export function cleanGenerated(): void {
  for (const entry of readdirSync(GENERATED_DIR)) {
    if (entry === '.gitkeep' || entry === 'package.json') continue;
    rmSync(path.join(GENERATED_DIR, entry), { recursive: true, force: true });
  }
  rmSync(COMPILED_CACHE_DIR, { recursive: true, force: true });
}
