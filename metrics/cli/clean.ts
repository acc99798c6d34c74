/** `clean`: remove the generated files, bundles and the compiled-TypeScript cache; runs in results/ are kept. */
import type { Command } from 'commander';
import { cleanGenerated } from '../pipeline/generate.ts';

export function registerCleanCommand(program: Command): void {
  program
    .command('clean')
    .description('remove the generated files, bundles and compiled TypeScript cache (runs in results/ are kept)')
    .action(() => {
      cleanGenerated();
      process.stdout.write('generated/ and the compile cache are clean\n');
    });
}
