/** The per-tenant admission (shared/router/admission.ts) every function that sends effects builds from its Config. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OutboxStore } from '../catalog/outbox-store';
import { perTenantInQueue, type Config } from '../config';
import { Admission } from '../router/admission';

export function makeAdmission(cfg: Config, doc: DynamoDBDocumentClient): Admission {
  return new Admission({ outbox: new OutboxStore(doc, cfg.catalogTable), cap: perTenantInQueue(cfg) });
}
