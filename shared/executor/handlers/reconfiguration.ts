/**
 * A step of a cluster's graceful reconfiguration (shared/executor/reconfigure.ts). Waiting is not a
 * failure: it spends none of the retry budget (the attempts count stays), notes what it waits for,
 * and the sweeper replays it.
 */
import { CommitConflictError, DataPlaneError, RetryLater } from '../../errors';
import { runReconfigurationStep } from '../reconfigure';
import type { StepHandler } from './types';

export const RECONFIGURATION: StepHandler = {
  shape: 'step',
  async run(x, effect, attempt) {
    const { catalog, outbox, dataPlane, faults } = x.deps;
    if (!catalog.loadSnapshot || !catalog.commit) throw new DataPlaneError('this executor has no catalog commit to settle a cluster reconfiguration with', false);
    let step;
    try {
      const deps = { catalog: { loadSnapshot: catalog.loadSnapshot.bind(catalog), commit: catalog.commit.bind(catalog) }, effects: outbox, dataPlane };
      step = await runReconfigurationStep(faults ? { ...deps, faults } : deps, effect, x.now());
    } catch (err) {
      if (!(err instanceof CommitConflictError)) throw err;
      // A DDL statement committed in between: decide again on the catalog it left.
      await x.recordAttempt(effect, attempt, `the reconfiguration's commit lost a race (${err.message}); retrying`);
      throw new RetryLater(err.message, attempt);
    }
    if (step.outcome === 'waiting') {
      // Counted as a check made (the effect shows it was attempted), never dead-lettered: each replay is a new message.
      await outbox.recordAttempt(effect, { attempt: Math.max(effect.attempts + 1, attempt), lastError: step.note, deadLettered: false, now: x.now() });
      return 'waiting';
    }
    faults?.point('executor.before-ack');
    await x.settle(effect, step.outcome, step.outcome === 'applied' ? step.note : undefined);
    return step.outcome;
  },
};
