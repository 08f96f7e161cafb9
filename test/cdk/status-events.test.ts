/**
 * Status events in the template: the stack's own bus, the router the only function allowed to
 * publish to it (and to nothing else), the router's stream filter letting status events through,
 * and the example rule sending stalled and failed to an encrypted SNS topic EventBridge may use.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DdlControlPlaneStack } from '../../cdk/stack';
import { ENV } from '../../shared/definitions';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/model';
import { EVENT_FILTER_PATTERNS } from '../../shared/events/select';
import { BUNDLING_STACKS, fakeResolve, identityStatements, logicalId, statementsOfRole, testApp } from './helpers';

let stack: DdlControlPlaneStack;
let template: Template;
beforeAll(() => {
  stack = new DdlControlPlaneStack(testApp({ [BUNDLING_STACKS]: [] }), 'Events');
  template = Template.fromStack(stack);
});

describe('StatusEvents', () => {
  it("makes the stack's own bus and tells the router its name", () => {
    // Assess
    template.resourceCountIs('AWS::Events::EventBus', 1);
    const bus = logicalId(stack.statusEvents.bus);
    template.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ [ENV.eventBusName]: { Ref: bus } }) } });
    const withBus = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([, f]) => f.Properties.Environment?.Variables?.[ENV.eventBusName] !== undefined);
    expect(withBus.map(([id]) => id)).toEqual([logicalId(stack.router.handler.function)]);
  });

  it('lets the router alone put events, and only on this bus', () => {
    // Act
    const puts = identityStatements(template).filter((s) => s.actions.some((a) => a.startsWith('events:')));

    // Assess
    const bus = `getatt:${logicalId(stack.statusEvents.bus)}.Arn`;
    expect(puts.map((s) => ({ actions: s.actions, resources: s.resources.map(fakeResolve) }))).toEqual([{ actions: ['events:PutEvents'], resources: [bus] }]);
    const routerPuts = statementsOfRole(template, logicalId(stack.router.handler.role)).filter((s) => s.actions.some((a) => a.startsWith('events:')));
    expect(routerPuts.map((s) => s.policy)).toEqual(puts.map((s) => s.policy));
  });

  it("lets a new history row and an effect gone failed through the router's stream filter", () => {
    const [mapping] = Object.values(template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: { Ref: logicalId(stack.router.handler.function) } } }));
    const patterns = (mapping!.Properties.FilterCriteria.Filters as { Pattern: string }[]).map((f) => JSON.parse(f.Pattern) as unknown);
    for (const p of EVENT_FILTER_PATTERNS) expect(patterns).toContainEqual(p);
  });

  it('sends cluster replicas gone offline to the same topic', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: logicalId(stack.statusEvents.bus) },
      EventPattern: { source: [EVENT_SOURCE], 'detail-type': [DETAIL_TYPES.replicaStatusChanged], detail: { to: ['offline'] } },
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { Ref: logicalId(stack.statusEvents.alertTopic) } })],
    });
  });

  it('sends the data plane gone silent to the same topic, once for the whole deployment', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: logicalId(stack.statusEvents.bus) },
      EventPattern: { source: [EVENT_SOURCE], 'detail-type': [DETAIL_TYPES.dataPlaneStatusChanged], detail: { to: ['silent'] } },
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { Ref: logicalId(stack.statusEvents.alertTopic) } })],
    });
  });

  it('sends connectors gone stalled or failed (but not each stall of a silent data plane), and failed effects, to an encrypted SNS topic', () => {
    // Assess
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: logicalId(stack.statusEvents.bus) },
      EventPattern: { source: [EVENT_SOURCE], 'detail-type': [DETAIL_TYPES.connectorStatusChanged, DETAIL_TYPES.effectFailed], detail: { to: ['stalled', 'failed'], data_plane_silent: [false] } },
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { Ref: logicalId(stack.statusEvents.alertTopic) } })],
    });
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [logicalId(stack.statusEvents.alertTopicKey!), 'Arn'] } });
    // EventBridge may publish to the topic and use its key (from this account only).
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: logicalId(stack.statusEvents.alertTopic) }],
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'sns:Publish', Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' } })]) },
    });
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: 'events.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'], Condition: { StringEquals: { 'aws:SourceAccount': Match.anyValue() } } }),
        ]),
      },
    });
  });
});
