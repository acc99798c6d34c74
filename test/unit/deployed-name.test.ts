/**
 * The names lambda:run deploys a packaged function under (deployedName) and their inverse (runOfDeployedName),
 * which decides which log groups lambda:clean may consider as a gone function's: every name a run gives reads
 * back to its packaged name and run id; a packaged name itself, a user's own name and another run's are none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deployedName, functionName, MAX_FUNCTION_NAME, RUN_ID, runOfDeployedName } from '../../metrics/core/function-name.ts';

describe('deployed function names', () => {
  it('every name a run gives reads back to its packaged name and run id, with and without --run', () => {
    const packaged = [
      functionName({ framework: 'hono', variant: 'validated', routes: 1 }),
      functionName({ framework: 'node-http', variant: 'plain', routes: 100, init: 'eager' }),
      functionName({ framework: 'deepkit-http', variant: 'plain', routes: 1000 }),
    ];
    for (const name of packaged) {
      for (const runId of ['a', '1a2b3c4d', '0123456789abcdef', '7']) {
        assert.ok(RUN_ID.test(runId));
        for (const index of [undefined, 1, 2, 12]) {
          const deployed = deployedName(name, runId, index);
          assert.ok(deployed.length <= MAX_FUNCTION_NAME, deployed);
          assert.deepEqual(runOfDeployedName(deployed, runId), { packaged: name, runId }, deployed);
          assert.equal(runOfDeployedName(deployed, `${runId}x`), undefined, deployed);
          assert.ok(runOfDeployedName(deployed), deployed);
        }
      }
    }
    assert.equal(deployedName('coldstart-hono-1-validated', 'ab12', 2), 'coldstart-hono-1-validated-ab12-2');
  });

  it('an eager name with a numeric run id is read with the run asked for', () => {
    // coldstart-hono-1-validated-eager-3: run 3 of the eager cell, or the 3rd line of the lazy cell's run "eager"
    const name = 'coldstart-hono-1-validated-eager-3';
    assert.deepEqual(runOfDeployedName(name, '3'), { packaged: 'coldstart-hono-1-validated-eager', runId: '3' });
    assert.deepEqual(runOfDeployedName(name, 'eager'), { packaged: 'coldstart-hono-1-validated', runId: 'eager' });
  });

  it('a packaged name itself, a name of no package and a run id out of shape are none', () => {
    for (const name of [
      'coldstart-hono-1-validated',
      'coldstart-hono-1-validated-eager',
      'coldstart-my-api',
      'coldstart-',
      'my-api-abc',
      'coldstart-hono-1-validated-ABC',
      'coldstart-hono-1-validated-0123456789abcdefg',
      'coldstart-hono-1-validated-ab-0',
      'coldstart-hono-0-validated-ab',
    ]) {
      assert.equal(runOfDeployedName(name), undefined, name);
    }
  });
});
