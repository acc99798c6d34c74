/** How the use cases name paths to the user: relative under the current folder, absolute elsewhere. */
import path from 'node:path';

/** A path as the user would type it: relative under the current folder, absolute elsewhere. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative === '' ? '.' : relative.startsWith('..') ? file : relative;
}
