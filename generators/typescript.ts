/**
 * Compiling a generator's TypeScript to CommonJS with deepkit's type compiler, for the frameworks
 * that read TypeScript types at runtime (mion, deepkit). A plain JS handler carries no type data:
 * deepkit then silently skips validation and mion refuses the route, so their generated files are
 * written in TypeScript and compiled here, programmatically: `ts.transpileModule` (no type check)
 * with deepkit's ReflectionTransformer in `before`, reflection forced on. No tsconfig is read and
 * nothing in node_modules is patched.
 *
 * Each framework compiles with the compiler version matching the @deepkit/type it loads at
 * runtime (PROFILES). The output is cached in `.cache/compiled/`, keyed by a hash of everything that
 * shapes it (source, compiler and typescript versions, options, versions of the packages whose
 * types the source reads), so a second `npm run metrics` does not pay the compile again; the bytes
 * are the same either way.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as TS from 'typescript';
import { installedVersion, PROJECT_ROOT } from './registry.ts';
import { WORK_ROOT } from '../metrics/core/paths.ts';

/** Bump when this module's way of compiling changes, so that older cache entries are not reused. */
const CACHE_FORMAT = 1;
export const COMPILED_CACHE_DIR = path.join(WORK_ROOT, '.cache', 'compiled');

/** The project's own copies, loaded once: the transformer and we must share one typescript instance. */
const requireFromProject = createRequire(path.join(PROJECT_ROOT, 'package.json'));
let loaded: typeof TS | undefined;
/** Loaded on first use: most commands compile nothing, and the compiler takes some 60 MB of memory. */
function typescript(): typeof TS {
  return (loaded ??= requireFromProject('typescript') as typeof TS);
}

/** The few members of deepkit's ReflectionTransformer used here (both versions have them). */
interface ReflectionTransformerLike {
  forHost(host: TS.CompilerHost): this;
  withReflection?(config: { reflection: string }): this;
  withReflectionMode?(mode: string): this;
  transformSourceFile(sourceFile: TS.SourceFile): TS.SourceFile;
  transformBundle(bundle: TS.Bundle): TS.Bundle;
}
interface TypeCompilerModule {
  ReflectionTransformer: new (context: TS.TransformationContext, cache?: unknown) => ReflectionTransformerLike;
  Cache?: new () => unknown;
}

export interface CompilerProfile {
  /** what it is for, in error messages */
  label: string;
  /** the package (or npm alias) providing ReflectionTransformer */
  compilerPackage: string;
  /**
   * The name the source is compiled under. It decides how imported types resolve (deepkit: inside
   * the project, so `@deepkit/http` resolves) and which tsconfig an old compiler might read (mion:
   * a virtual folder with no tsconfig or package.json above it).
   */
  fileName: string;
  /** how reflection is forced on, whatever any tsconfig says */
  reflection: { withReflection: { reflection: string } } | { withReflectionMode: string };
}

/**
 * deepkit 1.0.19: `withReflection` replaces its tsconfig lookup (without it, 1.0.19 throws
 * "No tsconfig found"); the file name is inside the project so that `@deepkit/http` resolves.
 */
export const DEEPKIT_COMPILER: CompilerProfile = {
  label: 'deepkit',
  compilerPackage: '@deepkit/type-compiler',
  fileName: path.join(PROJECT_ROOT, 'generated', 'coldstart-deepkit-app.ts'),
  reflection: { withReflection: { reflection: 'default' } },
};

/**
 * mion 0.7.2 loads @deepkit/type 1.0.1-alpha.97 at runtime, so its routes are compiled with the
 * matching compiler (`@deepkit/type-compiler-mion`, an npm alias). alpha.97 reads `reflection`
 * only from a tsconfig above the file, so the mode is forced and the file name is virtual.
 */
export const MION_COMPILER: CompilerProfile = {
  label: 'mion',
  compilerPackage: '@deepkit/type-compiler-mion',
  fileName: '/virtual-mion-app/app.ts',
  reflection: { withReflectionMode: 'always' },
};

const compilerOptions = (): TS.CompilerOptions => ({
  module: typescript().ModuleKind.CommonJS,
  target: typescript().ScriptTarget.ES2022,
  sourceMap: false,
  experimentalDecorators: true,
});

/**
 * A compiler host whose module resolution is memoised per (containing file, module name) and
 * shares one ts resolution cache. deepkit's resolver asks the host for every imported type it
 * meets (a 5000-route file asks for `HttpBody` 5000 times); the plain host resolves each from
 * scratch.
 */
export function createCachingHost(options: TS.CompilerOptions): TS.CompilerHost {
  const ts = typescript();
  const host = ts.createCompilerHost(options);
  const resolutionCache = ts.createModuleResolutionCache(host.getCurrentDirectory(), (f) => f, options);
  const memo = new Map<string, TS.ResolvedModuleFull | null>();
  // The deprecated hook on purpose: its replacement, resolveModuleNameLiterals, is never called by the compiler mion's
  // routes use (@deepkit/type-compiler 1.0.1-alpha.97 asks the host only for resolveModuleNames), and 1.0.19 falls back
  // to this hook when the host has no resolveModuleNameLiterals. Both compilers are JavaScript calling in: `opts` is
  // typed as possibly missing so that the fallback to this host's own options stays.
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the one hook both deepkit compilers call (see above)
  host.resolveModuleNames = (names, containingFile, _reused, _redirected, opts: TS.CompilerOptions | undefined) =>
    names.map((name) => {
      const key = `${containingFile}\0${name}`;
      let resolved = memo.get(key);
      if (resolved === undefined) {
        resolved = ts.resolveModuleName(name, containingFile, opts ?? options, host, resolutionCache).resolvedModule ?? null;
        memo.set(key, resolved);
      }
      return resolved ?? undefined;
    });
  return host;
}

interface CompilerState {
  module: TypeCompilerModule;
  /** deepkit's own cache of parsed declaration files (1.0.19 only), shared by every compile */
  cache: unknown;
  host: TS.CompilerHost;
}
const states = new Map<string, CompilerState>();
const plainStates = new Map<string, CompilerState>();

function compilerState(profile: CompilerProfile, cachingHost: boolean): CompilerState {
  const memo = cachingHost ? states : plainStates;
  let state = memo.get(profile.compilerPackage);
  if (!state) {
    const module = requireFromProject(profile.compilerPackage) as TypeCompilerModule;
    state = {
      module,
      cache: module.Cache ? new module.Cache() : undefined,
      host: cachingHost ? createCachingHost(compilerOptions()) : typescript().createCompilerHost(compilerOptions()),
    };
    memo.set(profile.compilerPackage, state);
  }
  return state;
}

function compilerVersion(profile: CompilerProfile): string {
  const version = installedVersion(profile.compilerPackage);
  if (!version) throw new Error(`${profile.label}: ${profile.compilerPackage} is not installed (npm install)`);
  return version;
}

export interface CompileOptions {
  /** packages whose types the source reads: their versions enter the cache key */
  typePackages?: string[];
  /** read and write .cache/compiled (default true) */
  cache?: boolean;
  /** use createCachingHost (default true); false only to measure what it saves */
  cachingHost?: boolean;
  /** where compiled files are kept (default .cache/compiled) */
  cacheDir?: string;
}

/** The cache key: a hash of everything the output depends on. */
export function compileKey(source: string, profile: CompilerProfile, typePackages: string[] = []): string {
  const parts = {
    format: CACHE_FORMAT,
    compiler: `${profile.compilerPackage}@${compilerVersion(profile)}`,
    typescript: typescript().version,
    fileName: profile.fileName,
    reflection: profile.reflection,
    compilerOptions: compilerOptions(),
    types: typePackages.map((pkg) => `${pkg}@${installedVersion(pkg) ?? 'missing'}`),
    source,
  };
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Compile without the cache. */
export function transpileWithTypes(source: string, profile: CompilerProfile, cachingHost = true): string {
  const state = compilerState(profile, cachingHost);
  // The factory is named deepkitTransformer on purpose: @deepkit/type-compiler's install script
  // patches node_modules/typescript's getTransformers to append its own (1.0.19) transformer unless
  // one of that name is already there. With this name the patch, present or not, adds nothing: the
  // same compiler runs on every install.
  const deepkitTransformer = (context: TS.TransformationContext): TS.CustomTransformer => {
    const transformer = new state.module.ReflectionTransformer(context, state.cache).forHost(state.host);
    const reflection = profile.reflection;
    if ('withReflection' in reflection) {
      if (!transformer.withReflection) throw new Error(`${profile.compilerPackage} has no withReflection`);
      return transformer.withReflection(reflection.withReflection);
    }
    if (!transformer.withReflectionMode) throw new Error(`${profile.compilerPackage} has no withReflectionMode`);
    return transformer.withReflectionMode(reflection.withReflectionMode);
  };
  return typescript().transpileModule(source, {
    fileName: profile.fileName,
    reportDiagnostics: false,
    compilerOptions: compilerOptions(),
    transformers: { before: [deepkitTransformer] },
  }).outputText;
}

/** Compile `source` with `profile`'s type compiler, from the cache when nothing changed. */
export function compileWithTypes(source: string, profile: CompilerProfile, options: CompileOptions = {}): string {
  if (options.cache === false) return transpileWithTypes(source, profile, options.cachingHost ?? true);
  const cacheDir = options.cacheDir ?? COMPILED_CACHE_DIR;
  const file = path.join(cacheDir, `${compileKey(source, profile, options.typePackages)}.js`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // not compiled yet
  }
  const output = transpileWithTypes(source, profile, options.cachingHost ?? true);
  mkdirSync(cacheDir, { recursive: true });
  // write then rename: another process generating the same file never reads half of it
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, output);
  renameSync(temporary, file);
  return output;
}
