/**
 * Records every AWS call the control plane makes, as IAM sees it: the function that made it,
 * the IAM action(s) it is authorized as, the resource ARN and, for DynamoDB, the leading (partition)
 * keys. Off unless a recorder is passed to the client factories (`ClientOptions.recorder`); the
 * local runtime turns it on for the IAM sufficiency test (test/integration/iam.test.ts) and with
 * `RECORD_AWS_CALLS=<file>` on `npm start`.
 *
 * Which function made a call is carried by `AsyncLocalStorage`: the local runtime runs each
 * handler (and each event source mapping's reads, which AWS makes with the function's role)
 * inside `runAs(functionName, ...)`. Calls outside any function (resource set-up, test helpers,
 * the local-only checkpoint table) are not recorded. In Lambda a process is one function, so the
 * recorder's `defaultFunction` (e.g. `AWS_LAMBDA_FUNCTION_NAME`) names them instead.
 *
 * A middy-style small factory per hook: `build` step (after the document client marshalled its input).
 */
import { SECRET_NAME_ROOT } from './secret-names';
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RecordedCall {
  /** The function (local name: `ddl-api`, `executor-compute`, ...). */
  readonly fn: string;
  /** SDK operation, e.g. `TransactWriteItems`. */
  readonly operation: string;
  /** IAM action, e.g. `dynamodb:PutItem` (one per item of a transaction or batch). */
  readonly action: string;
  readonly resource: string;
  /** DynamoDB: the partition key values the request touches (`dynamodb:LeadingKeys`). */
  readonly leadingKeys?: readonly string[];
}

const current = new AsyncLocalStorage<string>();

/** Runs `fn` as the named function: every AWS call it makes (and the async work it starts) is attributed to it. */
export function runAs<T>(functionName: string, fn: () => T): T {
  return current.run(functionName, fn);
}

/** The part of an SDK client the recorder needs (no SDK import: see options.ts). */
interface RecordableClient {
  readonly middlewareStack: { add(mw: unknown, options: { step: 'build'; name: string; override?: boolean }): void };
}

type Input = Record<string, any>;
type Call = Omit<RecordedCall, 'fn'>;

/** SQS batch operations are authorized as their single-message action. */
const SQS_ACTION: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

/** A transaction item is authorized as the single-item action it performs. */
const TRANSACT_ACTION: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' };

export interface CallRecorderOptions {
  readonly region: string;
  readonly accountId: string;
  /** The name of calls made outside `runAs` (in Lambda: the function's own name); unset: they are not recorded. */
  readonly defaultFunction?: string;
  /** The partition key attribute of the tables (shared/definitions.ts ATTR.pk). */
  readonly partitionKey?: string;
  /**
   * The deployment's secret name prefix the recorded secret names carry (a stack's is
   * `deploymentNames(stack).secretNamePrefix`). @default SECRET_NAME_ROOT
   */
  readonly secretNamePrefix?: string;
}

export class CallRecorder {
  readonly calls: RecordedCall[] = [];
  /** Shard iterator → stream ARN: GetRecords names only the iterator, IAM checks the stream. */
  private readonly iterators = new Map<string, string>();

  constructor(private readonly o: CallRecorderOptions) {}

  /** Adds the recording middleware to a client (the document client shares its DynamoDB client's stack). */
  attach<C>(client: C): C {
    (client as unknown as RecordableClient).middlewareStack.add(
      (next: (args: { input: Input }) => Promise<{ output: Input }>, context: { clientName?: string; commandName?: string }) =>
        async (args: { input: Input }) => {
          const fn = current.getStore() ?? this.o.defaultFunction;
          const result = await next(args);
          if (fn) {
            const operation = (context.commandName ?? '').replace(/Command$/, '');
            try {
              for (const call of this.describe(context.clientName ?? '', operation, args.input, result.output)) this.calls.push({ fn, ...call });
            } catch (err) {
              // Recording never changes a call's outcome; an input it cannot read shows as such.
              this.calls.push({ fn, operation, action: `unrecorded:${operation}`, resource: (err as Error).message });
            }
          }
          return result;
        },
      { step: 'build', name: 'callRecorder', override: true },
    );
    return client;
  }

  /**
   * Records the secret store's methods as `secretstore:<method>` calls on the secret's AWS name
   * (`<secretNamePrefix>/<tenant>/<id>`, shared/secrets/aws-store.ts): locally the store is a table,
   * in AWS it is Secrets Manager, and the IAM check expands each method into the Secrets Manager
   * actions it needs (cdk/constructs/secret-store.ts SECRET_STORE_ACCESS).
   */
  secretStore<S extends object>(store: S): S {
    return new Proxy(store, {
      get: (target, prop, receiver) => {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        return (...args: unknown[]) => {
          const fn = current.getStore() ?? this.o.defaultFunction;
          const [tenant, secretId] = args as [string, string | undefined];
          const name = prop === 'list' ? '*' : `secret:${this.o.secretNamePrefix ?? SECRET_NAME_ROOT}/${tenant}/${secretId}-AbCdEf`;
          if (fn) this.calls.push({ fn, operation: prop, action: `secretstore:${prop}`, resource: name === '*' ? '*' : this.arn('secretsmanager', name) });
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  /**
   * Records each publish of status events as `events:PutEvents` on the bus `busName`: locally the
   * router publishes to the event log (local/event-log.ts), in AWS to the stack's EventBridge bus.
   */
  eventBus<P extends { publish(events: readonly unknown[]): Promise<readonly string[]> }>(publisher: P, busName: string): P {
    return {
      ...publisher,
      publish: (events: readonly unknown[]) => {
        const fn = current.getStore() ?? this.o.defaultFunction;
        if (fn && events.length) this.calls.push({ fn, operation: 'PutEvents', action: 'events:PutEvents', resource: this.arn('events', `event-bus/${busName}`) });
        return publisher.publish(events);
      },
    } as P;
  }

  /** The ARN IAM sees for a queue URL. */
  queueArn(url: string): string {
    return this.queue(url);
  }

  private arn(service: string, resource: string): string {
    return `arn:aws:${service}:${this.o.region}:${this.o.accountId}:${resource}`;
  }

  private table(name: string, index?: string): string {
    return this.arn('dynamodb', `table/${name}${index ? `/index/${index}` : ''}`);
  }

  private queue(url: string): string {
    // `https://host/<account>/<name>`; the SDK also accepts a bare path.
    const [account, name] = url.replace(/^[a-z]+:\/\/[^/]*/i, '').split('/').filter(Boolean).slice(-2);
    return `arn:aws:sqs:${this.o.region}:${account ?? this.o.accountId}:${name}`;
  }

  /** The partition key value of a key or item (AttributeValue form). */
  private pkOf(keyOrItem: Input | undefined): string[] {
    const v = keyOrItem?.[this.o.partitionKey ?? 'pk'];
    return v && typeof v.S === 'string' ? [v.S] : [];
  }

  /** The value a key condition binds the partition key to (`#pk = :pk` or `pk = :v`). */
  private queryLeadingKey(input: Input): string[] {
    const pk = this.o.partitionKey ?? 'pk';
    const names: Record<string, string> = input.ExpressionAttributeNames ?? {};
    for (const m of String(input.KeyConditionExpression ?? '').matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
      const name = m[1]!.startsWith('#') ? names[m[1]!] : m[1];
      const value = input.ExpressionAttributeValues?.[m[2]!];
      if (name === pk && typeof value?.S === 'string') return [value.S];
    }
    return [];
  }

  private describe(clientName: string, operation: string, input: Input, output: Input): Call[] {
    if (clientName === 'DynamoDBStreamsClient') return this.streamCall(operation, input, output);
    if (clientName === 'DynamoDBClient') return this.dynamoCall(operation, input);
    if (clientName === 'SQSClient') {
      const resource = input.QueueUrl ? this.queue(input.QueueUrl) : this.arn('sqs', input.QueueName ?? '*');
      return [{ operation, action: `sqs:${SQS_ACTION[operation] ?? operation}`, resource }];
    }
    if (clientName === 'SecretsManagerClient') {
      return [{ operation, action: `secretsmanager:${operation}`, resource: String(input.SecretId ?? input.Name ?? '*') }];
    }
    return [{ operation, action: `${clientName.replace(/Client$/, '').toLowerCase()}:${operation}`, resource: '*' }];
  }

  private dynamoCall(operation: string, input: Input): Call[] {
    const single = (action: string, table: string, leadingKeys: string[], index?: string): Call => ({
      operation,
      action: `dynamodb:${action}`,
      resource: this.table(table, index),
      ...(leadingKeys.length ? { leadingKeys } : {}),
    });
    switch (operation) {
      case 'GetItem':
      case 'PutItem':
      case 'UpdateItem':
      case 'DeleteItem':
        return [single(operation, input.TableName, this.pkOf(input.Key ?? input.Item))];
      case 'Query':
        return [single(operation, input.TableName, this.queryLeadingKey(input), input.IndexName)];
      case 'Scan':
        return [single(operation, input.TableName, [], input.IndexName)];
      case 'TransactWriteItems':
      case 'TransactGetItems':
        // AWS authorizes each item as its own action on its own table.
        return (input.TransactItems as Input[]).map((item) => {
          const [kind, body] = Object.entries(item)[0] as [string, Input];
          return single(TRANSACT_ACTION[kind] ?? kind, body.TableName, this.pkOf(body.Key ?? body.Item));
        });
      case 'BatchGetItem':
        return Object.entries(input.RequestItems as Record<string, { Keys: Input[] }>).map(([t, r]) => single('BatchGetItem', t, [...new Set(r.Keys.flatMap((k) => this.pkOf(k)))]));
      case 'BatchWriteItem':
        return Object.entries(input.RequestItems as Record<string, Input[]>).map(([t, rs]) =>
          single('BatchWriteItem', t, [...new Set(rs.flatMap((r) => this.pkOf(r.PutRequest?.Item ?? r.DeleteRequest?.Key)))]),
        );
      default:
        return [single(operation, input.TableName ?? '*', [])];
    }
  }

  private streamCall(operation: string, input: Input, output: Input): Call[] {
    const remember = (it: unknown, arn: string) => {
      if (typeof it !== 'string') return;
      if (this.iterators.size > 10_000) this.iterators.clear();
      this.iterators.set(it, arn);
    };
    let stream: string = input.StreamArn ?? this.iterators.get(input.ShardIterator) ?? '*';
    if (operation === 'GetShardIterator') remember(output.ShardIterator, stream);
    if (operation === 'GetRecords') remember(output.NextShardIterator, stream);
    if (operation === 'ListStreams') stream = '*';
    return [{ operation, action: `dynamodb:${operation}`, resource: stream }];
  }
}
