/** A secret: its committed generation's value must be in the secret store (the DDL put it there first); older ones go. */
import { DataPlaneError } from '../../errors';
import type { ResourceHandler } from './types';

export const SECRET: ResourceHandler = {
  shape: 'resource',
  async reconcile(x, effect, _object, { present, generation }) {
    const store = x.deps.secrets;
    if (!store) throw new DataPlaneError('no secret store is configured for the secrets executor', false);
    if (!present) {
      await store.prune(effect.tenant, effect.objectId);
      return { changed: true, heldGeneration: generation };
    }
    if (!(await store.has(effect.tenant, effect.objectId, generation))) {
      throw new DataPlaneError(`the value of secret ${effect.objectName} (generation ${generation}) is missing from the secret store; set it again with ALTER SECRET`, false);
    }
    await store.prune(effect.tenant, effect.objectId, generation);
    return { changed: false, heldGeneration: generation };
  },
};
