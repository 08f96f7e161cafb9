/**
 * The status queue and the status-ingest function: a standard queue with a DLQ, that only the
 * data plane's principal may send to; the function reads it with partial batch responses and
 * may touch the catalog's items with exactly the calls it makes.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CatalogTable } from '../../cdk/constructs/catalog-table';
import { InvalidPropsError } from '../../cdk/constructs/props-validation';
import { ReferenceDataPlane } from '../../cdk/constructs/reference-data-plane';
import { REPORTER_TABLE_ACTIONS, STATUS_INGEST_TABLE_ACTIONS, StatusIngest } from '../../cdk/constructs/status-ingest';
import { REPORTER_TIMEOUT_SECONDS, reporterRounds } from '../../shared/lambda/reference-reporter';
import { ATTENTION_CAPACITY, deploymentNames, STATUS_INGEST_MAPPING, STATUS_QUEUE, statusIngestConcurrency } from '../../shared/definitions';
import { HEARTBEAT_INTERVAL_SECONDS } from '../../shared/dataplane/contract';
import { bareStack, captureError, FIXTURE_ENTRY, identityStatements, logicalId } from './helpers';

const DATA_PLANE_ROLE = 'arn:aws:iam::123456789012:role/data-plane';

function build(props: { dataPlanePrincipalArn?: string; maxConcurrency?: number; reference?: boolean } = {}) {
  const stack = bareStack();
  const catalog = new CatalogTable(stack, 'Catalog');
  const { reference, ...rest } = props;
  const dataPlane = reference ? new ReferenceDataPlane(stack, 'DataPlane') : undefined;
  const ingest = new StatusIngest(stack, 'StatusIngest', { catalog, entry: FIXTURE_ENTRY, reporterEntry: FIXTURE_ENTRY, ...(dataPlane ? { referenceDataPlaneTable: dataPlane.table } : {}), ...rest });
  return { stack, catalog, dataPlane, ingest, template: Template.fromStack(stack) };
}

describe('StatusIngest', () => {
  it('makes a standard queue with a DLQ after the definition’s receive budget', () => {
    const { template, ingest, stack } = build({ dataPlanePrincipalArn: DATA_PLANE_ROLE });
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: deploymentNames(stack.stackName).statusQueueName,
      FifoQueue: Match.absent(),
      VisibilityTimeout: STATUS_QUEUE.visibilityTimeoutSeconds,
      MessageRetentionPeriod: STATUS_QUEUE.retentionSeconds,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(ingest.dlq), 'Arn'] }, maxReceiveCount: STATUS_QUEUE.maxReceiveCount },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(ingest.queue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
    });
    // Six times the function's timeout (AWS's rule for SQS event sources), and dead letters kept on delete.
    const fn = Object.values(template.findResources('AWS::Lambda::Function')).find((f) => f.Properties.Description?.includes('status reports'));
    expect(STATUS_QUEUE.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * (fn?.Properties.Timeout as number));
    template.hasResource('AWS::SQS::Queue', { DeletionPolicy: 'Retain', Properties: Match.objectLike({ QueueName: deploymentNames(stack.stackName).statusDlqName }) });
  });

  it('lets only the data plane’s principal send, and denies everyone else', () => {
    const { template, ingest } = build({ dataPlanePrincipalArn: DATA_PLANE_ROLE });
    const [policy] = Object.values(template.findResources('AWS::SQS::QueuePolicy', { Properties: { Queues: [{ Ref: logicalId(ingest.queue) }] } }));
    const statements = (policy as { Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } }).Properties.PolicyDocument.Statement;
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Sid: 'DataPlaneSends', Effect: 'Allow', Action: 'sqs:SendMessage', Principal: { AWS: DATA_PLANE_ROLE } }),
        expect.objectContaining({ Sid: 'OnlyTheDataPlaneSends', Effect: 'Deny', Action: 'sqs:SendMessage', Principal: { AWS: '*' }, Condition: { ArnNotEquals: { 'aws:PrincipalArn': DATA_PLANE_ROLE } } }),
      ]),
    );
    expect(ingest.reporterRole).toBeUndefined();
  });

  it('without a principal, makes a reporter role and lets only it send', () => {
    const { template, ingest } = build();
    expect(ingest.reporterRole).toBeDefined();
    const roleArn = { 'Fn::GetAtt': [logicalId(ingest.reporterRole!), 'Arn'] };
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { ArnNotEquals: { 'aws:PrincipalArn': roleArn } } })]) },
    });
  });

  it('may get, put and update catalog items, nothing more on the table', () => {
    const { template, ingest } = build({ dataPlanePrincipalArn: DATA_PLANE_ROLE });
    // The function is the only identity with policies in this stack.
    expect(ingest.handler.function.role).toBeDefined();
    const actions = identityStatements(template).flatMap((s) => s.actions).filter((a) => a.startsWith('dynamodb:'));
    expect(new Set(actions)).toEqual(new Set(STATUS_INGEST_TABLE_ACTIONS));
  });

  it('refuses a principal that is not an IAM role or user ARN', () => {
    const error = captureError(() => build({ dataPlanePrincipalArn: 'data-plane', maxConcurrency: 1 }));
    expect(error).toBeInstanceOf(InvalidPropsError);
    expect((error as InvalidPropsError).problems).toEqual([
      'dataPlanePrincipalArn must be an IAM role or user ARN (arn:aws:iam::<account>:role/<name>), got "data-plane"',
      'maxConcurrency must be an integer in [2, 1000], got 1',
    ]);
  });

  it('with the reference data plane, runs its reporter every minute and lets only the reporter send', () => {
    const { template, ingest, dataPlane } = build({ reference: true });
    expect(ingest.reporter).toBeDefined();
    expect(ingest.reporterRole).toBeUndefined();
    const reporterRole = { 'Fn::GetAtt': [logicalId(ingest.reporter!.role), 'Arn'] };
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { ArnNotEquals: { 'aws:PrincipalArn': reporterRole } } })]) },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(ingest.reporter!.function), 'Arn'] } })],
    });
    // Room for three rounds 20 s apart, each started with 10 s left, before the next minute's invocation.
    const reporter = template.toJSON().Resources[logicalId(ingest.reporter!.function)].Properties;
    expect(reporter.Timeout).toBe(REPORTER_TIMEOUT_SECONDS);
    expect(reporterRounds(REPORTER_TIMEOUT_SECONDS * 1000 - 100, HEARTBEAT_INTERVAL_SECONDS * 1000)).toEqual([0, 20_000, 40_000]);
    expect(REPORTER_TIMEOUT_SECONDS).toBeLessThan(60);
    const statements = identityStatements(template);
    const onTable = statements.filter((s) => JSON.stringify(s.resources).includes(logicalId(dataPlane!.table.table))).flatMap((s) => s.actions);
    expect(new Set(onTable)).toEqual(new Set(REPORTER_TABLE_ACTIONS));
    expect(statements.some((s) => s.actions.includes('sqs:SendMessage') && JSON.stringify(s.resources).includes(logicalId(ingest.queue)))).toBe(true);
  });

  it('takes as many invocations in flight as the connectors it is sized for need, unless told', () => {
    // 25 000 connectors ÷ 20 s = 1 250 reports a second = 125 batches × 0.05 s, at half load: 12.5 → 13.
    expect(STATUS_INGEST_MAPPING).toEqual({ batchSize: 10, maxConcurrency: 13 });
    expect(STATUS_INGEST_MAPPING.maxConcurrency).toBe(statusIngestConcurrency({ connectors: ATTENTION_CAPACITY.connectors, heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS }));
    const ingestMapping = (t: Template, ingest: StatusIngest) => Object.values(t.findResources('AWS::Lambda::EventSourceMapping', { Properties: { EventSourceArn: { 'Fn::GetAtt': [logicalId(ingest.queue), 'Arn'] } } }));
    const byDefault = build({ dataPlanePrincipalArn: DATA_PLANE_ROLE });
    expect(ingestMapping(byDefault.template, byDefault.ingest).map((m) => m.Properties.ScalingConfig)).toEqual([{ MaximumConcurrency: 13 }]);
    const told = build({ dataPlanePrincipalArn: DATA_PLANE_ROLE, maxConcurrency: 250 });
    expect(ingestMapping(told.template, told.ingest).map((m) => m.Properties.ScalingConfig)).toEqual([{ MaximumConcurrency: 250 }]);
  });

  it('sizes status-ingest by Little’s law, within what an SQS event source accepts', () => {
    // Issue 16's 500 000 connectors: 25 000 reports a second, 2 500 batches × 0.05 s ÷ 0.5 = 250.
    expect(statusIngestConcurrency({ connectors: 500_000, heartbeatIntervalSeconds: 20 })).toBe(250);
    expect(statusIngestConcurrency({ connectors: 500_000, heartbeatIntervalSeconds: 20, utilisation: 1 })).toBe(125);
    expect(statusIngestConcurrency({ connectors: 0, heartbeatIntervalSeconds: 20 })).toBe(2);
    expect(statusIngestConcurrency({ connectors: 10_000_000, heartbeatIntervalSeconds: 20 })).toBe(1000);
    expect(() => statusIngestConcurrency({ connectors: 1, heartbeatIntervalSeconds: 0 })).toThrow(/^status-ingest sizing needs connectors ≥ 0, a positive heartbeat interval/);
    expect(() => statusIngestConcurrency({ connectors: 1, heartbeatIntervalSeconds: 20, utilisation: 0 })).toThrow(/utilisation in \(0, 1\]/);
  });

  it('refuses a principal together with the reference data plane', () => {
    const error = captureError(() => build({ dataPlanePrincipalArn: DATA_PLANE_ROLE, reference: true }));
    expect((error as InvalidPropsError).problems).toEqual(['dataPlanePrincipalArn is for an external data plane: with the reference data plane (referenceDataPlaneTable) its reporter sends']);
  });
});
