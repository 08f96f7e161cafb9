import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { DdlFunction } from './ddl-function';
import type { PgwireService } from './pgwire-service';
import { PropsValidator } from './props-validation';
import type { Sweeper } from './sweeper';

/** The log levels Powertools for AWS Lambda (TypeScript) accepts in `POWERTOOLS_LOG_LEVEL`. */
export const POWERTOOLS_LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
export type PowertoolsLogLevel = (typeof POWERTOOLS_LOG_LEVELS)[number];

/**
 * The metrics the sweeper emits through Powertools (EMF, shared/lambda/sweeper.ts
 * `sweeperHandler`), in the functions' namespace with the one dimension `service`.
 */
export const SWEEPER_METRICS = {
  attentionItemsRead: 'AttentionItemsRead',
  replayedEffects: 'ReplayedEffects',
  deadLetteredEffects: 'DeadLetteredEffects',
  oldestPendingEffectAgeSeconds: 'OldestPendingEffectAgeSeconds',
  /** Connectors whose status is `failed`, counted by the sweeper's connector status pass on every sweep. */
  failedConnectors: 'FailedConnectors',
  /** 1 when a sweep stopped at its time budget with due work left (the next sweep starts with it): sustained, the sweeper needs more shards or a shorter interval. */
  sweepTruncated: 'SweepTruncated',
} as const;

/** The sweeper's alarms. */
export interface SweeperAlarms {
  /** An effect has stayed pending longer than `pendingEffectAgeThreshold`. */
  readonly stuckEffects: cloudwatch.Alarm;
  /** At least one connector is `failed`. */
  readonly failedConnectors: cloudwatch.Alarm;
  /** The sweeper has not run for three intervals: every sweeper metric (and alarm) went quiet. */
  readonly notRunning: cloudwatch.Alarm;
}

/** The Postgres wire endpoint's alarms. */
export interface PgwireAlarms {
  /** A task has failed the load balancer's health checks for five minutes. */
  readonly unhealthyTargets: cloudwatch.Alarm;
  /** No task has passed them for two minutes: every connection is refused (missing data is breaching). */
  readonly noHealthyTargets: cloudwatch.Alarm;
  /** The tasks' average CPU has stayed high for five minutes (scaling may be at its maximum). */
  readonly cpuHigh: cloudwatch.Alarm;
}

/** The service's average CPU (percent) over five minutes past which {@link PgwireAlarms.cpuHigh} fires: above the scaling target, so it means scaling did not keep up. */
export const PGWIRE_CPU_ALARM_PERCENT = 85;

export interface ObservabilityProps {
  /**
   * The functions to configure (Powertools environment) and watch (errors alarm), by name.
   * More can be added with {@link Observability.addFunction}.
   * @default {}
   */
  readonly functions?: Readonly<Record<string, DdlFunction>>;
  /**
   * Queues that must stay empty (DLQs, on-failure destinations), by name: one message in one of
   * them is an effect or a stream batch the system gave up on. More can be added with
   * {@link Observability.addDeadLetterQueue}.
   * @default {}
   */
  readonly deadLetterQueues?: Readonly<Record<string, sqs.IQueue>>;
  /**
   * The sweeper to watch: its errors, stuck effects, failed connectors, and that it runs at all.
   * Can also be added with {@link Observability.addSweeper}.
   * @default - no sweeper alarms
   */
  readonly sweeper?: Sweeper;
  /**
   * Age past which a pending effect raises the stuck-effects alarm. An executor retries a failing
   * effect for about three minutes (8 receives, backoff 1 s doubling to 60 s) before its message
   * goes to the DLQ, so a shorter age would page for effects that are still being retried. (An
   * invocation that times out or crashes gives its messages back only after the queue's 150 s
   * visibility timeout: such effects can outlast the threshold and page, rightly.)
   * @default Duration.minutes(5)
   */
  readonly pendingEffectAgeThreshold?: Duration;
  /**
   * The REST API whose 5xx responses raise an alarm.
   * @default - no API alarm
   */
  readonly api?: apigw.RestApi;
  /**
   * `POWERTOOLS_SERVICE_NAME` of every function.
   * @default 'ddl-control-plane'
   */
  readonly serviceName?: string;
  /**
   * `POWERTOOLS_METRICS_NAMESPACE` of every function.
   * @default 'DdlControlPlane'
   */
  readonly metricsNamespace?: string;
  /**
   * `POWERTOOLS_LOG_LEVEL` of every function.
   * @default 'INFO'
   */
  readonly logLevel?: PowertoolsLogLevel;
  /**
   * The topic every alarm notifies (on ALARM and back to OK).
   * @default - a new topic, encrypted with a new customer managed key CloudWatch may use
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Name of the CloudWatch dashboard.
   * @default - generated by CloudFormation
   */
  readonly dashboardName?: string;
  /**
   * Make the dashboard (LocalStack's free image cannot: no provider for AWS::CloudWatch::Dashboard).
   * The alarms are made either way.
   * @default true
   */
  readonly dashboard?: boolean;
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * Operations in one place: the Powertools environment of every function, alarms on what must
 * never happen quietly (a message in a DLQ or in the router's on-failure queue, a function
 * error, an API 5xx, an effect stuck pending, a failed connector, a sweeper that stopped), an
 * encrypted SNS topic they notify, and a dashboard of the same metrics.
 */
export class Observability extends Construct {
  /** The topic the alarms notify. */
  readonly alarmTopic: sns.ITopic;
  /** The topic's key, when this construct made the topic. */
  readonly alarmTopicKey?: kms.Key;
  /** The dashboard (absent when `dashboard: false`). */
  readonly dashboard?: cloudwatch.Dashboard;
  /** The depth alarm of each dead-letter queue, by name. */
  readonly deadLetterAlarms: Record<string, cloudwatch.Alarm> = {};
  /** The errors alarm of each function, by name. */
  readonly functionErrorAlarms: Record<string, cloudwatch.Alarm> = {};
  /** The API's 5xx alarm, when an API was given. */
  readonly apiServerErrorAlarm?: cloudwatch.Alarm;
  /** The alarms of each sweeper, by name. */
  readonly sweeperAlarms: Record<string, SweeperAlarms> = {};
  /** The alarms of each Postgres wire endpoint, by name. */
  readonly pgwireAlarms: Record<string, PgwireAlarms> = {};
  /** `POWERTOOLS_SERVICE_NAME`: the `service` dimension of every Powertools metric. */
  readonly serviceName: string;
  /** `POWERTOOLS_METRICS_NAMESPACE`: the namespace of every Powertools metric. */
  readonly metricsNamespace: string;

  private readonly environment: Readonly<Record<string, string>>;
  private readonly action: actions.SnsAction;
  private readonly pendingEffectAgeThreshold: Duration;

  constructor(scope: Construct, id: string, props: ObservabilityProps = {}) {
    super(scope, id);
    new PropsValidator(scope, id)
      .nonEmpty('serviceName', props.serviceName)
      .nonEmpty('metricsNamespace', props.metricsNamespace)
      .check(
        props.logLevel === undefined || POWERTOOLS_LOG_LEVELS.includes(props.logLevel),
        `logLevel must be one of ${POWERTOOLS_LOG_LEVELS.join(', ')}, got ${props.logLevel}`,
      )
      .durationInRange('pendingEffectAgeThreshold', props.pendingEffectAgeThreshold, Duration.minutes(1), Duration.days(1))
      .throwIfInvalid();
    this.pendingEffectAgeThreshold = props.pendingEffectAgeThreshold ?? Duration.minutes(5);

    this.serviceName = props.serviceName ?? 'ddl-control-plane';
    this.metricsNamespace = props.metricsNamespace ?? 'DdlControlPlane';
    this.environment = {
      POWERTOOLS_SERVICE_NAME: this.serviceName,
      POWERTOOLS_METRICS_NAMESPACE: this.metricsNamespace,
      POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'INFO',
    };

    if (props.alarmTopic) {
      this.alarmTopic = props.alarmTopic;
    } else {
      // CloudWatch cannot publish to a topic encrypted with the AWS managed key alias/aws/sns
      // (its key policy cannot be changed), so the topic gets a key whose policy lets it.
      // https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/AlarmThatSendsEmail.html
      this.alarmTopicKey = new kms.Key(this, 'AlarmTopicKey', {
        description: 'Encrypts the DDL control plane alarm topic',
        enableKeyRotation: true,
        removalPolicy: RemovalPolicy.DESTROY,
        pendingWindow: Duration.days(7),
      });
      this.alarmTopicKey.addToResourcePolicy(
        new iam.PolicyStatement({
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          resources: ['*'], // in a key policy, "*" means this key
          conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
        }),
      );
      this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
        displayName: 'DDL control plane alarms',
        masterKey: this.alarmTopicKey,
        enforceSSL: true,
      });
    }
    this.action = new actions.SnsAction(this.alarmTopic);
    if (props.dashboard ?? true) this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });

    for (const [name, queue] of Object.entries(props.deadLetterQueues ?? {})) this.addDeadLetterQueue(name, queue);
    for (const [name, fn] of Object.entries(props.functions ?? {})) this.addFunction(name, fn);
    if (props.sweeper) this.addSweeper('sweeper', props.sweeper);
    if (props.api) {
      const errors = props.api.metricServerError({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM });
      this.apiServerErrorAlarm = this.addAlarm('Api5xx', errors, 'The SQL API answered with a 5xx');
      this.dashboard?.addWidgets(
        new cloudwatch.GraphWidget({
          title: 'API requests and errors',
          left: [
            props.api.metricCount({ period: FIVE_MINUTES }),
            props.api.metricClientError({ period: FIVE_MINUTES }),
            errors,
          ],
          width: 12,
        }),
        new cloudwatch.GraphWidget({
          title: 'API latency',
          left: [
            props.api.metricLatency({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(50) }),
            props.api.metricLatency({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99) }),
          ],
          width: 12,
        }),
      );
    }
  }

  /** Sets the Powertools environment on a function and alarms on its errors. */
  addFunction(name: string, fn: DdlFunction): cloudwatch.Alarm {
    for (const [k, v] of Object.entries(this.environment)) fn.addEnvironment(k, v);
    const errors = fn.function.metricErrors({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM });
    const alarm = this.addAlarm(`${name}-errors`, errors, `Lambda ${name} failed (uncaught error or timeout)`);
    this.functionErrorAlarms[name] = alarm;
    this.dashboard?.addWidgets(
      new cloudwatch.GraphWidget({
        title: `${name}: invocations, errors, throttles`,
        left: [
          fn.function.metricInvocations({ period: FIVE_MINUTES }),
          errors,
          fn.function.metricThrottles({ period: FIVE_MINUTES }),
        ],
        right: [fn.function.metricDuration({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99) })],
        width: 8,
      }),
    );
    return alarm;
  }

  /**
   * Watches a sweeper: the function (as {@link addFunction}), effects pending too long, failed
   * connectors, and a sweeper that stopped running, plus its figures on the dashboard.
   */
  addSweeper(name: string, sweeper: Sweeper): SweeperAlarms {
    this.addFunction(name, sweeper.handler);
    const metric = (metricName: string, statistic: string) =>
      this.powertoolsMetric(metricName, { period: FIVE_MINUTES, statistic });
    const oldestPending = metric(SWEEPER_METRICS.oldestPendingEffectAgeSeconds, cloudwatch.Stats.MAXIMUM);
    const failedConnectors = metric(SWEEPER_METRICS.failedConnectors, cloudwatch.Stats.MAXIMUM);
    const thresholdSeconds = this.pendingEffectAgeThreshold.toSeconds();

    // Invocations is only published for periods with invocations: missing data means the rule
    // or the function stopped, which must be breaching. Without this alarm a stopped sweeper
    // would turn the stuck-effects alarm quiet exactly when effects pile up.
    const window = Duration.minutes(Math.max(5, 3 * sweeper.interval.toMinutes()));
    const invocations = sweeper.handler.function.metricInvocations({ period: window, statistic: cloudwatch.Stats.SUM });

    const alarms: SweeperAlarms = {
      stuckEffects: this.addAlarm(
        `${name}-stuck-effects`,
        oldestPending,
        `An outbox effect has been pending for more than ${this.pendingEffectAgeThreshold.toHumanString()}: see mz_internal.mz_pending_effects and the DLQs`,
        thresholdSeconds,
      ),
      failedConnectors: this.addAlarm(
        `${name}-failed-connectors`,
        failedConnectors,
        'At least one connector is failed: see mz_internal.mz_source_statuses and mz_sink_statuses',
      ),
      notRunning: this.addAlarm(
        `${name}-not-running`,
        invocations,
        `Lambda ${name} has not run for ${window.toHumanString()}: check its EventBridge rule and its throttles`,
        1,
        {
          comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.BREACHING,
        },
      ),
    };
    this.sweeperAlarms[name] = alarms;

    this.dashboard?.addWidgets(
      new cloudwatch.GraphWidget({
        title: `${name}: outbox replay`,
        left: [
          metric(SWEEPER_METRICS.attentionItemsRead, cloudwatch.Stats.SUM),
          metric(SWEEPER_METRICS.replayedEffects, cloudwatch.Stats.SUM),
          metric(SWEEPER_METRICS.deadLetteredEffects, cloudwatch.Stats.MAXIMUM),
        ],
        // Sweeps cut short at their time budget: due work left for the next sweep.
        right: [metric(SWEEPER_METRICS.sweepTruncated, cloudwatch.Stats.SUM)],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `${name}: oldest pending effect (seconds)`,
        left: [oldestPending],
        leftAnnotations: [{ value: thresholdSeconds, label: 'stuck-effects alarm' }],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `${name}: failed connectors`,
        left: [failedConnectors],
        width: 8,
      }),
    );
    return alarms;
  }

  /**
   * Watches the Postgres wire endpoint: gives its container the functions' Powertools environment
   * (its log lines carry the same service name and level) and alarms on unhealthy tasks, on no
   * healthy task at all and on sustained high CPU, with its connections and health on the dashboard.
   */
  addPgwireService(name: string, pgwire: PgwireService): PgwireAlarms {
    for (const [k, v] of Object.entries(this.environment)) pgwire.container.addEnvironment(k, v);
    const targets = pgwire.targetGroup.metrics;
    // The minimum over five minutes: unhealthy in every minute of them, not a task that was replaced.
    const unhealthy = targets.unHealthyHostCount({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.MINIMUM });
    const healthy = targets.healthyHostCount({ period: Duration.minutes(2), statistic: cloudwatch.Stats.MAXIMUM });
    const cpu = pgwire.service.metricCpuUtilization({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.AVERAGE });
    const alarms: PgwireAlarms = {
      unhealthyTargets: this.addAlarm(
        `${name}-unhealthy-targets`,
        unhealthy,
        'A pgwire task has failed the NLB health checks (GET /health on 8080) for 5 minutes: see the task log group and the ECS service events',
      ),
      noHealthyTargets: this.addAlarm(
        `${name}-no-healthy-targets`,
        healthy,
        'No pgwire task has passed the NLB health checks for 2 minutes: every Postgres connection is refused. See the ECS service events (tasks that stop at start: their log says why, e.g. the TLS secret)',
        1,
        { comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD, treatMissingData: cloudwatch.TreatMissingData.BREACHING },
      ),
      cpuHigh: this.addAlarm(
        `${name}-cpu-high`,
        cpu,
        `The pgwire tasks' average CPU has been above ${PGWIRE_CPU_ALARM_PERCENT}% for 5 minutes: the service may be at maxTasks (${pgwire.maxTasks})`,
        PGWIRE_CPU_ALARM_PERCENT,
      ),
    };
    this.pgwireAlarms[name] = alarms;
    this.dashboard?.addWidgets(
      new cloudwatch.GraphWidget({
        title: `${name}: connections`,
        left: [pgwire.loadBalancer.metrics.activeFlowCount({ period: Duration.minutes(1) }), pgwire.loadBalancer.metrics.newFlowCount({ period: Duration.minutes(1), statistic: cloudwatch.Stats.SUM })],
        right: [pgwire.connectionsPerTaskMetric],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `${name}: healthy and unhealthy tasks`,
        left: [targets.healthyHostCount({ period: Duration.minutes(1) }), targets.unHealthyHostCount({ period: Duration.minutes(1) })],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `${name}: CPU and memory (%)`,
        left: [cpu, pgwire.service.metricMemoryUtilization({ period: FIVE_MINUTES })],
        leftAnnotations: [{ value: PGWIRE_CPU_ALARM_PERCENT, label: 'cpu-high alarm' }],
        width: 8,
      }),
    );
    return alarms;
  }

  /**
   * A metric the functions emit through Powertools (EMF): the Powertools namespace, with the
   * `service` dimension Powertools adds to every metric.
   */
  powertoolsMetric(metricName: string, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.metricsNamespace,
      metricName,
      dimensionsMap: { service: this.serviceName },
      ...options,
    });
  }

  /** Alarms as soon as one message is visible in the queue. */
  addDeadLetterQueue(name: string, queue: sqs.IQueue): cloudwatch.Alarm {
    const depth = queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: cloudwatch.Stats.MAXIMUM,
    });
    const alarm = this.addAlarm(`${name}-depth`, depth, `Messages in ${name}: work the system gave up on`, 0);
    this.deadLetterAlarms[name] = alarm;
    this.dashboard?.addWidgets(new cloudwatch.SingleValueWidget({ title: `${name} depth`, metrics: [depth], width: 6 }));
    return alarm;
  }

  /**
   * An alarm that notifies the topic, by default on `metric > threshold` with missing data not
   * breaching.
   */
  addAlarm(
    id: string,
    metric: cloudwatch.IMetric,
    description: string,
    threshold = 0,
    options: Pick<cloudwatch.AlarmProps, 'comparisonOperator' | 'treatMissingData'> = {},
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric,
      threshold,
      comparisonOperator: options.comparisonOperator ?? cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: options.treatMissingData ?? cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }
}
