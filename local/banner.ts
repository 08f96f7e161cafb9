/**
 * What `npm start` prints on the way up: pure text, so docs/quickstart.md's sample can be checked
 * against it (test/local/runtime.test.ts) and the start-up checks can be unit-tested.
 */

export interface BannerInput {
  readonly url: string;
  /** The Postgres wire endpoint (postgres://materialize@host:port/materialize). */
  readonly pgUrl?: string;
  /** The data folder, or undefined for --in-memory. */
  readonly dataDir?: string;
  readonly tenant: string;
  readonly password: string;
  /** Where the password came from: generated (and kept in a file), or DDL_APP_PASSWORD. */
  readonly passwordFrom: 'generated' | 'DDL_APP_PASSWORD';
  readonly corsAllowOrigins?: readonly string[];
}

export function banner(b: BannerInput): string {
  const where = b.dataDir ? `${b.dataDir} (kept across restarts)` : 'in memory (lost on exit)';
  const from =
    b.passwordFrom === 'DDL_APP_PASSWORD'
      ? 'from DDL_APP_PASSWORD; earlier bootstrap passwords no longer work'
      : b.dataDir
        ? `generated, kept in ${b.dataDir}/bootstrap-app-password; DDL_APP_PASSWORD replaces it`
        : 'generated for this run';
  // Rerunnable as is: IF NOT EXISTS, and a SELECT.
  const curl = (query: string) =>
    `  curl -sS ${b.url}/api/sql \\
    -H "Authorization: Bearer ${b.password}" -H 'content-type: application/json' \\
    -d '{"query": "${query}"}'`;
  return `ddl-control-plane is running
  endpoint:      ${b.url}/api/sql   (health: ${b.url}/api/health)
  console:       ${b.url}/
  cli:           npx ddlctl sql   (no flags needed locally)${b.pgUrl ? `\n  postgres:      ${b.pgUrl}   (the app password is the password)` : ''}
  catalog:       ${where}
  tenant:        ${b.tenant}
  app password:  ${b.password}
                 (${from})${b.corsAllowOrigins ? `\n  CORS origins:  ${b.corsAllowOrigins.join(', ')}` : ''}

Try it:
${curl('CREATE SCHEMA IF NOT EXISTS hello')}
${curl('SELECT name FROM mz_schemas')}${b.pgUrl ? `\n  PGPASSWORD=${b.password} psql ${b.pgUrl}` : ''}

Ctrl-C stops everything.`;
}

/**
 * Why a chosen DDL_APP_PASSWORD is easy to guess, or undefined when it is not. The API is a
 * bearer-token API: anyone who can reach the port gets as many guesses as they can send.
 */
export function weakPasswordReason(password: string): string | undefined {
  if (password.length < 16) return `it is ${password.length} characters long (use 16 or more)`;
  if (new Set(password).size < 8) return `it uses only ${new Set(password).size} distinct characters`;
  return undefined;
}

/** The message for a port that is already taken, naming the ways to pick another. */
export function portInUseMessage(host: string, port: number, kind: 'http' | 'pg' = 'http'): string {
  if (kind === 'pg') {
    return (
      `Postgres port ${port} on ${host} is already in use (another npm start, or a PostgreSQL server?).\n` +
      `  Pick another with --pg-port <n> (npm start -- --pg-port 6877) or the PG_PORT variable (PG_PORT=6877 npm start).`
    );
  }
  return (
    `port ${port} on ${host} is already in use (another npm start?).\n` +
    `  Pick another with --port <n> (npm start -- --port 7000) or the PORT variable (PORT=7000 npm start).`
  );
}
