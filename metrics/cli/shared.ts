/** Small helpers the commands share: how paths and command lines are shown, and lines written to the terminal. */
import { oneLine } from '../core/escape.ts';
import { launchedAsBin, shellWord, toolCommand } from '../core/speak.ts';

export { displayPath } from '../core/display.ts';

/**
 * Text for the terminal, line by line: each line as one printable line (control, escape and bidi
 * characters as spaces, core/escape.ts). Folder and file names, a child's words and imported fields
 * reach the commands' lines: an ESC ] 0 title sequence in a folder's name printed raw retitled the terminal.
 */
export function terminalText(text: string): string {
  return text.split('\n').map(oneLine).join('\n');
}

/** One line (or several) to stdout, each escaped for the terminal (terminalText). */
export const say = (text: string): void => void process.stdout.write(`${terminalText(text)}\n`);
/** One line (or several) to stderr, each escaped for the terminal (terminalText). */
export const tell = (text: string): void => void process.stderr.write(`${terminalText(text)}\n`);
/** A warning line to stderr, escaped for the terminal. */
export const warn = (text: string): void => tell(`warning: ${text}`);

/**
 * The command line as the user typed it, for meta.json (summary.md and bisect.md record it): through npm
 * (`npm run measure -- …`) or as `npx coldstart measure …` when launched as coldstart, each word quoted
 * for the shell where it needs it, so the line pasted into a shell in the same folder reruns the run.
 */
export function commandLine(argv: string[], script = 'metrics'): string {
  if (launchedAsBin(argv)) return ['npx coldstart', ...argv.slice(2).map(shellWord)].join(' ');
  return toolCommand(script, argv.slice(3), argv);
}
