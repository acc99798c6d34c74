/**
 * esbuild's `build()` through a service that is started again when it has died. esbuild runs one long-lived
 * child (`esbuild --service=…`) for every build of the process and never starts it again: once it is gone
 * (a SIGINT, SIGTERM or SIGHUP to the runner's process group, an OOM kill, a crash), every later build fails
 * at once with "The service is no longer running" (a build in flight: "The service was stopped: write
 * EPIPE"). Here such a failure stops esbuild's dead service (`stop()`, after which esbuild starts a fresh
 * one) and the build is tried once more; a second death is one line, never a wait.
 */
import { build as esbuildBuild, stop as esbuildStop, type BuildOptions, type BuildResult } from 'esbuild';

/** esbuild's own words when its service is gone (esbuild's lib/main.js: afterClose and sendRequest). */
const SERVICE_GONE = /The service (was stopped|is no longer running)/;

/** Whether `error` is esbuild saying its service has died (not an error of the code being built). */
export function isServiceGone(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return SERVICE_GONE.test(message);
}

/** The seam the tests replace: esbuild's build and stop. */
export interface EsbuildService {
  build: typeof esbuildBuild;
  stop: () => Promise<void>;
}

const ESBUILD: EsbuildService = { build: esbuildBuild, stop: esbuildStop };

/** How many times the service was stopped to be started again: builds that failed together restart it once. */
let restarts = 0;

/**
 * esbuild's `build(options)`, started again once on a fresh service when the service had died. Builds that
 * failed on the same dead service stop it once (a second `stop()` would kill the fresh one the first retry
 * started). Throws esbuild's error of the build, or one line when the fresh service died too.
 */
export async function buildWithService<O extends BuildOptions>(
  options: Parameters<typeof esbuildBuild<O>>[0],
  service: EsbuildService = ESBUILD,
): Promise<BuildResult<O>> {
  const generation = restarts;
  try {
    return await service.build(options);
  } catch (error) {
    if (!isServiceGone(error)) throw error;
    if (restarts === generation) {
      restarts += 1;
      await service.stop();
    }
  }
  try {
    return await service.build(options);
  } catch (again) {
    if (!isServiceGone(again)) throw again;
    const said = (again instanceof Error ? again.message : String(again)).split('\n')[0]!;
    throw new Error(`esbuild's service died and died again when started anew (${said})`, { cause: again });
  }
}
