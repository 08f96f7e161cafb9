/**
 * The chaos run's machine: DynamoDB Local and the SQS emulator (its own, restartable ones, or the
 * test suite's shared ones), and the local pipeline on top, which it can restart the way a
 * crashed process, a restarted SQS emulator or a restarted DynamoDB Local would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startDynamoLocal, startSqsEmulator, type DynamoLocal, type SqsEmulator } from '../../local/emulators';
import { startPipeline, type Pipeline, type PipelineOptions } from '../../local/pipeline';
import type { FaultInjector } from '../../shared/dataplane/faults';

export interface EnvironmentOptions {
  /** Shared DynamoDB Local (cannot be restarted by us); absent → our own, with a data folder. */
  readonly dynamodbEndpoint?: string;
  /** Shared SQS emulator (cannot be restarted by us); absent → our own. */
  readonly sqsEndpoint?: string;
  readonly prefix: string;
  readonly faults: FaultInjector;
  readonly secretsKey: Buffer;
  readonly visibilityTimeoutSeconds: number;
  readonly retryPolicyOverrides?: PipelineOptions['retryPolicyOverrides'];
}

export class Environment {
  private ddb: DynamoLocal | undefined;
  private sqs: SqsEmulator | undefined;
  private dataDir: string | undefined;
  private ddbPort = 0;
  private sqsPort = 0;
  private ddbEndpoint = '';
  private sqsEndpoint = '';
  private current: Pipeline | undefined;

  constructor(private readonly o: EnvironmentOptions) {}

  get pipeline(): Pipeline {
    if (!this.current) throw new Error('the pipeline is not running');
    return this.current;
  }

  get canRestartDynamo(): boolean {
    return this.o.dynamodbEndpoint === undefined;
  }

  get canRestartSqs(): boolean {
    return this.o.sqsEndpoint === undefined;
  }

  async start(): Promise<void> {
    if (this.o.dynamodbEndpoint) {
      this.ddbEndpoint = this.o.dynamodbEndpoint;
    } else {
      // A fixed port and a data folder: a restart comes back with its tables, streams and the
      // router's checkpoint, as `npm start` does with `.data/`.
      this.dataDir = mkdtempSync(join(tmpdir(), 'ddl-chaos-'));
      this.ddbPort = await freePort();
      this.ddb = await startDynamoLocal({ dataDir: this.dataDir, port: this.ddbPort });
      this.ddbEndpoint = this.ddb.endpoint;
    }
    if (this.o.sqsEndpoint) {
      this.sqsEndpoint = this.o.sqsEndpoint;
    } else {
      this.sqs = await startSqsEmulator();
      this.sqsPort = this.sqs.port;
      this.sqsEndpoint = this.sqs.endpoint;
    }
    await this.startPipeline();
  }

  private async startPipeline(): Promise<void> {
    this.current = await startPipeline({
      dynamodbEndpoint: this.ddbEndpoint,
      sqsEndpoint: this.sqsEndpoint,
      prefix: this.o.prefix,
      port: 0,
      profile: 'fast',
      faults: this.o.faults,
      secretsKey: this.o.secretsKey,
      visibilityTimeoutSeconds: this.o.visibilityTimeoutSeconds,
      ...(this.o.retryPolicyOverrides ? { retryPolicyOverrides: this.o.retryPolicyOverrides } : {}),
    });
  }

  private async stopPipeline(): Promise<void> {
    const p = this.current;
    this.current = undefined;
    await p?.stop();
  }

  /** The process dies and comes back on the same tables and queues. */
  async restartProcess(): Promise<void> {
    await this.stopPipeline();
    await this.startPipeline();
  }

  /** The SQS emulator dies with every message it held; a new one starts on the same port. */
  async restartSqs(): Promise<void> {
    if (!this.sqs) throw new Error('the SQS emulator is shared: it cannot be restarted');
    await this.stopPipeline();
    await this.sqs.stop();
    this.sqs = await startSqsEmulator({ port: this.sqsPort });
    await this.startPipeline();
  }

  /** DynamoDB Local stops and starts again on the same data folder and port. */
  async restartDynamo(): Promise<void> {
    if (!this.ddb || !this.dataDir) throw new Error('DynamoDB Local is shared: it cannot be restarted');
    await this.stopPipeline();
    await this.ddb.stop();
    this.ddb = await startDynamoLocal({ dataDir: this.dataDir, port: this.ddbPort });
    await this.startPipeline();
  }

  async close(): Promise<void> {
    await this.stopPipeline().catch(() => undefined);
    await this.sqs?.stop().catch(() => undefined);
    await this.ddb?.stop().catch(() => undefined);
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
