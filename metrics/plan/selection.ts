/** Which frameworks a run measures: the ones named, or every one whose packages are installed. */
import { loadGenerators, missingPackage } from '../../generators/registry.ts';
import type { FrameworkGenerator } from '../../generators/types.ts';
import { UsageError } from '../core/errors.ts';
import type { Target } from '../core/dimensions.ts';

export interface FrameworkSelection {
  selected: FrameworkGenerator[];
  /** frameworks left out because a package is missing: name → reason */
  skipped: Map<string, string>;
}

export function installHint(generator: FrameworkGenerator, pkg: string): string {
  const hint = generator.installHint ?? `npm install ${generator.packages.join(' ')}`;
  return `${generator.name} needs ${pkg}, which is not installed (${hint})`;
}

/**
 * `all` (the default) takes every registered framework whose packages resolve and skips the rest
 * with a reason; naming a framework whose packages are missing is an error.
 */
export function selectFrameworks(wanted: readonly string[] | 'all', generators: FrameworkGenerator[]): FrameworkSelection {
  const names = generators.map((g) => g.name);
  const skipped = new Map<string, string>();
  if (wanted === 'all') {
    const selected = generators.filter((g) => {
      const missing = missingPackage(g);
      if (missing) skipped.set(g.name, `${missing} not installed`);
      return !missing;
    });
    if (selected.length === 0) throw new UsageError('no framework has its packages installed: run npm install');
    return { selected, skipped };
  }
  if (wanted.length === 0) throw new UsageError(`--frameworks needs a name: one or more of ${names.join(', ')}, or all`);
  const selected = [...new Set(wanted)].map((name) => {
    const generator = generators.find((g) => g.name === name);
    if (!generator) throw new UsageError(`unknown framework "${name}": choose from ${names.join(', ')}, or all`);
    const missing = missingPackage(generator);
    if (missing) throw new UsageError(installHint(generator, missing));
    return generator;
  });
  return { selected, skipped };
}

/**
 * The frameworks of `names` whose packages are not installed for `target`, each with its install hint:
 * verify skips their claims with this reason and verifies the rest (a name without a generator is left
 * to the run's own error).
 */
export async function uninstalledFrameworks(names: readonly string[], target: Target): Promise<Map<string, string>> {
  const generators = await loadGenerators(target);
  const missing = new Map<string, string>();
  for (const name of names) {
    const generator = generators.find((g) => g.name === name);
    const pkg = generator && missingPackage(generator);
    if (generator && pkg) missing.set(name, installHint(generator, pkg));
  }
  return missing;
}
