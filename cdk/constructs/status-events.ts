import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ALERTING_DATA_PLANE_STATUSES, ALERTING_REPLICA_STATUSES, ALERTING_STATUSES, DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/model';
import { ENV } from '../../shared/definitions';

export interface StatusEventsProps {
  /**
   * The bus's name.
   * @default - a name CloudFormation derives from the stack
   */
  readonly eventBusName?: string;
  /**
   * The topic the example rule sends `stalled` and `failed` to.
   * @default - a new topic, encrypted with a key EventBridge may use
   */
  readonly alertTopic?: sns.ITopic;
}

/**
 * Status events (shared/events/): the stack's own EventBridge bus, which the stream router
 * publishes connector and replica status changes and failed effects to, and example rules that
 * send the transitions to `stalled` or `failed`, every failed effect, replicas gone `offline`, and
 * the data plane gone silent to an SNS topic. Other rules can
 * match the same events (docs/operations.md shows some).
 */
export class StatusEvents extends Construct {
  readonly bus: events.EventBus;
  /** Connector → `stalled`/`failed`, and Effect Failed → {@link alertTopic}. */
  readonly alertRule: events.Rule;
  /** The data plane as a whole → `silent` → {@link alertTopic}. */
  readonly dataPlaneAlertRule: events.Rule;
  /** Cluster replica → `offline` → {@link alertTopic}. */
  readonly replicaAlertRule: events.Rule;
  readonly alertTopic: sns.ITopic;
  /** The key of the topic the construct made (none when one was passed in). */
  readonly alertTopicKey?: kms.Key;

  constructor(scope: Construct, id: string, props: StatusEventsProps = {}) {
    super(scope, id);
    this.bus = new events.EventBus(this, 'Bus', { ...(props.eventBusName ? { eventBusName: props.eventBusName } : {}) });

    if (props.alertTopic) this.alertTopic = props.alertTopic;
    else {
      // EventBridge cannot publish to a topic encrypted with the AWS managed key alias/aws/sns;
      // a key of ours lets it: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-troubleshooting.html#eb-sns-permissions
      this.alertTopicKey = new kms.Key(this, 'AlertTopicKey', {
        description: 'Encrypts the DDL control plane status alert topic',
        enableKeyRotation: true,
        removalPolicy: RemovalPolicy.DESTROY,
        pendingWindow: Duration.days(7),
      });
      this.alertTopicKey.addToResourcePolicy(
        new iam.PolicyStatement({
          principals: [new iam.ServicePrincipal('events.amazonaws.com')],
          actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          resources: ['*'], // in a key policy, "*" means this key
          conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
        }),
      );
      this.alertTopic = new sns.Topic(this, 'AlertTopic', { displayName: 'DDL control plane status alerts', masterKey: this.alertTopicKey, enforceSSL: true });
    }

    this.alertRule = new events.Rule(this, 'StalledOrFailed', {
      eventBus: this.bus,
      description: 'Example: connectors that became stalled or failed, and failed effects, to the status alert topic',
      eventPattern: {
        source: [EVENT_SOURCE],
        detailType: [DETAIL_TYPES.connectorStatusChanged, DETAIL_TYPES.effectFailed],
        // A stall the whole data plane's silence caused pages once, through DataPlaneSilent below,
        // not once per connector (500 000 messages for one outage).
        detail: { to: [...ALERTING_STATUSES], data_plane_silent: [false] },
      },
      targets: [new targets.SnsTopic(this.alertTopic)],
    });
    this.dataPlaneAlertRule = new events.Rule(this, 'DataPlaneSilent', {
      eventBus: this.bus,
      description: 'Example: the data plane as a whole stopped reporting connector status, to the status alert topic',
      eventPattern: { source: [EVENT_SOURCE], detailType: [DETAIL_TYPES.dataPlaneStatusChanged], detail: { to: [...ALERTING_DATA_PLANE_STATUSES] } },
      targets: [new targets.SnsTopic(this.alertTopic)],
    });
    // A rule of its own: one pattern cannot pair each detail-type with its own `to` values.
    this.replicaAlertRule = new events.Rule(this, 'ReplicaOffline', {
      eventBus: this.bus,
      description: 'Example: cluster replicas that went offline, to the status alert topic',
      eventPattern: { source: [EVENT_SOURCE], detailType: [DETAIL_TYPES.replicaStatusChanged], detail: { to: [...ALERTING_REPLICA_STATUSES] } },
      targets: [new targets.SnsTopic(this.alertTopic)],
    });
  }

  /** Lets a function publish to this bus (and this bus only), and tells it the bus's name. */
  grantPublish(fn: lambda.Function): void {
    this.bus.grantPutEventsTo(fn);
    fn.addEnvironment(ENV.eventBusName, this.bus.eventBusName);
  }
}
