/**
 * The npm packages the generated files load (each generator's `packages`, every target), sorted, and
 * knip's patterns for them (knip.ts): the project's own code never imports a framework, so knip would
 * call them unused. A scoped framework package stands for its scope (`@deepkit/.*`: the scope's other
 * packages are its peers).
 */
import { TARGETS } from '../metrics/core/dimensions.ts';
import { markdownText } from '../metrics/core/escape.ts';
import { loadGenerators } from './registry.ts';

export async function frameworkPackages(): Promise<string[]> {
  const packages = new Set<string>();
  for (const target of TARGETS)
    for (const generator of await loadGenerators(target)) for (const pkg of generator.packages) packages.add(pkg);
  return [...packages].sort();
}

/** knip's `ignoreDependencies` for the frameworks among `devDependencies` (what the checkout installs for them). */
export function knipFrameworkPatterns(packages: readonly string[], devDependencies: readonly string[]): string[] {
  const patterns = new Set<string>();
  for (const pkg of packages) {
    const scope = /^(@[^/]+)\//.exec(pkg)?.[1];
    const pattern = scope ? `${scope}/.*` : pkg;
    const matches = new RegExp(`^${pattern}$`);
    if (devDependencies.some((d) => matches.test(d))) patterns.add(pattern);
  }
  return [...patterns].sort();
}

/** docs/guide/frameworks.md's table of the registry: per framework, its packages per target, its Lambda adapter and eager form. */
export async function registryTable(): Promise<string> {
  const byTarget = new Map(await Promise.all(TARGETS.map(async (t) => [t, await loadGenerators(t)] as const)));
  const names = [...new Set([...byTarget.values()].flat().map((g) => g.name))];
  const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
  const cell = (text: string) => markdownText(text);
  const rows = names.map((name) => {
    const of = (t: (typeof TARGETS)[number]) => byTarget.get(t)!.find((g) => g.name === name);
    const [server, lambda] = TARGETS.map(of);
    const packages = (g: typeof server) => (g ? (g.packages.length ? g.packages.map(code).join(', ') : "node's own") : '–');
    const adapter = lambda?.unsupported ? `none: ${cell(lambda.unsupported)}` : lambda?.adapter ? code(lambda.adapter) : '–';
    const eager = lambda?.eagerInit ? code(lambda.eagerInit.call) : lambda?.noEagerInit ? cell(lambda.noEagerInit) : '–';
    const validated = cell(server?.validation ?? lambda?.validation ?? '');
    return `| ${code(name)} | ${packages(server)} | ${packages(lambda)} | ${adapter} | ${eager} | ${validated} |`;
  });
  return [
    '| name | server packages | Lambda packages | Lambda adapter | eager form (INIT) | `validated` means |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
