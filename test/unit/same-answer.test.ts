/** Proof of the same behaviour (issue 29): every build of an app must answer as its plain build first did. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnswerReference } from '../../metrics/core/app.ts';
import { sameAnswerProblem } from '../../metrics/measure/app-answer.ts';

describe('sameAnswerProblem', () => {
  it('records the plain build’s first answer, then holds every other build to it', () => {
    const reference: AnswerReference = {};
    const plain = { sameAs: { reference, base: true } };
    const bundle = { sameAs: { reference, base: false } };
    assert.equal(sameAnswerProblem(bundle, 200, 'anything'), undefined, 'nothing to compare with yet');
    assert.equal(sameAnswerProblem(plain, 200, '{"by":"greeting"}'), undefined);
    assert.equal(sameAnswerProblem(plain, 200, '{"by":"other"}'), undefined, 'the first answer stays the reference');
    assert.deepEqual(reference.answer, { status: 200, body: '{"by":"greeting"}' });
    assert.equal(sameAnswerProblem(bundle, 200, '{"by":"greeting"}'), undefined);
    assert.equal(
      sameAnswerProblem(bundle, 200, '{"by":"ww"}'),
      'answers differently from the plain build: body {"by":"ww"}, the plain build\'s {"by":"greeting"}',
    );
    assert.match(sameAnswerProblem(bundle, 500, '{"by":"greeting"}') ?? '', /status 500, the plain build's 200/);
  });

  it('an app of one build is never compared', () => {
    assert.equal(sameAnswerProblem({}, 500, 'x'), undefined);
  });
});
