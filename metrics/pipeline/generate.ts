/** `generate` and `clean`, the use cases: write the generated files of a selection; remove them, the bundles and the compile cache. */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { COMPILED_CACHE_DIR } from '../../generators/typescript.ts';
import { GENERATED_DIR } from '../../generators/write.ts';
import { generateCells, type Selection } from '../plan/cells.ts';
import { UsageError } from '../core/errors.ts';
import { storedValue } from '../core/dimensions.ts';
import { generatedUsers } from '../measure/generated-users.ts';

/** Writes the selection's server files (`generate` writes no Lambda file, no reference); returns how many and the folder they are in. */
export async function generateFiles(selection: Selection, log: (line: string) => void): Promise<{ files: number; dir: string }> {
  const { cells } = await generateCells({ ...selection, targets: ['server'], lambdaReference: false, inits: [storedValue('init')] }, log);
  return { files: cells.length, dir: GENERATED_DIR };
}

/** Removes generated/ (but its .gitkeep and package.json) and the compiled-TypeScript cache; runs in results/ are kept. */
export function cleanGenerated(dir: string = GENERATED_DIR, compiledCache: string = COMPILED_CACHE_DIR): void {
  const users = generatedUsers(dir);
  if (users.length) {
    throw new UsageError(`generated/ is in use by a run (pid ${users.join(', ')}): wait for it to finish, then clean`);
  }
  for (const entry of readdirSync(dir)) {
    if (entry === '.gitkeep' || entry === 'package.json') continue;
    rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
  rmSync(compiledCache, { recursive: true, force: true });
}
