/**
 * `app/package-cuts.cjs`, the preload of a counted sample under `--count-packages` (measure/package-cuts.ts
 * reads what it leaves). Loaded with `--require` before everything else, it hooks CommonJS loading
 * (`Module.prototype.load`, which a `require` of a module not yet in the cache reaches with the resolved
 * file) and calls `process.cpuUsage()` where a load enters a module of another npm package than the one
 * loading it, and again where that load returns: under callgrind's `--dump-before=getrusage` each call
 * is one dump. It also wraps `process.cpuUsage` itself, so the probe's own marks are logged in the same
 * order, and at exit writes that order (JSON) to the file named by COLDSTART_PACKAGE_CUTS. Same bytes
 * every time: the log's path reaches it through the environment.
 *
 * What it cannot cut: modules loaded through `import` (ES modules, and CommonJS imported from one) do
 * not pass `Module.prototype.load` on every Node line; their work counts to the package whose load is
 * running then. A builtin module is no package: it counts to its requirer.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { APP_DIR } from './app-probe.ts';

/** The variable that names the log file (removed from the app's environment once read). */
export const PACKAGE_CUTS_ENV = 'COLDSTART_PACKAGE_CUTS';

const PACKAGE_CUTS_PRELOAD = `'use strict';
/* coldstart package cuts: loaded with --require before coldstart's preload, under callgrind only */
(function () {
  const log = process.env.${PACKAGE_CUTS_ENV};
  delete process.env.${PACKAGE_CUTS_ENV};
  if (!log) return;
  const events = [];
  const cpuUsage = process.cpuUsage;
  process.cpuUsage = function (previous) {
    events.push(['mark']);
    return previous === undefined ? cpuUsage.call(process) : cpuUsage.call(process, previous);
  };
  const sep = require('node:path').sep;
  const marker = sep + 'node_modules' + sep;
  // the package folder of a file: the innermost node_modules/<name> or node_modules/@scope/<name>; '' for none
  function folderOf(file) {
    const at = file.lastIndexOf(marker);
    if (at < 0) return '';
    const from = at + marker.length;
    let end = file.indexOf(sep, from);
    if (end > 0 && file[from] === '@') end = file.indexOf(sep, end + 1);
    return end < 0 ? '' : file.slice(0, end);
  }
  const stack = [''];
  const load = require('node:module').prototype.load;
  require('node:module').prototype.load = function (filename) {
    const folder = typeof filename === 'string' ? folderOf(filename) : '';
    if (folder === stack[stack.length - 1]) return load.apply(this, arguments);
    events.push(['enter', filename]);
    cpuUsage.call(process);
    stack.push(folder);
    try {
      return load.apply(this, arguments);
    } finally {
      stack.pop();
      events.push(['leave']);
      cpuUsage.call(process);
    }
  };
  process.on('exit', function () {
    require('node:fs').writeFileSync(log, JSON.stringify(events));
  });
})();
`;

/** The preload written (when it differs) into coldstart's app folder; its path. */
export function writePackageCutsPreload(dir = APP_DIR): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'package-cuts.cjs');
  let previous: string | undefined;
  try {
    previous = readFileSync(file, 'utf8');
  } catch {
    previous = undefined;
  }
  if (previous !== PACKAGE_CUTS_PRELOAD) writeFileSync(file, PACKAGE_CUTS_PRELOAD);
  return file;
}
