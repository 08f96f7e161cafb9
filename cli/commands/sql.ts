/**
 * `ddlctl sql`: one statement with -c, or a psql-like REPL (multi-line statements ending at `;`,
 * history in ~/.ddlctl_history). Input that is not a terminal is read as a script.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import ora from 'ora';
import pc from 'picocolors';
import type { SqlClient } from '../client';
import { EXIT } from '../errors';
import { formatResult } from '../render';
import { scan } from '../statements';
import { describeEffect, pendingEffects, waitForEffects } from '../wait';

export interface SqlOptions {
  readonly json?: boolean;
  readonly wait?: boolean;
  /** Seconds --wait waits at most. */
  readonly timeout: number;
}

interface Out {
  out(s: string): void;
  err(s: string): void;
}

const stdio: Out = { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`) };

/** Runs one request (one or more statements, one transaction) and prints it; true when it succeeded. */
export async function runQuery(client: SqlClient, query: string, o: SqlOptions, io: Out = stdio): Promise<boolean> {
  const before = o.wait ? new Set((await pendingEffects(client)).map((e) => e.effect_id)) : undefined;
  const started = Date.now();
  const r = await client.run(query);
  if (o.json) io.out(r.text);
  else {
    // Like psql: results on stdout, errors on stderr. A failed request committed nothing, so
    // the tags of the statements before the error would only mislead: the error says so.
    const failed = r.results.some((x) => 'error' in x);
    const shown = failed ? r.results.filter((x) => 'error' in x) : r.results;
    shown.forEach((x, i) => {
      const text = formatResult(x, query) + (i < shown.length - 1 ? '\n' : '');
      if ('error' in x) io.err(text);
      else io.out(text);
    });
  }
  const ok = r.status === 200 && r.results.every((x) => !('error' in x));
  if (!ok || !before) return ok;
  if (!r.results.some((x) => 'ok' in x)) return ok; // reads commit nothing

  // A spinner on a terminal; in a pipe only the outcome line. A terminal that reports no width
  // (some ptys) would make the spinner compute an unbounded number of lines to clear.
  const spinner = process.stderr.isTTY && (process.stderr.columns ?? 0) > 0 && !o.json ? ora({ text: 'waiting for effects…', stream: process.stderr }).start() : undefined;
  const finish = (symbol: string, text: string) => (spinner ? spinner.stopAndPersist({ symbol, text }) : io.err(`${symbol} ${text}`));
  const outcome = await waitForEffects(client, before, {
    timeoutMs: o.timeout * 1000,
    onProgress: (pending) => {
      const worst = pending.find((e) => e.last_error);
      if (spinner) spinner.text = `waiting for ${pending.length} effect${pending.length === 1 ? '' : 's'}: ${describeEffect(pending[0]!)}${worst ? pc.yellow(` (retrying: ${worst.last_error})`) : ''}`;
    },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const problems = [
    ...outcome.failed.map((e) => `failed: ${describeEffect(e)}: ${e.last_error ?? 'no error recorded'}`),
    ...outcome.deadLettered.map((e) => `dead-lettered after ${e.attempts} attempts: ${describeEffect(e)}: ${e.last_error ?? ''} (fix the cause, then \`ddlctl effects redrive\`)`),
    ...(outcome.timedOut ? outcome.pending.map((e) => `still pending after ${o.timeout}s: ${describeEffect(e)}${e.last_error ? `: ${e.last_error}` : ''}`) : []),
  ];
  if (problems.length === 0) {
    finish(pc.green('✔'), `effects applied (${seconds}s)`);
    return true;
  }
  finish(pc.red('✖'), `effects did not all apply (${seconds}s)`);
  for (const p of problems) io.err(`  ${p}`);
  return false;
}

function historyFile(): string {
  return process.env.DDLCTL_HISTORY ?? join(homedir(), '.ddlctl_history');
}

/** Secret values are never written to the history file. */
function historyWorthy(line: string): boolean {
  return line.trim() !== '' && !/\bsecret\b/i.test(line);
}

const HELP = `
  statements end with ;   (several in one request run as one transaction)
  \\q          quit (or Ctrl-D)
  \\wait       toggle waiting for each statement's effects (now: %s)
  \\json       toggle raw JSON output (now: %s)
  \\?          this help
  Ctrl-C      clear the statement being typed
`;

/** The REPL; with input that is not a terminal, a script reader. Returns the exit code. */
export async function repl(client: SqlClient, o: SqlOptions): Promise<number> {
  const interactive = Boolean(process.stdin.isTTY);
  const file = historyFile();
  const history = interactive && existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).reverse().slice(0, 1000) : [];
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive, history, historySize: 1000, removeHistoryDuplicates: true });
  const settings = { wait: Boolean(o.wait), json: Boolean(o.json) };
  let buffer = '';
  let failures = 0;
  const prompt = () => {
    if (!interactive) return;
    const s = scan(buffer);
    rl.setPrompt(buffer.trim() === '' ? 'ddlctl=> ' : s.open ? "ddlctl'> " : 'ddlctl-> ');
    rl.prompt();
  };
  if (interactive) {
    console.log(`ddlctl: connected to ${client.conn.url} (password from ${client.conn.passwordFrom}). \\? for help, \\q to quit.`);
    rl.on('SIGINT', () => {
      buffer = '';
      process.stdout.write('^C\n');
      prompt();
    });
  }
  prompt();
  for await (const line of rl) {
    if (interactive && historyWorthy(line)) {
      try {
        appendFileSync(file, `${line}\n`, { mode: 0o600 });
      } catch {
        /* an unwritable history is not worth stopping for */
      }
    }
    if (buffer.trim() === '' && line.trim().startsWith('\\')) {
      const cmd = line.trim();
      if (cmd === '\\q') break;
      if (cmd === '\\wait') console.log(`waiting for effects is ${(settings.wait = !settings.wait) ? 'on' : 'off'}`);
      else if (cmd === '\\json') console.log(`JSON output is ${(settings.json = !settings.json) ? 'on' : 'off'}`);
      else if (cmd === '\\?') console.log(HELP.replace('%s', settings.wait ? 'on' : 'off').replace('%s', settings.json ? 'on' : 'off'));
      else console.error(`invalid command ${cmd}; \\? for help`);
      prompt();
      continue;
    }
    buffer += (buffer ? '\n' : '') + line;
    const s = scan(buffer);
    if (s.empty) buffer = '';
    else if (s.terminated) {
      const query = buffer;
      buffer = '';
      try {
        if (!(await runQuery(client, query, { ...o, ...settings }))) failures++;
      } catch (err) {
        failures++;
        console.error(pc.red((err as Error).message));
      }
      console.log();
    }
    prompt();
  }
  // A script may end without a final `;`, as psql allows.
  if (!interactive && !scan(buffer).empty && !(await runQuery(client, buffer, { ...o, ...settings }))) failures++;
  rl.close();
  if (interactive) trimHistory(file);
  return failures > 0 && !interactive ? EXIT.failed : EXIT.ok;
}

function trimHistory(file: string): void {
  try {
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    if (lines.length > 2000) writeFileSync(file, `${lines.slice(-1000).join('\n')}\n`, { mode: 0o600 });
  } catch {
    /* ignore */
  }
}
