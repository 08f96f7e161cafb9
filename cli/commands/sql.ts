/**
 * `ddlctl sql`: one statement with -c, or a psql-like REPL (multi-line statements ending at `;`,
 * psql's backslash commands, history of whole statements in ~/.ddlctl_history). Input that is
 * not a terminal is read as a script.
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
import { META_HELP, parseMeta, showCreateType, type Meta } from '../meta';
import { holdsSecretValue, scan } from '../statements';
import { describeEffect, pendingEffects, waitForEffects } from '../wait';

export interface SqlOptions {
  readonly json?: boolean;
  readonly wait?: boolean;
  /** Seconds --wait waits at most. */
  readonly timeout: number;
  /** Fired by Ctrl-C in the REPL: stop waiting for effects (a statement sent cannot be taken back). */
  readonly signal?: AbortSignal;
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
  // In the REPL readline owns stdin and turns Ctrl-C into o.signal: ora must not take stdin over
  // (its discarder re-sends Ctrl-C as a real SIGINT, which would end the REPL).
  const spinner =
    process.stderr.isTTY && (process.stderr.columns ?? 0) > 0 && !o.json ? ora({ text: 'waiting for effects…', stream: process.stderr, discardStdin: o.signal === undefined }).start() : undefined;
  const finish = (symbol: string, text: string) => (spinner ? spinner.stopAndPersist({ symbol, text }) : io.err(`${symbol} ${text}`));
  const outcome = await waitForEffects(client, before, {
    timeoutMs: o.timeout * 1000,
    ...(o.signal ? { signal: o.signal } : {}),
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
  if (outcome.interrupted) {
    // The statement committed: stopping the wait is not a failure, and the effects go on.
    finish(pc.yellow('◌'), `stopped waiting after ${seconds}s (Ctrl-C): ${outcome.pending.length} effect${outcome.pending.length === 1 ? '' : 's'} still pending; they go on: \`ddlctl effects\` lists them`);
    for (const p of problems) io.err(`  ${p}`);
    return problems.length === 0;
  }
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

/** Secret values are never written to the history file; a statement that only names a secret is. */
function historyWorthy(entry: string): boolean {
  return entry.trim() !== '' && !holdsSecretValue(entry);
}

/**
 * One history entry per line of the file; a multi-line statement keeps its line breaks as
 * \x01, the byte psql's history file uses for them.
 */
const NEWLINE_IN_FILE = '\x01';

function readHistory(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((e) => e.replaceAll(NEWLINE_IN_FILE, '\n'))
    .reverse()
    .slice(0, 1000);
}

/** What a readline interface keeps as history (newest first); `historySize: 0` leaves it to us. */
interface WithHistory {
  history: string[];
}

/** The REPL; with input that is not a terminal, a script reader. Returns the exit code. */
export async function repl(client: SqlClient, o: SqlOptions): Promise<number> {
  const interactive = Boolean(process.stdin.isTTY);
  const file = historyFile();
  // historySize 0: readline would record each line; we record whole statements instead.
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive, history: interactive ? readHistory(file) : [], historySize: 0 });
  const settings = { wait: Boolean(o.wait), json: Boolean(o.json) };
  /** The SQL typed so far (backslash commands never enter it). */
  let buffer = '';
  /** The lines typed since the last history entry: a statement becomes one entry. */
  let typed: string[] = [];
  let lastQuery = '';
  let failures = 0;

  const remember = (entry: string) => {
    if (!interactive || !historyWorthy(entry)) return;
    const h = (rl as unknown as WithHistory).history;
    if (h[0] === entry) return;
    h.unshift(entry);
    if (h.length > 1000) h.length = 1000;
    try {
      appendFileSync(file, `${entry.replaceAll('\n', NEWLINE_IN_FILE)}\n`, { mode: 0o600 });
    } catch {
      /* an unwritable history is not worth stopping for */
    }
  };
  const prompt = () => {
    if (!interactive) return;
    const s = scan(buffer);
    rl.setPrompt(buffer.trim() === '' ? 'ddlctl=> ' : s.open ? "ddlctl'> " : 'ddlctl-> ');
    rl.prompt();
  };
  /** The request on its way, if any: Ctrl-C then stops waiting for its effects. */
  let running: AbortController | undefined;
  const send = async (query: string) => {
    lastQuery = query;
    running = new AbortController();
    try {
      if (!(await runQuery(client, query, { ...o, ...settings, signal: running.signal }))) failures++;
    } catch (err) {
      failures++;
      console.error(pc.red((err as Error).message));
    } finally {
      running = undefined;
    }
    console.log();
  };
  /** Runs one backslash command; false when it asks to quit. */
  const command = async (text: string): Promise<boolean> => {
    const m = parseMeta(text);
    switch (m.kind) {
      case 'quit':
        return false;
      case 'help':
        console.log(META_HELP.replace('%wait', settings.wait ? 'on' : 'off').replace('%json', settings.json ? 'on' : 'off'));
        break;
      case 'toggle':
        settings[m.setting] = !settings[m.setting];
        console.log(m.setting === 'wait' ? `waiting for effects is ${settings.wait ? 'on' : 'off'}` : `JSON output is ${settings.json ? 'on' : 'off'}`);
        break;
      case 'reset':
        buffer = '';
        console.log('Query buffer reset (cleared).');
        break;
      case 'print':
        console.log(buffer.trim() === '' ? 'Query buffer is empty.' : buffer);
        break;
      case 'send': {
        const query = buffer.trim() === '' ? lastQuery : buffer;
        buffer = '';
        if (query.trim() === '') console.error('\\g: there is no statement to send');
        else await send(query);
        break;
      }
      case 'query':
        await send(m.sql);
        break;
      case 'describe':
        await describe(m);
        break;
      case 'invalid':
        failures++;
        console.error(m.message);
        break;
    }
    return true;
  };
  const describe = async (m: Extract<Meta, { kind: 'describe' }>) => {
    const found = await client.records<{ type: string }>(m.lookup).catch((err: Error) => {
      console.error(pc.red(err.message));
      return undefined;
    });
    if (!found) return void failures++;
    if (found.length === 0) {
      failures++;
      console.error(`Did not find any object named "${m.name}".`);
      return;
    }
    const type = found[0]!.type;
    await send(`SHOW CREATE ${showCreateType(type)} ${m.name}`);
    if (['table', 'view', 'materialized-view', 'source'].includes(type)) await send(m.indexes);
  };
  /** One line of input; false when it asks to quit. */
  const onLine = async (line: string): Promise<boolean> => {
    typed.push(line);
    const prefix = buffer === '' ? '' : `${buffer}\n`;
    const at = scan(prefix + line).backslash;
    // psql's rule: the text before an unquoted backslash is SQL, the rest of the line a command.
    const sqlPart = at === undefined ? line : line.slice(0, at - prefix.length);
    // A line that is only a command leaves the statement as it was.
    if (sqlPart.trim() !== '' || (at === undefined && buffer !== '')) buffer = prefix + sqlPart;
    const s = scan(buffer);
    let query: string | undefined;
    if (s.empty) buffer = '';
    else if (s.terminated) [query, buffer] = [buffer, ''];
    if (at === undefined) {
      if (buffer === '') {
        if (query !== undefined) remember(typed.join('\n'));
        typed = [];
      }
      if (query !== undefined) await send(query);
      return true;
    }
    if (query !== undefined) await send(query);
    const text = line.slice(at - prefix.length);
    const inStatement = buffer !== '';
    const goOn = await command(text);
    if (inStatement && buffer !== '') {
      // A command typed inside a statement is an entry of its own; the statement goes on.
      typed.pop();
      if (sqlPart.trim() !== '') typed.push(sqlPart);
      remember(text);
    } else {
      remember(typed.join('\n'));
      typed = [];
    }
    return goOn;
  };

  if (interactive) {
    console.log(`ddlctl: connected to ${client.conn.url} (password from ${client.conn.passwordFrom}). \\? for help, \\q to quit.`);
    // Like psql: Ctrl-C drops the line being edited and the statement typed so far.
    rl.on('SIGINT', () => {
      if (running) {
        // A statement sent cannot be taken back (it may have committed): its answer still
        // prints, and only the wait for its effects stops.
        running.abort();
        process.stdout.write('^C\n');
        return;
      }
      buffer = '';
      typed = [];
      rl.setPrompt('ddlctl=> ');
      // Readline keeps the line being edited after a SIGINT: end and erase it with its own keys.
      rl.write(null, { ctrl: true, name: 'e' });
      process.stdout.write('^C\n');
      rl.write(null, { ctrl: true, name: 'u' });
      prompt();
    });
  }
  prompt();
  let quit = false;
  for await (const line of rl) {
    if ((quit = !(await onLine(line)))) break;
    prompt();
  }
  // A script may end without a final `;`, as psql allows (but \q drops what is unsent, as there).
  if (!interactive && !quit && !scan(buffer).empty && !(await runQuery(client, buffer, { ...o, ...settings }))) failures++;
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
