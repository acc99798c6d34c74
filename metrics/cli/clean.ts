/** `clean`: remove the generated files, bundles and the compiled-TypeScript cache; runs in results/ are kept. */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { COMPILED_CACHE_DIR } from '../../generators/typescript.ts';
import { GENERATED_DIR } from '../../generators/write.ts';

export function registerCleanCommand(program: Command): void {
  program
    .command('clean')
    .description('remove the generated files, bundles and compiled TypeScript cache (runs in results/ are kept)')
    .action(() => {
      for (const entry of readdirSync(GENERATED_DIR)) {
        if (entry === '.gitkeep' || entry === 'package.json') continue;
        rmSync(path.join(GENERATED_DIR, entry), { recursive: true, force: true });
      }
      rmSync(COMPILED_CACHE_DIR, { recursive: true, force: true });
      process.stdout.write('generated/ and the compile cache are clean\n');
    });
}
