/**
 * How the tool names its own commands to the user: as the user launched it. Through `npx coldstart`
 * (bin/coldstart.js: an app that installed the package, or a checkout) a hint or a recorded command says
 * `npx coldstart measure …`; through an npm script of the checkout, `npm run measure -- …`. Every word
 * is quoted for a POSIX shell where it needs it, so a recorded line pasted into a shell reruns the run
 * (`--request 'GET /health'`, not `--request GET /health`).
 */
import path from 'node:path';

/** Whether the process was launched as `coldstart` (npx, node_modules/.bin, bin/coldstart.js) rather than an npm script. */
export function launchedAsBin(argv: readonly string[] = process.argv): boolean {
  return path.basename(argv[1] ?? '').replace(/\.js$/, '') === 'coldstart';
}

/** One word for a POSIX shell: as it is when it holds nothing the shell reads, else in single quotes. */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A command of the tool as the user can type it where they are: `npx coldstart report DIR` when launched as
 * `coldstart`, else `npm run report -- DIR` (`script` is the npm script; its command's alias with npx).
 */
export function toolCommand(script: string, args: readonly string[], argv: readonly string[] = process.argv): string {
  const words = args.map(shellWord);
  return (
    launchedAsBin(argv) ? ['npx coldstart', script, ...words] : [`npm run ${script}`, ...(words.length ? ['--', ...words] : [])]
  ).join(' ');
}
