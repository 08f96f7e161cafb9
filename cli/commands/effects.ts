/**
 * `ddlctl effects`: the outbox effects not yet applied — pending (with their last error while
 * they retry), failed, and dead-lettered (out of retries, waiting in a DLQ) — and
 * `ddlctl effects redrive`, which moves dead-lettered messages back to their queue.
 */
import pc from 'picocolors';
import { redriveDeadLetters } from '../../shared/router/redrive';
import { OutboxStore } from '../../shared/catalog/outbox-store';
import type { Controller } from '../../shared/definitions';
import type { SqlClient } from '../client';
import type { GlobalOptions } from '../connection';
import { CliError, EXIT } from '../errors';
import { parseControllers, queuesOf, target, type AwsOptions } from '../admin';
import { ago, heading, table } from '../render';
import { pendingEffects, type EffectRow } from '../wait';

export interface EffectGroups {
  readonly pending: readonly EffectRow[];
  readonly failed: readonly EffectRow[];
  readonly deadLettered: readonly EffectRow[];
}

export function groupEffects(rows: readonly EffectRow[]): EffectGroups {
  return {
    pending: rows.filter((e) => e.state === 'pending' && !e.dead_lettered),
    failed: rows.filter((e) => e.state === 'failed'),
    deadLettered: rows.filter((e) => e.state === 'pending' && e.dead_lettered),
  };
}

export async function listEffects(client: SqlClient, o: { json?: boolean }): Promise<number> {
  const rows = await pendingEffects(client);
  const g = groupEffects(rows);
  if (o.json) {
    console.log(JSON.stringify(g, null, 2));
    return EXIT.ok;
  }
  const now = Date.now();
  const section = (title: string, list: readonly EffectRow[], colour: (s: string) => string) => {
    console.log(heading(title, list.length));
    if (list.length === 0) console.log(pc.dim('  none'));
    else
      console.log(
        table(
          ['object', 'effect', 'gen', 'attempts', 'age', 'last error', 'effect id'],
          list.map((e) => [e.object_name, `${e.intent} ${e.controller}.${e.kind}`, e.generation, e.attempts, ago(e.created_at, now), e.last_error ? colour(e.last_error) : '', e.effect_id]),
        ),
      );
    console.log();
  };
  section('PENDING', g.pending, pc.yellow);
  section('FAILED', g.failed, pc.red);
  section('DEAD-LETTERED', g.deadLettered, pc.red);
  const summary = `${g.pending.length} pending, ${g.failed.length} failed, ${g.deadLettered.length} dead-lettered`;
  console.log(g.failed.length + g.deadLettered.length > 0 ? pc.red(summary) : summary);
  if (g.deadLettered.length > 0) console.log(pc.dim('fix the cause (the last error says what it was), then: ddlctl effects redrive'));
  return EXIT.ok;
}

export interface RedriveOptions extends AwsOptions {
  readonly controller?: string;
  readonly queueUrl?: string;
  readonly dlqUrl?: string;
  readonly max?: string;
}

export async function redrive(g: GlobalOptions, o: RedriveOptions): Promise<number> {
  const controllers = parseControllers(o.controller);
  if ((o.queueUrl || o.dlqUrl) && !o.controller) throw new CliError('--queue-url and --dlq-url name one controller\'s queues: add --controller', EXIT.usage);
  if (o.table === undefined && (o.queueUrl || o.dlqUrl)) throw new CliError('--queue-url and --dlq-url are for a deployed stack: add --table <catalog table>', EXIT.usage);
  const max = o.max === undefined ? undefined : Number(o.max);
  if (max !== undefined && (!Number.isInteger(max) || max < 1)) throw new CliError(`--max must be a positive integer, got ${o.max}`, EXIT.usage);
  const t = target(g, o, 'ddlctl effects redrive');
  try {
    let total = 0;
    let malformed = 0;
    const skipped: Controller[] = [];
    for (const c of controllers) {
      const q = queuesOf(t, c, o);
      if (!q.queueUrl || !q.dlqUrl) {
        skipped.push(c);
        continue;
      }
      const r = await redriveDeadLetters({ sqs: t.clients.sqs, outbox: new OutboxStore(t.clients.doc, t.catalogTable), queueUrl: q.queueUrl, dlqUrl: q.dlqUrl, ...(max !== undefined ? { max } : {}) });
      total += r.moved;
      console.log(`${c}: ${r.moved} message${r.moved === 1 ? '' : 's'} moved from the DLQ back to the queue`);
      for (const s of r.skipped) console.error(pc.yellow(`${c}: skipped message ${s.messageId} (left in the DLQ): ${s.reason}`));
      malformed += r.skipped.length;
    }
    if (skipped.length) {
      const hint = skipped.map((c) => `QUEUE_URL_${c.toUpperCase()} / DLQ_URL_${c.toUpperCase()}`).join(', ');
      console.error(pc.yellow(`skipped ${skipped.join(', ')}: no queue URLs (pass --controller with --queue-url and --dlq-url, or set ${hint})`));
      if (skipped.length === controllers.length) return EXIT.usage;
    }
    console.log(`redriven ${total} in ${t.where}${malformed ? `; ${malformed} malformed message${malformed === 1 ? '' : 's'} left in the DLQ` : ''}`);
    return malformed ? EXIT.failed : EXIT.ok;
  } finally {
    t.close();
  }
}
