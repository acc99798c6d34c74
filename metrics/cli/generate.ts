/** `generate`: write the generated files only. */
import type { Command } from 'commander';
import { GENERATED_DIR } from '../../generators/write.ts';
import { generateCells } from '../plan/cells.ts';
import { addSelectionOptions, selectionOf } from './options.ts';
import { displayPath } from './shared.ts';

export function registerGenerateCommand(program: Command): void {
  addSelectionOptions(program.command('generate').description('write the generated files only')).action(
    async (opts: Record<string, unknown>) => {
      const { cells } = await generateCells(selectionOf(opts), (line) => process.stderr.write(`${line}\n`));
      process.stdout.write(`${cells.length} files in ${displayPath(GENERATED_DIR)}\n`);
    },
  );
}
