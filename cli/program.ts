/**
 * ddlctl's commands. Each action loads its module when it runs, so `ddlctl sql` does not pay
 * for the AWS SDK that the operator commands need.
 */
import { Command, Option } from 'commander';
import { SqlClient } from './client';
import { resolveConnection, type GlobalOptions } from './connection';
import { CliError, EXIT } from './errors';
import { REPL_SUMMARY } from './meta';

type Run = (code: number) => void;

function awsOptions(cmd: Command): Command {
  return cmd
    .option('--table <name>', 'catalog table of a deployed stack (output CatalogTableName); without it, the local runtime')
    .option('--region <region>', 'AWS region of the deployed stack (default AWS_REGION)');
}

export function buildProgram(done: Run): Command {
  const program = new Command()
    .name('ddlctl')
    .description('Talk to the DDL control plane: SQL, statuses, events, effects, audits, tenants')
    .option('--url <url>', 'API base URL (default: DDLCTL_URL, the config file, the running `npm start`, or http://127.0.0.1:6876)')
    .option('--data-dir <dir>', 'the local runtime\'s data folder (default ./.data)')
    .option('--runtime <file>', 'a runtime.json describing a local pipeline (default <data dir>/runtime.json)')
    .showHelpAfterError()
    .addHelpText(
      'after',
      `
The app password comes from DDLCTL_PASSWORD, the config file (~/.config/ddlctl/config.json:
{"url": "...", "password": "..."}), DDL_APP_PASSWORD, or the local runtime's .data/bootstrap-app-password.

Exit codes: 0 ok, 1 a statement, effect or check failed (or, for status, something is not healthy),
2 cannot connect or authenticate, 64 bad usage.`,
    );
  const globals = (cmd: Command) => cmd.optsWithGlobals<GlobalOptions>();
  const client = (cmd: Command) => new SqlClient(resolveConnection(globals(cmd)));

  program
    .command('sql')
    .description('run SQL: a REPL, or one request with -c (statements separated by ; run as one transaction)')
    .option('-c, --command <sql>', 'run this and exit')
    .option('--json', 'print the raw JSON response')
    .option('--wait', 'after a DDL statement, wait until its effects are applied or failed')
    .addOption(new Option('--timeout <seconds>', 'how long --wait waits').default('60'))
    .addHelpText('after', `\n${REPL_SUMMARY}`)
    .action(async (o: { command?: string; json?: boolean; wait?: boolean; timeout: string }, cmd: Command) => {
      const { repl, runQuery } = await import('./commands/sql');
      const timeout = Number(o.timeout);
      if (!Number.isFinite(timeout) || timeout <= 0) throw new CliError(`--timeout must be a positive number of seconds, got ${o.timeout}`, EXIT.usage);
      const c = client(cmd);
      const opts = { json: Boolean(o.json), wait: Boolean(o.wait), timeout };
      if (o.command !== undefined) done((await runQuery(c, o.command, opts)) ? EXIT.ok : EXIT.failed);
      else done(await repl(c, opts));
    });

  program
    .command('status')
    .description('sources, sinks and replicas with their statuses and errors (exit 1 when any is not healthy)')
    .option('-w, --watch', 'redraw every 2 seconds until Ctrl-C')
    .addOption(new Option('--interval <seconds>', 'seconds between redraws with --watch').default('2'))
    .option('--json', 'print JSON')
    .action(async (o: { watch?: boolean; interval: string; json?: boolean }, cmd: Command) => {
      const { readStatus, renderStatus, unhealthy, watch } = await import('./commands/status');
      const c = client(cmd);
      if (o.watch) {
        const interval = Number(o.interval);
        if (!Number.isFinite(interval) || interval <= 0) throw new CliError(`--interval must be a positive number, got ${o.interval}`, EXIT.usage);
        const stop = new AbortController();
        process.once('SIGINT', () => stop.abort());
        process.once('SIGTERM', () => stop.abort());
        await watch(async () => renderStatus(await readStatus(c)), interval, stop.signal);
        done(EXIT.ok);
        return;
      }
      const s = await readStatus(c);
      console.log(o.json ? JSON.stringify(s, null, 2) : renderStatus(s));
      // Scripts can wait on it: 1 while anything is stalled, failed or offline.
      done(unhealthy(s) === 0 ? EXIT.ok : EXIT.failed);
    });

  program
    .command('events')
    .description('status events: connector status changes and failed effects, oldest first (the local runtime\'s event log)')
    .option('-f, --follow', 'keep printing new events until Ctrl-C')
    .addOption(new Option('--after <n>', 'only events after this position (the seq of the last one seen)').default('0'))
    .addOption(new Option('--interval <seconds>', 'seconds between polls with --follow').default('1'))
    .option('--json', 'print each event as a JSON line')
    .action(async (o: { follow?: boolean; after: string; interval: string; json?: boolean }, cmd: Command) => {
      const { printEvents } = await import('./commands/events');
      const after = Number(o.after);
      const interval = Number(o.interval);
      if (!Number.isInteger(after) || after < 0) throw new CliError(`--after must be a non-negative integer, got ${o.after}`, EXIT.usage);
      if (!Number.isFinite(interval) || interval <= 0) throw new CliError(`--interval must be a positive number of seconds, got ${o.interval}`, EXIT.usage);
      const stop = new AbortController();
      if (o.follow) {
        process.once('SIGINT', () => stop.abort());
        process.once('SIGTERM', () => stop.abort());
      }
      await printEvents(client(cmd), { follow: Boolean(o.follow), json: Boolean(o.json), after, interval, signal: stop.signal });
      done(EXIT.ok);
    });

  program
    .command('restart <name>')
    .description('restart a source or sink (ALTER SOURCE|SINK name RESTART): the way out of failed or stalled without drop and recreate')
    .option('--source', 'the name is a source (default: looked up)')
    .option('--sink', 'the name is a sink (default: looked up)')
    .action(async (name: string, o: { source?: boolean; sink?: boolean }, cmd: Command) => {
      const { restart } = await import('./commands/restart');
      done(await restart(client(cmd), name, o));
    });

  const effects = program
    .command('effects')
    .description('pending, failed and dead-lettered effects (mz_internal.mz_pending_effects)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const { listEffects } = await import('./commands/effects');
      done(await listEffects(client(cmd), o));
    });
  awsOptions(
    effects
      .command('redrive')
      .description('move dead-lettered effects back to their queue (after fixing the cause), with a fresh retry budget')
      .option('--controller <controller>', 'only this controller: compute, storage or secrets (default all)')
      .option('--queue-url <url>', 'the controller\'s queue (deployed stack; default QUEUE_URL_<CONTROLLER>)')
      .option('--dlq-url <url>', 'the controller\'s DLQ (deployed stack; default DLQ_URL_<CONTROLLER>)')
      .option('--max <n>', 'move at most n messages per controller'),
  ).action(async (o, cmd: Command) => {
    const { redrive } = await import('./commands/effects');
    done(await redrive(globals(cmd), o));
  });

  awsOptions(
    program
      .command('check')
      .description('audit: catalog, outbox and data plane agree (exit 1 on any problem)')
      .option('--dataplane-table <name>', 'the reference data plane\'s table of a deployed stack (output DataPlaneTableName)')
      .option('--dataplane-url <url>', 'an external data plane (HTTP controller contract; DATAPLANE_TOKEN for its bearer token)')
      .option('--tenant <name...>', 'only these tenants (default all)')
      .addOption(new Option('--grace <seconds>', 'keep re-checking this long while problems remain (effects in flight)').default('0'))
      .option('--json', 'print JSON'),
  ).action(async (o, cmd: Command) => {
    const { check } = await import('./commands/check');
    done(await check(globals(cmd), o));
  });

  const tenant = program.command('tenant').description('tenants (each has its own catalog)');
  awsOptions(tenant.command('create <name>').description('create a tenant and print its first app password').option('--description <text>', 'a note stored with the password')).action(
    async (name: string, o, cmd: Command) => {
      const { createTenant } = await import('./commands/tenant');
      done(await createTenant(globals(cmd), name, o));
    },
  );
  const password = program.command('password').description('app passwords');
  awsOptions(
    password
      .command('create <tenant>')
      .description('create another app password for a tenant and print it')
      .option('--description <text>', 'a note stored with the password')
      .option('--role <name>', 'the role the password acts as (not a superuser); without it, the role materialize as a superuser'),
  ).action(
    async (name: string, o, cmd: Command) => {
      const { createPassword } = await import('./commands/tenant');
      done(await createPassword(globals(cmd), name, o));
    },
  );
  return program;
}
