/**
 * eslint and prettier on the files git tracks (`npm run lint`, `npm run format:check`, `npm run
 * format`, and npm test's checks), not on every file under the checkout: a run folder a user left
 * there (`npm run measure -- --out base`), an --export-json file or a `lambda:package` folder is
 * the tool's output, not the project's source, and never fails the checks. A new file is checked
 * once it is added to git (`git add`); outside a git checkout both tools get `.` as before.
 *
 *   node --import tsx metrics/tools/tracked.ts eslint|prettier [ARGS...]   (ARGS: prettier's --check or --write)
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { EXIT_BUG, EXIT_USAGE } from '../core/exit-codes.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** The files eslint lints (eslint.config.js configures these; other files would be warned about). */
const LINTED = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** The files git tracks under `root` that are there (a deleted one is not), relative to it; undefined outside git. */
export function trackedFiles(root: string): string[] | undefined {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (listed.status !== 0 || listed.error) return undefined;
  return listed.stdout.split('\0').filter((file) => file !== '' && existsSync(path.join(root, file)));
}

/** The command line of `tool` on `files` (the whole checkout when git lists none). */
export function toolCommand(tool: 'eslint' | 'prettier', args: readonly string[], files: readonly string[] | undefined): string[] {
  if (tool === 'eslint') {
    const linted = files?.filter((file) => LINTED.test(file));
    return ['eslint', ...args, ...(linted ? ['--no-warn-ignored', ...linted] : ['.'])];
  }
  // prettier skips what .prettierignore and .gitignore name, and a file it has no parser for
  return ['prettier', ...args, ...(files ? ['--ignore-unknown', ...files] : ['.'])];
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [tool, ...args] = process.argv.slice(2);
  if (tool !== 'eslint' && tool !== 'prettier') {
    process.stderr.write('usage: node --import tsx metrics/tools/tracked.ts eslint|prettier [ARGS...]\n');
    process.exitCode = EXIT_USAGE;
  } else {
    const [command, ...rest] = toolCommand(tool, args, trackedFiles(ROOT));
    const ran = spawnSync('npx', ['--no-install', command!, ...rest], { cwd: ROOT, stdio: 'inherit' });
    process.exitCode = ran.status ?? EXIT_BUG;
  }
}
