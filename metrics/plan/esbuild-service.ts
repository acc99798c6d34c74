/**
 * esbuild's `build()` through a service that is started again when it has died. esbuild runs one long-lived
 * child (`esbuild --service=…`) for every build of the process and never starts it again: once it is gone
 * (a SIGINT, SIGTERM or SIGHUP to the runner's process group, an OOM kill, a crash), every later build fails
 * at once with "The service is no longer running" (a build in flight: "The service was stopped: write
 * EPIPE"). Here such a failure stops esbuild's dead service (`stop()`, after which esbuild starts a fresh
 * one) and the build is tried once more; a second death is one line, never a wait. A build that does not answer
 * within its deadline (a hung service) stops the service and fails in one line.
 */
import { build as esbuildBuild, stop as esbuildStop, type BuildOptions, type BuildResult } from 'esbuild';
import { childDeadlineMs } from '../core/child-deadlines.ts';

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

/** Stop the service unless a build that failed with this one already did (a second `stop()` would kill the fresh one). */
async function restartOnce(service: EsbuildService, generation: number): Promise<void> {
  if (restarts !== generation) return;
  restarts += 1;
  await service.stop();
}

class BuildDeadline extends Error {}

/** One build, bounded: past `deadlineMs` the service is stopped (a hung service is a dead one) and the build fails in one line. */
async function boundedBuild<O extends BuildOptions>(
  options: Parameters<typeof esbuildBuild<O>>[0],
  service: EsbuildService,
  deadlineMs: number,
): Promise<BuildResult<O>> {
  const generation = restarts;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new BuildDeadline(`esbuild did not end within its ${deadlineMs / 1000} s deadline: stopped its service`)),
      deadlineMs,
    );
  });
  const build = service.build(options);
  try {
    return await Promise.race([build, late]);
  } catch (error) {
    if (error instanceof BuildDeadline) {
      // the stopped service fails the build late: nobody waits for it
      build.catch(() => undefined);
      await restartOnce(service, generation);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * esbuild's `build(options)`, started again once on a fresh service when the service had died. Builds that
 * failed on the same dead service stop it once. Each try is bounded (CHILD_DEADLINES_S.esbuild): a service that
 * hangs is stopped at the deadline and the build fails. Throws esbuild's error of the build, or one line when the
 * fresh service died too or a try passed its deadline.
 */
export async function buildWithService<O extends BuildOptions>(
  options: Parameters<typeof esbuildBuild<O>>[0],
  service: EsbuildService = ESBUILD,
  deadlineMs: number = childDeadlineMs('esbuild', process.env),
): Promise<BuildResult<O>> {
  const generation = restarts;
  try {
    return await boundedBuild(options, service, deadlineMs);
  } catch (error) {
    if (!isServiceGone(error)) throw error;
    await restartOnce(service, generation);
  }
  try {
    return await boundedBuild(options, service, deadlineMs);
  } catch (again) {
    if (!isServiceGone(again)) throw again;
    const said = (again instanceof Error ? again.message : String(again)).split('\n')[0]!;
    throw new Error(`esbuild's service died and died again when started anew (${said})`, { cause: again });
  }
}
