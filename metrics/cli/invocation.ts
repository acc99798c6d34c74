/**
 * Where the user ran the command, which every relative path on the command line is read from
 * (--entry, --out, --body, --event, --export-json, --calibration, a run folder). `npx coldstart`
 * and `node` start in that folder. npm runs a script in the package's own folder and says where it
 * was typed in INIT_CWD (`npm --prefix ../coldstart run measure -- --out base` from an app's folder),
 * so a script of this package started by npm works from INIT_CWD instead. An INIT_CWD inherited from
 * another npm command (`npm test` starting the command line in another folder) is not the user's:
 * only one of this package's command scripts (npm_lifecycle_event), in this package's folder
 * (npm_package_json, the working folder), counts.
 */
import path from 'node:path';

export function invocationDir(env: NodeJS.ProcessEnv, cwd: string, projectRoot: string, scripts: ReadonlySet<string>): string {
  const init = env.INIT_CWD;
  if (!init || !path.isAbsolute(init)) return cwd;
  if (env.npm_package_json !== path.join(projectRoot, 'package.json')) return cwd;
  if (path.resolve(cwd) !== projectRoot) return cwd;
  if (!scripts.has(env.npm_lifecycle_event ?? '')) return cwd;
  return init;
}
