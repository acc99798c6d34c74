/** `results-index [DIR]`: write results/index.html and results/RESULTS.md, the published run folders as a page and a table. */
import type { Command } from 'commander';
import { writeResultsIndex } from '../pipeline/results-index.ts';
import { say } from './shared.ts';

export function registerResultsIndexCommand(program: Command): void {
  program
    .command('results-index')
    .description('write results/index.html and results/RESULTS.md: the run folders under results/published/ as a page and a table')
    .argument('[dir]', 'the results folder (default: results/ of the checkout)')
    .action(async (dir: string | undefined) => {
      const { file, page, runs } = await writeResultsIndex(dir);
      say(`wrote ${file} and ${page} (${runs} published run${runs === 1 ? '' : 's'})`);
    });
}
