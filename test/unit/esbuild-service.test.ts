/**
 * esbuild's build through a service started again when it died (metrics/plan/esbuild-service.ts), with a fake
 * service: a dead service is stopped once and the build tried once more; a second death is one line; an error
 * of the code being built is esbuild's own, not retried. The real service killed mid-run: test/e2e/levers-service.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BuildOptions, BuildResult } from 'esbuild';
import { buildWithService, isServiceGone, type EsbuildService } from '../../metrics/plan/esbuild-service.ts';

const OK = { errors: [], warnings: [] } as unknown as BuildResult;

/** A service whose builds fail with `failures` in turn (then succeed), counting builds and stops. */
function fakeService(failures: Error[]): EsbuildService & { builds: number; stops: number } {
  const service = {
    builds: 0,
    stops: 0,
    build: ((_options: BuildOptions) => {
      service.builds += 1;
      const failure = failures.shift();
      return failure === undefined ? Promise.resolve(OK) : Promise.reject(failure);
    }) as EsbuildService['build'],
    stop: () => {
      service.stops += 1;
      return Promise.resolve();
    },
  };
  return service;
}

describe("esbuild's service started again", () => {
  it("knows esbuild's words for a dead service, and only those", () => {
    assert.ok(isServiceGone(new Error('The service is no longer running')));
    assert.ok(isServiceGone(new Error('The service was stopped: write EPIPE')));
    assert.ok(isServiceGone('The service was stopped'));
    assert.ok(!isServiceGone(new Error('Build failed with 1 error:\nerror: Could not resolve "x"')));
  });

  it('a service that died is stopped and the build tried again on a fresh one', async () => {
    const service = fakeService([new Error('The service is no longer running')]);
    assert.equal(await buildWithService({}, service), OK);
    assert.deepEqual([service.builds, service.stops], [2, 1]);
  });

  it('a build in flight when it died (write EPIPE) is tried again too', async () => {
    const service = fakeService([new Error('The service was stopped: write EPIPE')]);
    assert.equal(await buildWithService({}, service), OK);
    assert.deepEqual([service.builds, service.stops], [2, 1]);
  });

  it('a fresh service that dies too: one line, tried no more', async () => {
    const service = fakeService([new Error('The service was stopped'), new Error('The service is no longer running\nmore')]);
    await assert.rejects(buildWithService({}, service), {
      message: "esbuild's service died and died again when started anew (The service is no longer running)",
    });
    assert.deepEqual([service.builds, service.stops], [2, 1]);
  });

  it("an error in the code being built is esbuild's own, not tried again", async () => {
    const failure = Object.assign(new Error('Build failed with 1 error'), { errors: [{ text: 'Could not resolve "x"' }] });
    const service = fakeService([failure]);
    await assert.rejects(buildWithService({}, service), (error) => error === failure);
    assert.deepEqual([service.builds, service.stops], [1, 0]);
  });

  it('builds that failed on the same dead service stop it once (a second stop would kill the fresh one)', async () => {
    const dead = () => new Error('The service is no longer running');
    const service = fakeService([dead(), dead()]);
    const results = await Promise.all([buildWithService({}, service), buildWithService({}, service)]);
    assert.deepEqual(results, [OK, OK]);
    assert.deepEqual([service.builds, service.stops], [4, 1]);
  });

  it('a build that hangs: the service is stopped at the deadline, the build fails in one line, and the others go on', async () => {
    // a hung service: its builds never answer until it is stopped, which fails them as esbuild does
    const pending: ((error: Error) => void)[] = [];
    let hung = true;
    const service: EsbuildService & { stops: number } = {
      stops: 0,
      build: (_options: BuildOptions) => (hung ? new Promise<typeof OK>((_resolve, reject) => pending.push(reject)) : Promise.resolve(OK)),
      stop: () => {
        service.stops += 1;
        hung = false;
        for (const reject of pending.splice(0)) reject(new Error('The service was stopped'));
        return Promise.resolve();
      },
    };
    const other = buildWithService({}, service, 60_000);
    await assert.rejects(buildWithService({}, service, 20), {
      message: 'esbuild did not end within its 0.02 s deadline: stopped its service',
    });
    // the other build, in flight on the same service, is tried again on the fresh one
    assert.equal(await other, OK);
    assert.equal(service.stops, 1);
  });
});
