/**
 * The fake cell source of --debug-mode and the pipeline tests: the real expansion of a run's cells
 * (frameworks selected, × variants × shapes × schemas × routes × targets × memory sizes × measures ×
 * levers, with every reason a cell is unsupported, uncountable or blocked), planned exactly as
 * prepareCells plans them, but without any effect outside the process: no file is written, no
 * runtime is run (`node --version`) or installed, no bundle or Runtime Interface Client is built.
 * Each cell gets the launch it would have; only a fake sampler may measure it.
 */
import { RIC_PACKAGE, RIC_VERSION, ricPackageDir } from './ric.ts';
import type { CellSpec } from '../core/run-spec.ts';
import { needsRic, prepareCells, type PrepareEffects, type PreparedCells, type Selection } from './cells.ts';
import { assumedRuntimes } from './runtimes.ts';
import { appVersionDir, versionDir } from './versions.ts';
import type { AppVersionInstaller } from './app-versions.ts';
import { splitPackageVersion } from '../core/dimensions.ts';

export const FAKE_EFFECTS: PrepareEffects = {
  runtimes: (names, node) => assumedRuntimes(names, node),
  write: false,
  // the bundle's file is named, not built
  bundle: (_input, output) => Promise.resolve({ ok: true, file: output, built: false }),
  ric: (cells) =>
    Promise.resolve(
      needsRic(cells)
        ? { dir: ricPackageDir(), version: RIC_VERSION, source: `${RIC_PACKAGE}@${RIC_VERSION} (not built: fake source)` }
        : undefined,
    ),
  // every version installs, nowhere
  version: (value) => {
    const { pkg, version } = splitPackageVersion(value);
    const installed = { value, pkg, version, dir: versionDir(value), resolved: 'not installed: fake source', integrity: 'none' };
    return { ok: true, installed };
  },
};

export interface FakeCellSource {
  prepare(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<PreparedCells>;
}

/** The cells `run` would measure for this selection and spec, planned without writing or running anything. */
export function fakeCellSource(selection: Selection, spec: CellSpec): FakeCellSource {
  return { prepare: (env, log) => prepareCells(selection, spec, env, log, FAKE_EFFECTS) };
}

/** `measure --versions` under the fake source: every version of an app's dependency installs, nowhere (the app is still copied). */
export const FAKE_APP_VERSION: AppVersionInstaller = (value, appRoot) => {
  const { pkg, version } = splitPackageVersion(value);
  const dir = appVersionDir(appRoot, value);
  return { ok: true, installed: { value, pkg, version, dir, resolved: 'not installed: fake source', integrity: 'none' } };
};
