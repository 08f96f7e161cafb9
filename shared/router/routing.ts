/**
 * Routing: a DynamoDB stream record → the message for its controller's FIFO queue, or nothing.
 * Pure. Only newly inserted effect records route; the router's other records are status events
 * (shared/events/select.ts).
 */
import { createHash } from 'node:crypto';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { CONTROLLERS, type Controller } from '../definitions';
import { EFF_PREFIX } from '../catalog/keys';
import { EVENT_FILTER_PATTERNS } from '../events/select';
import type { EffectMessage, EffectRecord } from '../effects/model';

/**
 * The event-source filter (Lambda filter-pattern syntax; a record passes when any pattern
 * matches): new effect records, and the records that are status events (shared/events/select.ts).
 * The CDK stack installs these on the event source mapping; the local runtime applies the same
 * patterns before invoking the router.
 */
export const EFFECT_FILTER_PATTERN = { eventName: ['INSERT'], dynamodb: { NewImage: { sk: { S: [{ prefix: EFF_PREFIX }] } } } } as const;
export const ROUTER_FILTER_PATTERNS = [EFFECT_FILTER_PATTERN, ...EVENT_FILTER_PATTERNS] as const;

function isInsertedEffect(record: DynamoDBRecord): boolean {
  return record.eventName === 'INSERT' && (record.dynamodb?.NewImage?.sk?.S ?? '').startsWith(EFF_PREFIX);
}

/** One value rule of a filter pattern: an exact string, or `{ prefix }`. */
type ValueRule = string | { readonly prefix: string };
interface RecordPattern {
  readonly eventName: readonly string[];
  readonly dynamodb: { readonly NewImage: Readonly<Record<string, { readonly S: readonly ValueRule[] }>> };
}

/** Lambda's filter semantics for the subset these patterns use: every field matches one of its rules. */
function matchesPattern(record: DynamoDBRecord, p: RecordPattern): boolean {
  if (!p.eventName.includes(record.eventName ?? '')) return false;
  const img = record.dynamodb?.NewImage ?? {};
  return Object.entries(p.dynamodb.NewImage).every(([attr, { S: rules }]) => {
    const v = img[attr]?.S;
    return v !== undefined && rules.some((r) => (typeof r === 'string' ? v === r : v.startsWith(r.prefix)));
  });
}

export function matchesRouterFilter(record: DynamoDBRecord): boolean {
  return ROUTER_FILTER_PATTERNS.some((p) => matchesPattern(record, p));
}

export interface RoutedMessage {
  readonly controller: Controller;
  /** The effect's tenant and id: what admission (shared/router/admission.ts) counts. */
  readonly tenant: string;
  readonly effectId: string;
  readonly sk: string;
  /** Tenant/object: SQS FIFO orders per group, so effects on one object stay in order. */
  readonly groupId: string;
  /** The effect id: SQS drops a re-send within its 5-minute window (idempotency rests on the effect state anyway). */
  readonly deduplicationId: string;
  readonly body: string;
}

/** SQS limits both ids to 128 characters. */
const MAX_ID = 128;
function fitId(s: string): string {
  return s.length <= MAX_ID ? s : createHash('sha256').update(s).digest('hex');
}

export function routeRecord(record: DynamoDBRecord): RoutedMessage | undefined {
  if (!isInsertedEffect(record)) return undefined;
  const image = record.dynamodb?.NewImage;
  if (!image) return undefined;
  return messageForEffect(unmarshall(image as Record<string, AttributeValue> as never) as EffectRecord);
}

/**
 * The queue message of an effect record. The router and the DDL function's fast path
 * (shared/router/fast-path.ts) both build it here, so both copies of a message carry the same
 * group and deduplication id and SQS FIFO keeps only the first.
 */
export function messageForEffect(effect: EffectRecord): RoutedMessage | undefined {
  if (effect.type !== 'effect' || !(CONTROLLERS as readonly string[]).includes(effect.controller)) return undefined;
  const msg: EffectMessage = {
    tenant: effect.tenant,
    sk: effect.sk,
    effectId: effect.effectId,
    objectId: effect.objectId,
    generation: effect.generation,
    controller: effect.controller,
  };
  return {
    controller: effect.controller,
    tenant: effect.tenant,
    effectId: effect.effectId,
    sk: effect.sk,
    groupId: fitId(`${effect.tenant}/${effect.objectId}`),
    deduplicationId: fitId(effect.effectId),
    body: JSON.stringify(msg),
  };
}
