/**
 * The handler of each effect kind: a kind added to the effect model (shared/effects/model.ts)
 * without one here does not compile.
 */
import type { ResourceEffectKind } from '../../effects/model';
import { CONNECTOR } from './connector';
import { DATA_PLANE_RESOURCE } from './data-plane';
import { RECONFIGURATION } from './reconfiguration';
import { REPLICA } from './replica';
import { SECRET } from './secret';
import type { EffectHandler } from './types';

export type { EffectContext, EffectHandler, ExecutorDeps, Outcome } from './types';

export const EFFECT_HANDLERS: { readonly [K in ResourceEffectKind]: EffectHandler } = {
  replica: REPLICA,
  dataflow: DATA_PLANE_RESOURCE,
  collection: DATA_PLANE_RESOURCE,
  ingestion: CONNECTOR,
  export: CONNECTOR,
  secret: SECRET,
  reconfiguration: RECONFIGURATION,
};
