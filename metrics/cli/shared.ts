/** Small helpers the commands share: how paths and command lines are shown. */
export { displayPath } from '../core/display.ts';

/** The command line as the user typed it through npm, for meta.json. */
export function commandLine(argv: string[], script = 'metrics'): string {
  return [`npm run ${script} --`, ...argv.slice(3)].join(' ').replace(/ --$/, '');
}
