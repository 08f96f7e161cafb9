/**
 * Recursive-descent parser for the statements we support, with Materialize's spellings.
 * Pure: text in, statements (or a SqlSyntaxError / NotSupportedError with a byte position) out.
 *
 * Queries inside DDL (a view's body, an index key, a column default) are not parsed here: the
 * parser finds where they end and keeps their text as typed (`RawExpr`), as Materialize's catalog
 * keeps `create_sql`. Recursion is capped (`MAX_NESTING_DEPTH`) so no input overflows the stack.
 */
import { ControlPlaneError, NotSupportedError, SQLSTATE, SqlSyntaxError } from '../errors';
import { mz } from '../mz-errors';
import type {
  AlterClusterAction,
  AlterRoleAction,
  ClusterAlterWait,
  ColumnDef,
  DataType,
  DocOnTarget,
  ExternalReferences,
  Expr,
  Format,
  FormatSpecifier,
  GrantIn,
  GrantObjectType,
  GrantTarget,
  IncludeMetadata,
  LoadGenerator,
  ObjectName,
  ObjectType,
  OptionValue,
  OrderBy,
  ParsedStatement,
  Privilege,
  PrivilegeSpec,
  RawExpr,
  RefreshOptionValue,
  AlterConnectionAction,
  WebhookCheck,
  WebhookCheckColumn,
  AlterSourceAction,
  ReplicaDefinition,
  RoleAttribute,
  SchemaStrategy,
  SecretValue,
  ShowFilter,
  ShowStatement,
  SinkConnection,
  SourceConnection,
  SourceEnvelope,
  SqlOption,
  Statement,
  StatementKind,
  TableConstraint,
} from './ast';
import { byteOffset, byteOffsets, lex, type Token } from './lexer';
import { docOnText } from './printer';
import { MZ_KEYWORDS } from './mz-keywords';
import { describeOp, describeToken, parserExpected } from './tokens';
import { ANY_CONNECTION_OPTIONS, OPTION_LISTS, VALUE_PREFIX, type OptionListSpec } from './options';
import { CONNECTION_CONNECTORS, CONNECTION_SOURCE_CONNECTORS, GENERATOR_SOURCE_CONNECTORS, LOAD_GENERATOR, SINK_CONNECTORS, SOURCE_CONNECTORS, sqlWords, TUNNEL_CONNECTORS, WEBHOOK } from '../connectors';
import { MAX_NESTING_DEPTH, readScalar, type ScalarExpr } from './scalar';

export { MAX_NESTING_DEPTH };

/** Statement keywords Materialize has that we do not support yet: answered 0A000, not 42601. */
const KNOWN_UNSUPPORTED = new Set(['inspect', 'raise']);

/**
 * Statements that read or write data or set session state: the data plane's business, never a
 * control plane's. Answered 0A000 with a message that says so (OUTSIDE_CONTROL_PLANE).
 */
const OUTSIDE_CONTROL_PLANE_STATEMENTS = new Set([
  'abort', 'close', 'copy', 'deallocate', 'declare', 'delete', 'discard', 'end', 'execute', 'fetch', 'insert', 'prepare', 'release',
  'savepoint', 'subscribe', 'tail', 'update',
]);
const OUTSIDE_CONTROL_PLANE = 'is outside the control plane: it serves DDL and reads of the system catalog; send data queries and session commands to the data plane';

/** Words that name the system catalog: a SELECT without any reads user data. */
function namesSystemCatalog(t: Token): boolean {
  return (t.kind === 'word' || t.kind === 'quoted') && /^(?:mz_|pg_|information_schema$)/.test(t.value);
}


/** Statements `EXPLAIN EFFECTS FOR` accepts: the ones that change the catalog. */
export const DDL_KINDS: ReadonlySet<StatementKind> = new Set<StatementKind>([
  'create_cluster', 'create_cluster_replica', 'create_database', 'create_schema', 'create_secret', 'create_connection', 'create_source',
  'create_webhook_source', 'create_sink', 'create_table', 'create_table_from_source', 'create_view', 'create_materialized_view', 'create_index', 'drop',
  'alter_rename', 'alter_owner', 'alter_set_cluster', 'alter_swap', 'alter_cluster', 'alter_secret', 'alter_restart', 'alter_table_add_column',
  'alter_retain_history', 'alter_source', 'alter_connection', 'comment', 'create_type', 'create_role', 'alter_role', 'drop_role',
  'grant_role', 'revoke_role', 'grant_privileges', 'revoke_privileges', 'alter_default_privileges', 'drop_owned', 'reassign_owned',
  'create_network_policy', 'alter_network_policy', 'drop_network_policy', 'alter_sink_from', 'alter_system_set', 'alter_system_reset',
  'alter_apply_replacement',
]);

/** `SHOW <plural>` forms we serve, as one or two words. */
const SHOW_PLURALS: readonly (readonly string[])[] = [
  ['cluster', 'replicas'], ['materialized', 'views'], ['clusters'], ['connections'], ['databases'], ['indexes'], ['objects'],
  ['roles'], ['schemas'], ['secrets'], ['sinks'], ['sources'], ['subsources'], ['tables'], ['types'], ['views'],
];
const SHOW_UNSUPPORTED = ['privileges', 'default', 'role', 'extended', 'full', 'network', 'continual'];

/** The words that may follow `ALTER <type> name`, as Materialize's parser lists them in its errors (its parse_alter_*). */
const ALTER_ACTIONS: Readonly<Record<ObjectType, readonly string[]>> = {
  table: ['SET', 'RENAME', 'OWNER', 'RESET', 'ADD'],
  view: ['SET', 'RENAME', 'OWNER', 'RESET'],
  'materialized view': ['SET', 'RENAME', 'OWNER', 'RESET', 'APPLY'],
  source: ['ADD', 'DROP', 'RESET', 'SET', 'RENAME', 'OWNER', 'REFRESH'],
  sink: ['RESET', 'SET', 'RENAME', 'OWNER'],
  index: ['RESET', 'SET', 'RENAME', 'OWNER'],
  secret: ['AS', 'RENAME', 'OWNER'],
  connection: ['RENAME', 'OWNER', 'ROTATE', 'SET', 'RESET', 'DROP'],
  cluster: ['OWNER', 'RENAME', 'RESET', 'SET', 'SWAP'],
  'cluster replica': ['OWNER', 'RENAME'],
  schema: ['OWNER', 'RENAME', 'SWAP'],
  database: ['OWNER'],
  type: ['OWNER'],
};

/** Object types Materialize has and we do not serve (answered 0A000 where an object type is read). */
const UNSUPPORTED_OBJECT_TYPES: readonly string[] = ['continual'];

/** The privileges of GRANT and REVOKE, Materialize's keywords. */
const PRIVILEGES: readonly Privilege[] = ['INSERT', 'SELECT', 'UPDATE', 'DELETE', 'USAGE', 'CREATE', 'CREATEROLE', 'CREATEDB', 'CREATECLUSTER', 'CREATENETWORKPOLICY'];

/** Role attributes of CREATE ROLE and ALTER ROLE (PASSWORD takes a value). */
const ROLE_ATTRIBUTES = [
  'SUPERUSER', 'NOSUPERUSER', 'LOGIN', 'NOLOGIN', 'INHERIT', 'NOINHERIT', 'CREATECLUSTER', 'NOCREATECLUSTER', 'CREATEDB', 'NOCREATEDB', 'CREATEROLE',
  'NOCREATEROLE',
] as const;

/**
 * Object types after `GRANT ... ON`, singular and plural, as Materialize's parser reads them, and
 * what it says of those that take no privileges there.
 */
const GRANT_OBJECT_TYPES: readonly { readonly words: readonly string[]; readonly plural: readonly string[]; readonly type: GrantObjectType | string }[] = [
  { words: ['table'], plural: ['tables'], type: 'table' },
  { words: ['view'], plural: ['views'], type: 'VIEW' },
  { words: ['materialized', 'view'], plural: ['materialized', 'views'], type: 'MATERIALIZED VIEW' },
  { words: ['source'], plural: ['sources'], type: 'SOURCE' },
  { words: ['sink'], plural: ['sinks'], type: 'SINK' },
  { words: ['index'], plural: ['indexes'], type: 'INDEX' },
  { words: ['type'], plural: ['types'], type: 'type' },
  { words: ['role'], plural: ['roles'], type: 'ROLE' },
  { words: ['user'], plural: ['users'], type: 'ROLE' },
  { words: ['cluster', 'replica'], plural: ['cluster', 'replicas'], type: 'CLUSTER REPLICA' },
  { words: ['cluster'], plural: ['clusters'], type: 'cluster' },
  { words: ['secret'], plural: ['secrets'], type: 'secret' },
  { words: ['connection'], plural: ['connections'], type: 'connection' },
  { words: ['database'], plural: ['databases'], type: 'database' },
  { words: ['schema'], plural: ['schemas'], type: 'schema' },
  { words: ['function'], plural: [], type: 'FUNCTION' },
  { words: ['network', 'policy'], plural: ['network', 'policies'], type: 'NETWORK POLICY' },
];
const GRANT_TYPES_IN_SCHEMA: ReadonlySet<string> = new Set(['table', 'type', 'secret', 'connection']);

/** The connector types' words (shared/connectors), longest first where one starts another (`AWS PRIVATELINK`, `AWS`). */
const CONNECTION_TYPES = [...CONNECTION_CONNECTORS].sort((a, b) => b.words.length - a.words.length);
const LOAD_GENERATORS = Object.entries(LOAD_GENERATOR.source.generators).map(([g, spec]) => [g as LoadGenerator, spec.words] as const);

/** Built-in type names of more than one word, and the words that may follow their first word. */
const MULTIWORD_TYPES: Readonly<Record<string, readonly (readonly string[])[]>> = {
  double: [['precision']],
  character: [['varying']],
  char: [['varying']],
  bit: [['varying']],
};

/** Words that end a column's `DEFAULT` expression (they start the next column option). */
const COLUMN_OPTION_STARTS = new Set(['not', 'null', 'primary', 'unique', 'check', 'references', 'constraint', 'collate', 'generated', 'default']);

const specWords = new WeakMap<OptionListSpec, readonly { name: string; canonical: string; words: readonly string[]; unsupported: boolean }[]>();
function wordsOf(spec: OptionListSpec) {
  let w = specWords.get(spec);
  if (!w) {
    const entries = [
      ...spec.names.map((n) => ({ name: n, canonical: n, unsupported: false })),
      ...Object.entries(spec.aliases ?? {}).map(([n, c]) => ({ name: n, canonical: c, unsupported: false })),
      ...(spec.unsupported ?? []).map((n) => ({ name: n, canonical: n, unsupported: true })),
    ];
    w = entries.map((e) => ({ ...e, words: e.name.toLowerCase().split(' ') }));
    specWords.set(spec, w);
  }
  return w;
}

/** Operators our SELECT subset reads (or that close what it reads): failing at one is a syntax error. */
const SELECT_SUBSET_OPS = new Set([',', ';', ')', ']', '=', '<>', '!=', '<', '<=', '>', '>=']);
/** Words that, where a SELECT fails on them, start SQL beyond our subset rather than a typo. */
const SELECT_BEYOND_WORDS = new Set([
  'all', 'any', 'array', 'as', 'at', 'between', 'case', 'cast', 'collate', 'cross', 'distinct', 'escape', 'except', 'exists', 'fetch', 'filter',
  'full', 'group', 'having', 'inner', 'intersect', 'interval', 'join', 'lateral', 'left', 'natural', 'nulls', 'options', 'over', 'right',
  'similar', 'some', 'union', 'using', 'window',
]);
/** Words of our own SELECT grammar: a misplaced one is a syntax error, not an alias. */
const SELECT_GRAMMAR_WORDS = new Set(['and', 'asc', 'by', 'desc', 'from', 'ilike', 'in', 'is', 'like', 'limit', 'not', 'null', 'offset', 'or', 'order', 'where']);

/** Words that continue a select-list column into an expression (`a IS NULL`, `a LIKE 'x%'`). */
const SELECT_LIST_OPERATOR_WORDS = new Set(['is', 'like', 'ilike', 'not', 'in', 'between', 'similar', 'isnull', 'notnull']);

/** Whether a SELECT that failed at `t` (after `prev`) is valid SQL beyond our subset. */
function selectGoesBeyond(t: Token, prev: Token | undefined): boolean {
  const after = (...words: string[]) => prev !== undefined && prev.kind === 'word' && words.includes(prev.value);
  switch (t.kind) {
    case 'op':
      // `LIMIT -1` is our grammar's business; any other operator is an expression we do not read.
      if (t.value === '-' && after('limit', 'offset')) return false;
      // A comma right after a relation's name: `FROM a, b` (a join).
      if (t.value === ',') return (prev?.kind === 'word' && !SELECT_GRAMMAR_WORDS.has(prev.value)) || prev?.kind === 'quoted';
      return !SELECT_SUBSET_OPS.has(t.value);
    case 'word':
      if (SELECT_BEYOND_WORDS.has(t.value)) return true;
      if (after('is') || after('select')) return !SELECT_GRAMMAR_WORDS.has(t.value); // `IS TRUE`, `SELECT DISTINCT`
      if (['select', 'values', 'with', 'table'].includes(t.value)) return prev?.kind === 'op' && prev.value === '('; // a subquery
      // A word right after a name is an alias (`FROM mz_sources s`, `SELECT a b FROM`).
      return (prev?.kind === 'word' || prev?.kind === 'quoted') && !SELECT_GRAMMAR_WORDS.has(t.value) && !SELECT_GRAMMAR_WORDS.has(prev.value);
    case 'quoted':
      return (prev?.kind === 'word' || prev?.kind === 'quoted') && !(prev.kind === 'word' && SELECT_GRAMMAR_WORDS.has(prev.value));
    case 'number':
    case 'string':
      // A literal in the select list or an ORDER BY ordinal.
      return after('select', 'by') || (prev?.kind === 'op' && prev.value === ',');
    default:
      return false;
  }
}

/** "A, B or C" for messages. */
function oneOf(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

export class Parser {
  private readonly tokens: Token[];
  private i = 0;
  private depth = 0;
  /** Index of the token the last `failAt` pointed at (read by `parseSelectOrUnsupported`). */
  private failedAt: number | undefined;
  /** Whether a SELECT failed on an expression in its select list (read by `parseSelectOrUnsupported`). */
  private selectListExpression = false;
  /** The statement being read may hold a secret value: its errors never echo a string literal. */
  private secretsInStatement = true;

  /**
   * `base`: the byte offset of `text` in the request, when the text is a span of it (a raw
   * expression read again), so that positions in errors point into the request.
   */
  constructor(
    private readonly text: string,
    private readonly base = 0,
  ) {
    try {
      this.tokens = lex(text);
    } catch (e) {
      if (e instanceof SqlSyntaxError && e.position !== undefined) e.position += base;
      throw e;
    }
  }

  /** Parses every `;`-separated statement in the text. */
  parseStatements(maxStatements = Number.POSITIVE_INFINITY): ParsedStatement[] {
    const out: ParsedStatement[] = [];
    for (;;) {
      while (this.eatOp(';'));
      if (this.peek().kind === 'eof') return out;
      const startTok = this.peek();
      if (out.length >= maxStatements) {
        // Stop reading at once: a request of 100 000 statements must not cost 100 000 parses.
        throw new ControlPlaneError(`request holds more than ${maxStatements} statements; at most ${maxStatements} are allowed`, { code: SQLSTATE.tooManyStatements, position: this.byte(startTok.start) });
      }
      this.secretsInStatement = this.holdsSecrets();
      const statement = this.parseStatement();
      const endTok = this.tokens[this.i - 1]!;
      if (!this.peekOp(';') && this.peek().kind !== 'eof') this.fail('end of statement');
      out.push({
        statement,
        start: this.byte(startTok.start),
        end: this.byte(endTok.end),
        text: this.text.slice(startTok.start, endTok.end),
      });
    }
  }

  parseStatement(): Statement {
    const t = this.peek();
    if (t.kind === 'word') {
      switch (t.value) {
        case 'create':
          this.next();
          return this.parseCreate();
        case 'drop':
          this.next();
          return this.parseDrop();
        case 'alter':
          this.next();
          return this.parseAlter();
        case 'show':
          this.next();
          return this.parseShow();
        case 'select':
          // `SELECT ... FROM (SHOW ...)` is Materialize's and not PostgreSQL's: the SHOW evaluator reads it.
          if (this.selectsFromShow()) {
            this.next();
            return this.parseSelectOrUnsupported();
          }
          return this.parseQuery();
        case 'with':
        case 'values':
        case 'table':
          return this.parseQuery();
        case 'set':
          this.next();
          return this.parseSetVariable();
        case 'reset': {
          this.next();
          if (this.eatKeyword('all')) return { kind: 'reset_variable', name: 'all' };
          if (this.eatKeyword('schema')) return { kind: 'reset_variable', name: 'search_path' };
          return { kind: 'reset_variable', name: this.parseVariableName() };
        }
        case 'begin':
          this.next();
          if (!this.eatKeyword('transaction')) this.eatKeyword('work');
          return { kind: 'start_transaction', modes: this.parseTransactionModes() };
        case 'start':
          this.next();
          this.expectKeyword('transaction');
          return { kind: 'start_transaction', modes: this.parseTransactionModes() };
        case 'commit':
        case 'rollback': {
          this.next();
          if (!this.eatKeyword('transaction')) this.eatKeyword('work');
          let chain = false;
          if (this.eatKeyword('and')) {
            chain = !this.eatKeyword('no');
            this.expectKeyword('chain');
          }
          return { kind: t.value === 'commit' ? 'commit' : 'rollback', chain };
        }
        case 'explain':
          this.next();
          return this.parseExplain(t);
        case 'comment':
          this.next();
          return this.parseComment();
        case 'validate':
          this.next();
          this.expectKeyword('connection');
          return { kind: 'validate_connection', name: this.parseObjectName() };
        case 'grant':
        case 'revoke':
          this.next();
          return this.parseGrantOrRevoke(t.value === 'grant');
        case 'reassign': {
          this.next();
          this.expectKeywords('owned', 'by');
          const oldRoles = this.parseIdentSeq();
          this.expectKeyword('to');
          return { kind: 'reassign_owned', oldRoles, newRole: this.parseIdent() };
        }
      }
      if (KNOWN_UNSUPPORTED.has(t.value)) {
        throw this.unsupported(t, t.value.toUpperCase());
      }
      if (OUTSIDE_CONTROL_PLANE_STATEMENTS.has(t.value)) throw this.outside(t, t.value.toUpperCase());
    }
    if (t.kind === 'op' && t.value === '(') return this.parseQuery();
    // Materialize's words: a keyword that starts no statement, or a token that is no keyword.
    if (t.kind === 'word' && MZ_KEYWORDS.has(t.value)) throw new SqlSyntaxError(`Unexpected keyword ${t.value.toUpperCase()} at the beginning of a statement`, this.byte(t.start));
    return this.fail('a keyword at the beginning of a statement');
  }

  // ---- CREATE ------------------------------------------------------------------------------

  private parseCreate(): Statement {
    const orReplaceTok = this.peek();
    const orReplace = this.eatKeywords('or', 'replace');
    const temporary = this.eatKeyword('temporary') || this.eatKeyword('temp');
    const t = this.peek();
    // `CREATE [OR REPLACE] REPLACEMENT MATERIALIZED VIEW name ... FOR target`: Materialize's replacement.
    if (!temporary && this.peekKeywords('replacement', 'materialized', 'view')) {
      this.i += 3;
      return this.parseCreateMaterializedView(orReplace, orReplaceTok, true);
    }
    if (orReplace && !this.peekKeyword('view') && !(this.peekKeywords('materialized', 'view') && !temporary)) {
      return this.fail(temporary ? 'VIEW after CREATE OR REPLACE TEMPORARY' : 'VIEW or MATERIALIZED VIEW after CREATE OR REPLACE');
    }
    if (temporary && !this.peekKeyword('view') && !this.peekKeyword('table')) return this.fail('TABLE, or VIEW after CREATE TEMPORARY') /* Materialize's wording, comma included */;
    if (t.kind === 'word') {
      switch (t.value) {
        case 'cluster':
          this.next();
          if (this.eatKeyword('replica')) return this.parseCreateClusterReplica();
          return this.parseCreateCluster();
        case 'database': {
          this.next();
          const ifNotExists = this.eatIfNotExists();
          return { kind: 'create_database', ifNotExists, name: this.parseNameFor('database')[0]! };
        }
        case 'schema': {
          this.next();
          const ifNotExists = this.eatIfNotExists();
          // Any number of parts: Materialize's planner refuses more than two in its own words.
          return { kind: 'create_schema', ifNotExists, name: this.parseObjectName() };
        }
        case 'secret': {
          this.next();
          const ifNotExists = this.eatIfNotExists();
          const name = this.parseNameFor('secret');
          this.expectKeyword('as');
          return { kind: 'create_secret', name, ifNotExists, value: this.parseSecretValue() };
        }
        case 'connection':
          this.next();
          return this.parseCreateConnection();
        case 'source':
          this.next();
          return this.parseCreateSource();
        case 'sink':
          this.next();
          return this.parseCreateSink();
        case 'table':
          this.next();
          return this.parseCreateTable(temporary);
        case 'view':
          this.next();
          return this.parseCreateView(orReplace, temporary, orReplaceTok);
        case 'materialized':
          if (this.peekKeywords('materialized', 'view')) {
            this.i += 2;
            return this.parseCreateMaterializedView(orReplace, orReplaceTok);
          }
          break;
        case 'index':
          this.next();
          return this.parseCreateIndex(false);
        case 'default':
          if (this.peekKeywords('default', 'index')) {
            this.i += 2;
            return this.parseCreateIndex(true);
          }
          break;
        case 'type':
          this.next();
          return this.parseCreateType();
        case 'role':
          this.next();
          return this.parseCreateRole();
        case 'user':
          // Materialize's parser error, word for word (logins are the environment's, not SQL's).
          throw new SqlSyntaxError('CREATE USER is not supported, for more information consult the documentation at https://materialize.com/docs/sql/create-role/#details', this.byte(t.start));
        case 'network':
          if (this.peekKeywords('network', 'policy')) {
            this.i += 2;
            const name = this.parseIdent();
            return { kind: 'create_network_policy', name, ...this.parseNetworkPolicyOptions() };
          }
          throw this.unsupported(t, 'CREATE NETWORK');
        case 'subsource':
        case 'continual':
        case 'unique':
          throw this.unsupported(t, `CREATE ${t.value.toUpperCase()}`);
      }
    }
    return this.fail(
      `an object type after CREATE (one of ${oneOf(['CLUSTER', 'CLUSTER REPLICA', 'CONNECTION', 'DATABASE', 'DEFAULT INDEX', 'INDEX', 'MATERIALIZED VIEW', 'ROLE', 'SCHEMA', 'SECRET', 'SINK', 'SOURCE', 'TABLE', 'TYPE', 'VIEW'])})`,
    );
  }

  private parseCreateCluster(): Statement {
    const name = this.parseIdent();
    // Materialize reads `REPLICAS (...)` both before the option list (legacy) and inside it, and
    // (for historical reasons) the option list with or without its parentheses:
    // `CREATE CLUSTER c SIZE = 'small', REPLICATION FACTOR = 2`.
    const found: { replicas?: ReplicaDefinition[] } = {};
    const onReplicas = (at: Token) => {
      if (found.replicas !== undefined) throw new SqlSyntaxError('REPLICAS specified more than once', this.byte(at.start));
      this.eatOp('=');
      found.replicas = this.parseReplicaDefinitions();
    };
    let options: SqlOption[] = [];
    if (this.peekKeyword('replicas') && !this.peekOp('=', 1)) {
      this.next();
      found.replicas = this.parseReplicaDefinitions();
      if (this.eatOp(',')) options = this.parseOptionItems(OPTION_LISTS.cluster, onReplicas);
      else if (this.eatKeyword('with') || this.peekOp('(')) options = this.parseOptions(OPTION_LISTS.cluster, onReplicas);
    } else if (this.peekOp('(')) {
      options = this.parseOptions(OPTION_LISTS.cluster, onReplicas);
    } else if (this.peek().kind === 'word') {
      options = this.parseOptionItems(OPTION_LISTS.cluster, onReplicas);
    }
    const replicas = found.replicas;
    // `FEATURES (ENABLE EAGER DELTA JOINS = true, ...)`: optimizer overrides, mz_system's to give.
    const featuresAt = this.peek();
    const features = this.eatKeyword('features') ? { position: this.byte(featuresAt.start), options: this.parseFeatureOptions() } : undefined;
    return { kind: 'create_cluster', name, ...(replicas !== undefined ? { replicas } : {}), options, ...(features ? { features } : {}) };
  }

  /** `( NAME [= value], ... )` of words Materialize reads as cluster features. */
  private parseFeatureOptions(): SqlOption[] {
    this.expectOp('(');
    const out: SqlOption[] = [];
    do {
      const startTok = this.peek();
      const words: string[] = [];
      while (this.peek().kind === 'word' && !this.peekOp('=')) words.push(this.next().value.toUpperCase());
      if (words.length === 0) this.fail('a feature name');
      const value: OptionValue = this.eatOp('=') ? this.parseOptionValue() : { kind: 'none' };
      out.push({ name: words.join(' '), value, position: this.byte(startTok.start) });
    } while (this.eatOp(','));
    this.expectOp(')');
    return out;
  }

  /** `( name [(options)], ... )` */
  private parseReplicaDefinitions(): ReplicaDefinition[] {
    this.expectOp('(');
    const replicas: ReplicaDefinition[] = [];
    if (!this.peekOp(')')) {
      do {
        const rname = this.parseIdent();
        const options = this.peekOp('(') ? this.parseOptions(OPTION_LISTS.replica) : [];
        replicas.push({ name: rname, options });
      } while (this.eatOp(','));
    }
    this.expectOp(')');
    return replicas;
  }

  private parseCreateClusterReplica(): Statement {
    const name = this.parseNameFor('cluster replica');
    // Parentheses optional, as for CREATE CLUSTER: `CREATE CLUSTER REPLICA c.r SIZE '1'`.
    const options = this.peekOp('(')
      ? this.parseOptions(OPTION_LISTS.replica)
      : this.peek().kind === 'word'
        ? this.parseOptionItems(OPTION_LISTS.replica)
        : [];
    return { kind: 'create_cluster_replica', cluster: name[0]!, name: name[1]!, options };
  }

  private parseSecretValue(): SecretValue {
    const t = this.peek();
    const after = this.peek(1);
    if (t.kind === 'string' && (after.kind === 'eof' || (after.kind === 'op' && after.value === ';'))) {
      this.next();
      return { kind: 'string', value: t.value };
    }
    return { kind: 'raw', expr: this.rawToStatementEnd('a secret value (a string literal or an expression)') };
  }

  private parseCreateConnection(): Statement {
    const ifNotExists = this.eatIfNotExists();
    const name = this.parseNameFor('connection');
    this.expectKeyword('to');
    const t = this.peek();
    const connectionType = CONNECTION_TYPES.find((c) => this.eatKeywords(...c.words))?.name;
    if (connectionType === undefined) {
      if (this.peekKeyword('yugabyte') || this.peekKeywords('iceberg', 'catalog')) {
        const words = this.peekKeyword('iceberg') ? `${t.raw} ${this.peek(1).raw}` : t.raw;
        throw this.unsupported(t, `CREATE CONNECTION ... TO ${words.toUpperCase()}`);
      }
      return this.fail(`a connection type (one of ${oneOf(CONNECTION_CONNECTORS.map(sqlWords).sort())})`);
    }
    // Any type's option names read here; the planner refuses the ones this type does not take.
    const options = this.parseOptions(ANY_CONNECTION_OPTIONS);
    const withOptions = this.eatKeyword('with') ? this.parseOptions(OPTION_LISTS.connectionWith) : [];
    return { kind: 'create_connection', name, ifNotExists, connectionType, options, withOptions };
  }

  private parseInCluster(): string | undefined {
    return this.eatKeywords('in', 'cluster') ? this.parseIdent() : undefined;
  }

  private parseCreateSource(): Statement {
    const ifNotExists = this.eatIfNotExists();
    const name = this.parseNameFor('source');
    const columns = this.peekOp('(') ? this.parseIdentList() : undefined;
    const inCluster = this.parseInCluster();
    this.expectKeyword('from');
    const t = this.peek();
    if (columns === undefined && this.eatKeywords(...WEBHOOK.words)) return this.parseWebhookSource(name, ifNotExists, inCluster);
    // The connector types' words (shared/connectors): `<type> CONNECTION c`, or `LOAD GENERATOR <generator>`.
    let connection: SourceConnection | undefined;
    const via = CONNECTION_SOURCE_CONNECTORS.find((c) => this.eatKeywords(...c.words, 'connection'));
    const generated = via ? undefined : GENERATOR_SOURCE_CONNECTORS.find((c) => this.eatKeywords(...c.words));
    if (via) {
      const conn = this.parseObjectName();
      connection = { kind: via.name, connection: conn, options: this.peekOp('(') ? this.parseOptions(via.source.options) : [] };
    } else if (generated) {
      const generator = this.parseLoadGenerator();
      connection = { kind: generated.name, generator, options: this.peekOp('(') ? this.parseOptions(generated.source.options) : [] };
    }
    if (!connection) {
      if (this.peekKeyword('yugabyte')) throw this.unsupported(t, `CREATE SOURCE ... FROM ${t.raw.toUpperCase()}`);
      const kinds = SOURCE_CONNECTORS.filter((c) => columns === undefined || c.source.form !== 'statement').map((c) => (c.source.form === 'connection' ? `${sqlWords(c)} CONNECTION` : sqlWords(c)));
      return this.fail(`a source type (one of ${oneOf(kinds.sort())})`);
    }
    const format = this.parseFormatSpecifier('source');
    const includeMetadata = this.eatKeyword('include') ? this.parseIncludeMetadata() : [];
    const envelope = this.eatKeyword('envelope') ? this.parseSourceEnvelope(includeMetadata.length > 0) : undefined;
    const references = this.peekKeyword('for') ? this.parseExternalReferences() : undefined;
    const exposeProgress = this.eatKeywords('expose', 'progress') ? (this.expectKeyword('as'), this.parseNameFor('source')) : undefined;
    const withOptions = this.eatKeyword('with') ? this.parseOptions(OPTION_LISTS.sourceWith) : [];
    return {
      kind: 'create_source',
      name,
      ifNotExists,
      ...(inCluster !== undefined ? { inCluster } : {}),
      ...(columns !== undefined ? { columns } : {}),
      connection,
      ...(format ? { format } : {}),
      includeMetadata,
      ...(envelope ? { envelope } : {}),
      ...(references ? { references } : {}),
      ...(exposeProgress ? { exposeProgress } : {}),
      withOptions,
    };
  }

  private parseLoadGenerator(): LoadGenerator {
    for (const [generator, words] of LOAD_GENERATORS) {
      if (this.eatKeywords(...words)) return generator;
    }
    return this.fail(`a load generator (one of ${oneOf(LOAD_GENERATORS.map(([g]) => g.toUpperCase()))})`);
  }

  private parseWebhookSource(name: ObjectName, ifNotExists: boolean, inCluster: string | undefined, isTable = false): Statement {
    this.expectKeywords('body', 'format');
    const formatTok = this.peek();
    const bodyFormat = this.parseFormat('source');
    if (bodyFormat.kind !== 'json' && bodyFormat.kind !== 'text' && bodyFormat.kind !== 'bytes') {
      this.failAt(formatTok, 'JSON, JSON ARRAY, TEXT or BYTES');
    }
    const includeHeader: { header: string; alias: string; bytes: boolean }[] = [];
    let includeHeaders: { filters: { block: boolean; header: string }[] } | undefined;
    while (this.peekKeyword('include')) {
      const includeTok = this.next();
      if (this.eatKeyword('header')) {
        const header = this.parseStringLiteral();
        this.expectKeyword('as');
        const alias = this.parseIdent();
        includeHeader.push({ header, alias, bytes: this.eatKeyword('bytes') });
      } else if (this.eatKeyword('headers')) {
        if (includeHeaders) throw new SqlSyntaxError('INCLUDE HEADERS specified more than once', this.byte(includeTok.start));
        const filters: { block: boolean; header: string }[] = [];
        if (this.eatOp('(')) {
          do {
            const block = this.eatKeyword('not');
            filters.push({ block, header: this.parseStringLiteral() });
          } while (this.eatOp(','));
          this.expectOp(')');
        }
        includeHeaders = { filters };
      } else {
        return this.fail('HEADER or HEADERS');
      }
    }
    const check = this.eatKeyword('check') ? this.parseWebhookCheck() : undefined;
    return {
      kind: 'create_webhook_source',
      ...(isTable ? { isTable } : {}),
      name,
      ifNotExists,
      ...(inCluster !== undefined ? { inCluster } : {}),
      bodyFormat,
      includeHeader,
      ...(includeHeaders ? { includeHeaders } : {}),
      ...(check ? { check } : {}),
    };
  }

  /** `( [WITH (HEADERS | BODY | SECRET s [AS alias] [BYTES], ...)] <expression> )` after CHECK (Materialize's grammar). */
  private parseWebhookCheck(): WebhookCheck {
    this.expectOp('(');
    let options: NonNullable<WebhookCheck['options']> | undefined;
    if (this.eatKeyword('with')) {
      this.expectOp('(');
      const headers: WebhookCheckColumn[] = [];
      const bodies: WebhookCheckColumn[] = [];
      const secrets: (WebhookCheckColumn & { secret: ObjectName; position: number })[] = [];
      const rest = (): WebhookCheckColumn => {
        const alias = this.eatKeyword('as') ? this.parseIdent() : undefined;
        const bytes = this.eatKeyword('bytes');
        return alias !== undefined ? { alias, bytes } : { bytes };
      };
      do {
        const t = this.peek();
        if (this.eatKeyword('secret')) {
          const position = this.byte(this.peek().start);
          secrets.push({ secret: this.parseObjectName(), position, ...rest() });
        } else if (this.eatKeyword('headers')) headers.push(rest());
        else if (this.eatKeyword('body')) bodies.push(rest());
        else return this.failAt(t, 'one of SECRET or HEADERS or BODY');
      } while (this.eatOp(','));
      this.expectOp(')');
      options = { headers, bodies, secrets };
    }
    const first = this.i;
    if (this.peekOp(')')) return this.fail('an expression');
    readScalar(this);
    const expr = this.rawSpan(first, this.i);
    this.expectOp(')');
    return options ? { options, expr } : { expr };
  }

  /** `FORMAT f` or `KEY FORMAT f VALUE FORMAT f`, if present. */
  private parseFormatSpecifier(context: 'source' | 'sink'): FormatSpecifier | undefined {
    if (this.eatKeyword('format')) return { kind: 'bare', format: this.parseFormat(context) };
    if (this.eatKeywords('key', 'format')) {
      const key = this.parseFormat(context);
      this.expectKeywords('value', 'format');
      return { kind: 'key_value', key, value: this.parseFormat(context) };
    }
    return undefined;
  }

  private parseFormat(context: 'source' | 'sink'): Format {
    if (this.eatKeyword('avro')) {
      this.expectKeyword('using');
      if (this.eatKeyword('schema')) return { kind: 'avro', csrOptions: [], schema: this.parseStringLiteral() };
      const { connection, options } = this.parseCsrConnection();
      const keyStrategy = this.eatKeywords('key', 'strategy') ? this.parseSchemaStrategy() : undefined;
      const valueStrategy = this.eatKeywords('value', 'strategy') ? this.parseSchemaStrategy() : undefined;
      return {
        kind: 'avro',
        csrConnection: connection,
        csrOptions: options,
        ...(keyStrategy ? { keyStrategy } : {}),
        ...(valueStrategy ? { valueStrategy } : {}),
      };
    }
    if (this.eatKeyword('protobuf')) {
      if (this.eatKeyword('message')) {
        const messageName = this.parseStringLiteral();
        this.expectKeywords('using', 'schema');
        return { kind: 'protobuf', csrOptions: [], messageName, schema: this.parseStringLiteral() };
      }
      this.expectKeyword('using');
      const { connection, options } = this.parseCsrConnection();
      return { kind: 'protobuf', csrConnection: connection, csrOptions: options };
    }
    if (this.eatKeyword('json')) return { kind: 'json', array: this.eatKeyword('array') };
    if (this.eatKeyword('text')) return { kind: 'text' };
    if (this.eatKeyword('bytes')) return { kind: 'bytes' };
    if (context === 'source' && this.eatKeyword('csv')) {
      this.expectKeyword('with');
      let columns: Extract<Format, { kind: 'csv' }>['columns'];
      if (this.eatKeyword('header')) {
        columns = { kind: 'header', names: this.peekOp('(') ? this.parseIdentList() : [] };
      } else {
        const count = this.parseUnsigned();
        this.expectKeyword('columns');
        columns = { kind: 'count', count };
      }
      const delimiter = this.eatKeywords('delimited', 'by') ? this.parseStringLiteral() : undefined;
      return { kind: 'csv', columns, ...(delimiter !== undefined ? { delimiter } : {}) };
    }
    if (context === 'source' && this.eatKeyword('regex')) return { kind: 'regex', pattern: this.parseStringLiteral() };
    return this.fail(`a format (one of ${oneOf(context === 'source' ? ['AVRO', 'BYTES', 'CSV', 'JSON', 'PROTOBUF', 'REGEX', 'TEXT'] : ['AVRO', 'BYTES', 'JSON', 'PROTOBUF', 'TEXT'])})`);
  }

  private parseCsrConnection(): { connection: ObjectName; options: SqlOption[] } {
    this.expectKeywords('confluent', 'schema', 'registry', 'connection');
    const connection = this.parseObjectName();
    return { connection, options: this.peekOp('(') ? this.parseOptions(OPTION_LISTS.csrConfig) : [] };
  }

  private parseSchemaStrategy(): SchemaStrategy {
    if (this.eatKeyword('latest')) return { kind: 'latest' };
    if (this.eatKeyword('id')) return { kind: 'id', id: this.parseUnsigned() };
    if (this.eatKeyword('inline')) return { kind: 'inline', schema: this.parseStringLiteral() };
    return this.fail('LATEST, ID or INLINE');
  }

  private parseIncludeMetadata(): IncludeMetadata[] {
    const items: IncludeMetadata[] = [];
    do {
      const t = this.peek();
      if (this.eatKeyword('header')) {
        const key = this.parseStringLiteral();
        this.expectKeyword('as');
        const alias = this.parseIdent();
        items.push({ kind: 'header', key, alias, bytes: this.eatKeyword('bytes') });
        continue;
      }
      const kind = t.kind === 'word' ? (['key', 'timestamp', 'partition', 'offset', 'headers'] as const).find((k) => k === t.value) : undefined;
      if (!kind) return this.fail(`one of ${oneOf(['HEADER', 'HEADERS', 'KEY', 'OFFSET', 'PARTITION', 'TIMESTAMP'])}`);
      this.next();
      const alias = this.eatKeyword('as') ? this.parseIdent() : undefined;
      items.push(alias !== undefined ? { kind, alias } : { kind });
    } while (this.eatOp(','));
    return items;
  }

  /** `includesMetadata`: the statement has INCLUDE ..., which only NONE, UPSERT and DEBEZIUM take. */
  private parseSourceEnvelope(includesMetadata: boolean): SourceEnvelope {
    const t = this.peek();
    if (this.eatKeyword('none')) return { kind: 'none' };
    if (this.eatKeyword('debezium')) return { kind: 'debezium' };
    if (this.eatKeyword('upsert')) {
      if (!this.eatOp('(')) return { kind: 'upsert' };
      this.expectKeywords('value', 'decoding', 'errors');
      this.eatOp('=');
      const parenthesized = this.eatOp('(');
      this.expectKeyword('inline');
      const alias = this.eatKeyword('as') ? this.parseIdent() : undefined;
      if (parenthesized) this.expectOp(')');
      this.expectOp(')');
      return { kind: 'upsert', valueDecodingErrors: alias !== undefined ? { inline: true, alias } : { inline: true } };
    }
    if (this.peekKeyword('materialize')) {
      // Materialize refuses INCLUDE with this envelope before it plans the envelope (and its flag).
      if (includesMetadata) throw mz.IncludeMetadataRequiresEnvelope().at(this.byte(t.start));
      // Behind a flag a fresh Materialize keeps off: refused in its words.
      throw new NotSupportedError('ENVELOPE MATERIALIZE is not available', {
        position: this.byte(t.start),
        detail: 'The requested feature (enable_envelope_materialize) is in private preview.',
        hint: 'Contact support to discuss enabling the feature in your Materialize region.',
      });
    }
    return this.fail('NONE, DEBEZIUM or UPSERT');
  }

  private parseExternalReferences(): ExternalReferences {
    this.expectKeyword('for');
    if (this.eatKeywords('all', 'tables')) return { kind: 'all' };
    if (this.eatKeyword('tables')) {
      this.expectOp('(');
      const tables: { reference: ObjectName; alias?: ObjectName }[] = [];
      do {
        const reference = this.parseObjectName();
        const alias = this.eatKeyword('as') ? this.parseObjectName() : undefined;
        tables.push(alias ? { reference, alias } : { reference });
      } while (this.eatOp(','));
      this.expectOp(')');
      return { kind: 'tables', tables };
    }
    if (this.eatKeyword('schemas')) return { kind: 'schemas', schemas: this.parseIdentList() };
    return this.fail('ALL TABLES, TABLES or SCHEMAS');
  }

  private parseCreateSink(): Statement {
    const ifNotExists = this.eatIfNotExists();
    // The name may be left out (Materialize's parser takes `CREATE SINK IN CLUSTER c ...` and
    // `CREATE SINK FROM t ...` as nameless, and its planner refuses them): IN and FROM are not
    // reserved, so a sink may also be named `in` or `from`.
    const nameless = this.peekKeywords('in', 'cluster') || (this.peekKeyword('from') && !this.peekKeywords('from', 'from'));
    const name = nameless ? undefined : this.parseNameFor('sink');
    const inCluster = this.parseInCluster();
    this.expectKeyword('from');
    const from = this.parseObjectName();
    this.expectKeyword('into');
    // The sink types' words (shared/connectors); with none of them, the first one's are expected.
    const sink = SINK_CONNECTORS.find((c) => this.peekKeywords(...c.words, 'connection')) ?? SINK_CONNECTORS[0]!;
    this.expectKeywords(...sink.words, 'connection');
    const conn = this.parseObjectName();
    const options = this.peekOp('(') ? this.parseOptions(sink.sink.options) : [];
    let key: SinkConnection['key'];
    if (this.peekKeyword('key') && this.peekOp('(', 1)) {
      this.next();
      const columns = this.parseIdentList();
      key = { columns, notEnforced: this.eatKeywords('not', 'enforced') };
    }
    const headers = this.eatKeyword('headers') ? this.parseIdent() : undefined;
    const connection: SinkConnection = {
      kind: sink.name,
      connection: conn,
      options,
      ...(key ? { key } : {}),
      ...(headers !== undefined ? { headers } : {}),
    };
    const format = this.parseFormatSpecifier('sink');
    let envelope: 'debezium' | 'upsert' | undefined;
    if (this.eatKeyword('envelope')) {
      if (this.eatKeyword('debezium')) envelope = 'debezium';
      else if (this.eatKeyword('upsert')) envelope = 'upsert';
      else return this.fail('DEBEZIUM or UPSERT');
    }
    const withOptions = this.eatKeyword('with') ? this.parseOptions(OPTION_LISTS.sinkWith) : [];
    return {
      kind: 'create_sink',
      ...(name ? { name } : {}),
      ifNotExists,
      ...(inCluster !== undefined ? { inCluster } : {}),
      from,
      connection,
      ...(format ? { format } : {}),
      ...(envelope ? { envelope } : {}),
      withOptions,
    };
  }

  private parseCreateTable(temporary: boolean): Statement {
    const ifNotExists = this.eatIfNotExists();
    const name = this.parseNameFor('table');
    if (this.peekKeywords('from', ...WEBHOOK.words)) {
      if (temporary) throw this.unsupported(this.peek(), `CREATE TEMPORARY TABLE ... FROM ${sqlWords(WEBHOOK)}`);
      this.i += 1 + WEBHOOK.words.length;
      return this.parseWebhookSource(name, ifNotExists, undefined, true);
    }
    // `CREATE TABLE t (a, b) FROM SOURCE s (...)`: column names, no types, before FROM SOURCE.
    const afterColumns = this.peekOp('(') ? this.tokens[this.matchingClose(this.i)] : undefined;
    if (this.peekKeyword('from') || (afterColumns?.kind === 'word' && afterColumns.value === 'from')) {
      if (temporary) throw this.unsupported(this.peek(), 'CREATE TEMPORARY TABLE ... FROM SOURCE');
      return this.parseTableFromSource(name, ifNotExists);
    }
    this.expectOp('(');
    const columns: ColumnDef[] = [];
    const constraints: TableConstraint[] = [];
    if (!this.peekOp(')')) {
      do {
        const constraint = this.parseTableConstraint();
        if (constraint) constraints.push(constraint);
        else columns.push(this.parseColumnDef());
      } while (this.eatOp(','));
    }
    this.expectOp(')');
    const withOptions = this.eatKeyword('with') ? this.parseOptions(OPTION_LISTS.tableWith) : [];
    return { kind: 'create_table', name, ifNotExists, temporary, columns, ...(constraints.length ? { constraints } : {}), withOptions };
  }

  /** `[CONSTRAINT name] PRIMARY KEY (cols) | UNIQUE [NULLS [NOT] DISTINCT] (cols)`, if one starts here (CHECK and FOREIGN KEY are Materialize's unsafe features). */
  private parseTableConstraint(): TableConstraint | undefined {
    const t = this.peek();
    if (t.kind !== 'word' || !['primary', 'unique', 'constraint', 'check', 'foreign', 'exclude'].includes(t.value)) return undefined;
    const name = this.eatKeyword('constraint') ? this.parseIdent() : undefined;
    const u = this.peek();
    let primary = false;
    let nullsNotDistinct = false;
    if (this.eatKeywords('primary', 'key')) primary = true;
    else if (this.eatKeyword('unique')) {
      if (this.eatKeyword('nulls')) {
        nullsNotDistinct = this.eatKeyword('not');
        this.expectKeyword('distinct');
      }
    } else if (u.kind === 'word' && ['check', 'foreign', 'exclude'].includes(u.value)) throw this.unsupported(u, `Table constraint ${u.raw.toUpperCase()}`);
    else return this.fail('one of PRIMARY KEY, UNIQUE, FOREIGN KEY or CHECK');
    return { ...(name !== undefined ? { name } : {}), primary, nullsNotDistinct, columns: this.parseIdentList() };
  }

  private parseTableFromSource(name: ObjectName, ifNotExists: boolean): Statement {
    const columns = this.peekOp('(') ? this.parseIdentList() : undefined;
    this.expectKeywords('from', 'source');
    const source = this.parseObjectName();
    let reference: ObjectName | undefined;
    if (this.eatOp('(')) {
      this.expectKeyword('reference');
      this.eatOp('=');
      reference = this.parseObjectName();
      this.expectOp(')');
    }
    const format = this.parseFormatSpecifier('source');
    const includeMetadata = this.eatKeyword('include') ? this.parseIncludeMetadata() : [];
    const envelope = this.eatKeyword('envelope') ? this.parseSourceEnvelope(includeMetadata.length > 0) : undefined;
    const withOptions = this.eatKeyword('with') ? this.parseOptions(OPTION_LISTS.tableFromSourceWith) : [];
    return {
      kind: 'create_table_from_source',
      name,
      ifNotExists,
      ...(columns !== undefined ? { columns } : {}),
      source,
      ...(reference ? { reference } : {}),
      ...(format ? { format } : {}),
      includeMetadata,
      ...(envelope ? { envelope } : {}),
      withOptions,
    };
  }

  private parseColumnDef(): ColumnDef {
    const name = this.parseIdent();
    const type = this.parseDataType();
    let notNull = false;
    let nullable = false;
    let def: RawExpr | undefined;
    let unique: ColumnDef['unique'];
    for (;;) {
      const o = this.peek();
      if (this.eatKeywords('not', 'null')) notNull = true;
      else if (this.eatKeyword('null')) nullable = true;
      else if (!unique && this.eatKeywords('primary', 'key')) unique = 'primary key';
      else if (!unique && this.eatKeyword('unique')) unique = 'unique';
      else if (this.eatKeyword('default')) {
        if (def) throw new SqlSyntaxError('DEFAULT specified more than once', this.byte(o.start));
        def = this.rawDefault();
      } else if (o.kind === 'word' && COLUMN_OPTION_STARTS.has(o.value)) {
        throw this.unsupported(o, `Column option ${o.raw.toUpperCase()}`);
      } else break;
      if (notNull && nullable) {
        throw new SqlSyntaxError(`conflicting NULL/NOT NULL declarations for column ${JSON.stringify(name)}`, this.byte(o.start));
      }
    }
    return { name, type, notNull, ...(def ? { default: def } : {}), ...(unique ? { unique } : {}) };
  }

  /** A column `DEFAULT` expression: up to the next column option, `,` or `)` at depth 0. */
  private rawDefault(): RawExpr {
    const first = this.i;
    let depth = 0;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof' || (t.kind === 'op' && t.value === ';')) break;
      if (depth === 0) {
        if (t.kind === 'op' && (t.value === ',' || t.value === ')')) break;
        // The first token belongs to the expression whatever it is (`DEFAULT NULL`).
        if (this.i > first && t.kind === 'word' && COLUMN_OPTION_STARTS.has(t.value)) break;
      }
      if (t.kind === 'op' && (t.value === '(' || t.value === '[')) depth++;
      else if (t.kind === 'op' && (t.value === ')' || t.value === ']')) depth--;
      this.next();
    }
    if (this.i === first) return this.fail('an expression after DEFAULT');
    return this.rawSpan(first, this.i);
  }

  parseDataType(): DataType {
    return this.nested(() => this.parseDataTypeInner());
  }

  private parseDataTypeInner(): DataType {
    const t = this.peek();
    if (t.kind === 'word' && t.value === 'map' && this.peekOp('[', 1)) {
      // Materialize's anonymous map type: `map[text => int]`.
      this.i += 2;
      const key = this.parseDataType();
      this.expectOp('=>');
      const value = this.parseDataType();
      this.expectOp(']');
      return this.typeSuffixes({ name: ['map'], typmod: [], arrayDimensions: 0, map: { key, value } });
    }
    let name: ObjectName;
    let typmod: number[] = [];
    let typmodRead = false;
    if (t.kind !== 'word' && t.kind !== 'quoted') return this.fail('a data type name');
    if (t.kind === 'word' && !this.peekOp('.', 1)) {
      this.next();
      let word = t.value;
      for (const rest of MULTIWORD_TYPES[word] ?? []) {
        if (this.eatKeywords(...rest)) {
          word = `${word} ${rest.join(' ')}`;
          break;
        }
      }
      if (word === 'timestamp' || word === 'time') {
        // PostgreSQL writes the precision before the zone: `timestamp(3) with time zone`.
        typmodRead = true;
        if (this.peekOp('(')) typmod = this.parseTypmod();
        if (this.eatKeywords('with', 'time', 'zone')) word = `${word} with time zone`;
        else if (this.eatKeywords('without', 'time', 'zone')) word = `${word} without time zone`;
      }
      name = [word];
    } else {
      name = this.parseObjectName();
    }
    if (!typmodRead && this.peekOp('(')) typmod = this.parseTypmod();
    return this.typeSuffixes({ name, typmod, arrayDimensions: 0 });
  }

  /** `list` and `[]` after a type, left to right: `int list` is a list of int, `int[] list` a list of int arrays. */
  private typeSuffixes(type: DataType): DataType {
    for (;;) {
      if (this.eatKeyword('list')) type = { name: ['list'], typmod: [], arrayDimensions: 0, list: type };
      else if (this.eatOp('[')) {
        if (this.peek().kind === 'number') this.parseUnsigned();
        this.expectOp(']');
        type = { ...type, arrayDimensions: type.arrayDimensions + 1 };
      } else return type;
    }
  }

  /**
   * `CREATE TYPE name AS LIST (ELEMENT TYPE [=] t)`, `... AS MAP (KEY TYPE [=] k, VALUE TYPE [=] v)`
   * or `... AS (field type, ...)`, Materialize's grammar: which options a kind needs is the planner's check.
   */
  private parseCreateType(): Statement {
    const name = this.parseNameFor('type');
    this.expectKeyword('as');
    const kind = this.eatKeyword('list') ? 'list' : this.eatKeyword('map') ? 'map' : undefined;
    this.expectOp('(');
    if (kind === undefined) {
      const fields: { name: string; type: DataType }[] = [];
      do fields.push({ name: this.parseIdent(), type: this.parseDataType() });
      while (this.eatOp(','));
      this.expectOp(')');
      return { kind: 'create_type', name, as: { kind: 'record', fields } };
    }
    const options: { name: string; type: DataType; position: number }[] = [];
    do {
      let option: string;
      if (kind === 'list') {
        this.expectKeyword('element');
        option = 'ELEMENT TYPE';
      } else if (this.eatKeyword('key')) option = 'KEY TYPE';
      else if (this.eatKeyword('value')) option = 'VALUE TYPE';
      else return this.fail('one of KEY or VALUE');
      this.expectKeyword('type');
      this.eatOp('=');
      const position = this.byte(this.peek().start);
      options.push({ name: option, type: this.parseDataType(), position });
    } while (this.eatOp(','));
    this.expectOp(')');
    return { kind: 'create_type', name, as: { kind, options } };
  }

  private parseTypmod(): number[] {
    this.expectOp('(');
    const out: number[] = [];
    do out.push(this.parseUnsigned());
    while (this.eatOp(','));
    this.expectOp(')');
    return out;
  }

  private parseCreateView(orReplace: boolean, temporary: boolean, orReplaceTok: Token): Statement {
    const ifNotExists = this.eatIfNotExists();
    if (orReplace && ifNotExists) throw new SqlSyntaxError('cannot specify both OR REPLACE and IF NOT EXISTS', this.byte(orReplaceTok.start));
    const name = this.parseNameFor('view');
    const columns = this.peekOp('(') ? this.parseIdentList() : undefined;
    this.expectKeyword('as');
    const query = this.rawQuery();
    return {
      kind: 'create_view',
      name,
      ifNotExists,
      orReplace,
      temporary,
      ...(columns ? { columns } : {}),
      query: query.text,
      queryPosition: query.position,
    };
  }

  private parseCreateMaterializedView(orReplace: boolean, orReplaceTok: Token, replacement = false): Statement {
    const ifNotExists = this.eatIfNotExists();
    if (orReplace && ifNotExists) throw new SqlSyntaxError('cannot specify both OR REPLACE and IF NOT EXISTS', this.byte(orReplaceTok.start));
    const name = this.parseNameFor('materialized view');
    const columns = this.peekOp('(') ? this.parseIdentList() : undefined;
    let replacementFor: { name: ObjectName; position: number } | undefined;
    if (replacement) {
      this.expectKeyword('for');
      const position = this.byte(this.peek().start);
      replacementFor = { name: this.parseObjectName(), position };
    }
    // `IN CLUSTER c [REPLICA r]` or `IN REPLICA r` (Materialize's replica-targeted materialized views).
    let inCluster: string | undefined;
    let inReplica: { name: string; position: number } | undefined;
    if (this.eatKeywords('in', 'cluster')) {
      inCluster = this.parseIdent();
      if (this.peekKeyword('replica')) {
        this.next();
        const position = this.byte(this.peek().start);
        inReplica = { name: this.parseIdent(), position };
      }
    } else if (this.eatKeywords('in', 'replica')) {
      const position = this.byte(this.peek().start);
      inReplica = { name: this.parseIdent(), position };
    }
    const withOptions = this.eatKeyword('with') ? this.parseOptions(OPTION_LISTS.materializedViewWith) : [];
    this.expectKeyword('as');
    const query = this.rawQuery();
    return {
      kind: 'create_materialized_view',
      name,
      ifNotExists,
      orReplace,
      ...(columns ? { columns } : {}),
      ...(replacementFor ? { replacementFor } : {}),
      ...(inReplica ? { inReplica } : {}),
      ...(inCluster !== undefined ? { inCluster } : {}),
      withOptions,
      query: query.text,
      queryPosition: query.position,
    };
  }

  /** A view body: everything up to the end of the statement, as typed. */
  private rawQuery(): RawExpr {
    const t = this.peek();
    const startsQuery = (t.kind === 'word' && ['select', 'with', 'values', 'table'].includes(t.value)) || (t.kind === 'op' && t.value === '(');
    if (!startsQuery) return this.fail('a query (SELECT, WITH, VALUES, TABLE or a parenthesized query)');
    return this.rawToStatementEnd('a query');
  }

  private parseCreateIndex(isDefault: boolean): Statement {
    const ifNotExists = this.eatIfNotExists();
    let name: string | undefined;
    const t = this.peek();
    if ((t.kind === 'word' || t.kind === 'quoted') && !this.peekKeyword('on') && !this.peekKeywords('in', 'cluster')) {
      name = this.parseIdent();
    }
    const inCluster = this.parseInCluster();
    this.expectKeyword('on');
    const on = this.parseNameFor('index');
    if (this.eatKeyword('using')) this.expectKeyword('arrangement');
    let keyParts: RawExpr[] | undefined;
    if (!isDefault) {
      if (!this.peekOp('(')) return this.fail('left parenthesis');
      // `()`: an index with an empty key, which Materialize allows (an arrangement of the whole row).
      if (this.peekOp(')', 1)) {
        this.i += 2;
        keyParts = [];
      } else {
        keyParts = this.rawList('an index key expression');
      }
    }
    const withOptions = this.eatKeyword('with') ? this.parseOptions(OPTION_LISTS.indexWith) : [];
    return {
      kind: 'create_index',
      ...(name !== undefined ? { name } : {}),
      ifNotExists,
      ...(inCluster !== undefined ? { inCluster } : {}),
      on,
      ...(keyParts ? { keyParts } : {}),
      withOptions,
    };
  }

  // ---- DROP --------------------------------------------------------------------------------

  private parseDrop(): Statement {
    const t = this.peek();
    if (t.kind === 'word' && UNSUPPORTED_OBJECT_TYPES.includes(t.value)) throw this.unsupported(t, `DROP ${t.raw.toUpperCase()}`);
    if (this.eatKeywords('network', 'policy')) {
      const ifExists = this.eatKeywords('if', 'exists');
      return { kind: 'drop_network_policy', ifExists, names: this.parseIdentSeq() };
    }
    if (this.eatKeyword('role') || this.eatKeyword('user')) {
      const ifExists = this.eatKeywords('if', 'exists');
      return { kind: 'drop_role', ifExists, names: this.parseIdentSeq() };
    }
    if (this.eatKeyword('owned')) {
      this.expectKeyword('by');
      const roles = this.parseIdentSeq();
      const cascade = this.eatKeyword('cascade') ? true : this.eatKeyword('restrict') ? false : undefined;
      return { kind: 'drop_owned', roles, ...(cascade !== undefined ? { cascade } : {}) };
    }
    const objectType = this.parseObjectType();
    const ifExists = this.eatKeywords('if', 'exists');
    const names: ObjectName[] = [];
    do names.push(this.parseNameFor(objectType));
    while (this.eatOp(','));
    let cascade = false;
    let restrict = false;
    if (this.eatKeyword('cascade')) cascade = true;
    else if (this.eatKeyword('restrict')) restrict = true;
    const second = this.peek();
    if ((cascade && this.eatKeyword('restrict')) || (restrict && this.eatKeyword('cascade'))) {
      const [first, other] = cascade ? ['CASCADE', 'RESTRICT'] : ['RESTRICT', 'CASCADE'];
      throw new SqlSyntaxError(`Cannot specify both ${first} and ${other} in DROP`, this.byte(second.start));
    }
    return { kind: 'drop', objectType, ifExists, names, cascade, restrict };
  }

  private parseObjectType(): ObjectType {
    if (this.eatKeyword('cluster')) return this.eatKeyword('replica') ? 'cluster replica' : 'cluster';
    if (this.eatKeywords('materialized', 'view')) return 'materialized view';
    const simple: ObjectType[] = ['database', 'schema', 'secret', 'connection', 'source', 'sink', 'table', 'view', 'index', 'type'];
    for (const s of simple) if (this.eatKeyword(s)) return s;
    return this.fail('an object type (CLUSTER, CLUSTER REPLICA, SOURCE, ...)');
  }

  /** A name with the number of parts its object type takes. */
  private parseNameFor(objectType: ObjectType): ObjectName {
    const nameTok = this.peek();
    const name = this.parseObjectName();
    switch (objectType) {
      case 'cluster replica':
        if (name.length !== 2) this.failAt(nameTok, 'a replica name qualified by its cluster (cluster.replica)');
        break;
      case 'cluster':
        if (name.length !== 1) this.failAt(nameTok, 'an unqualified cluster name');
        break;
      case 'database':
        if (name.length !== 1) this.failAt(nameTok, 'an unqualified database name');
        break;
      case 'schema':
        if (name.length > 2) this.failAt(nameTok, 'a schema name with at most two parts (database.schema)');
        break;
      default:
        break;
    }
    return name;
  }

  // ---- ALTER -------------------------------------------------------------------------------

  private parseAlter(): Statement {
    const t = this.peek();
    if (this.eatKeyword('system')) return this.parseAlterSystem();
    if (this.eatKeywords('network', 'policy')) {
      const name = this.parseIdent();
      this.expectKeyword('set');
      return { kind: 'alter_network_policy', name, ...this.parseNetworkPolicyOptions() };
    }
    if (t.kind === 'word' && UNSUPPORTED_OBJECT_TYPES.includes(t.value)) {
      throw this.unsupported(t, `ALTER ${t.raw.toUpperCase()}`);
    }
    if (this.eatKeyword('role') || this.eatKeyword('user')) return this.parseAlterRole();
    if (this.eatKeywords('default', 'privileges')) return this.parseAlterDefaultPrivileges();
    const objectType = this.parseObjectType();
    const ifExists = this.eatKeywords('if', 'exists');
    const name = this.parseNameFor(objectType);
    if (objectType === 'type' || objectType === 'database') {
      // Materialize alters a type's or a database's owner and nothing else.
      this.expectKeywords('owner', 'to');
      return { kind: 'alter_owner', objectType, ifExists, name, owner: this.parseIdent() };
    }
    const what = `ALTER ${objectType.toUpperCase()}`;
    const a = this.peek();
    if (this.eatKeywords('rename', 'to')) return { kind: 'alter_rename', objectType, ifExists, name, newName: this.parseIdent() };
    if (this.eatKeywords('owner', 'to')) return { kind: 'alter_owner', objectType, ifExists, name, owner: this.parseIdent() };
    if ((objectType === 'cluster' || objectType === 'schema') && this.peekKeywords('swap', 'with')) {
      if (ifExists) return this.fail('RENAME TO, OWNER TO or SET CLUSTER (SWAP WITH takes no IF EXISTS)');
      this.i += 2;
      return { kind: 'alter_swap', objectType, name, other: this.parseIdent() };
    }
    if (this.eatKeywords('set', 'cluster')) return { kind: 'alter_set_cluster', objectType, ifExists, name, cluster: this.parseIdent() };
    if (objectType === 'sink' && this.eatKeywords('set', 'from')) {
      const fromPosition = this.byte(this.peek().start);
      return { kind: 'alter_sink_from', ifExists, name, from: this.parseObjectName(), fromPosition };
    }
    if ((objectType === 'source' || objectType === 'sink') && this.eatKeyword('restart')) return { kind: 'alter_restart', objectType, ifExists, name };
    if (objectType === 'sink' && (this.peekKeyword('set') || this.peekKeyword('reset'))) {
      // Materialize's grammar takes a sink's options here (parse_alter_sink), and its planner
      // refuses them all (plan_alter_sink: bail_unsupported!).
      const set = this.next().value === 'set';
      if (set) this.parseOptions(OPTION_LISTS.sinkWith);
      else {
        this.expectOp('(');
        do this.parseOptionName(OPTION_LISTS.sinkWith);
        while (this.eatOp(','));
        this.expectOp(')');
      }
      if (!this.peekOp(';') && this.peek().kind !== 'eof') this.fail('end of statement');
      throw mz.Unsupported(set ? 'ALTER SINK SET options' : 'ALTER SINK RESET option').at(this.byte(a.start));
    }
    if (objectType === 'secret' && this.eatKeyword('as')) return { kind: 'alter_secret', name, ifExists, value: this.parseSecretValue() };
    if (objectType === 'cluster' && this.peekKeyword('set') && this.peekOp('(', 1)) {
      this.next();
      const found: { replicas?: ReplicaDefinition[] } = {};
      const options = this.parseOptions(OPTION_LISTS.alterCluster, (at) => {
        if (found.replicas !== undefined) throw new SqlSyntaxError('REPLICAS specified more than once', this.byte(at.start));
        this.eatOp('=');
        found.replicas = this.parseReplicaDefinitions();
      });
      const wait = this.eatKeyword('with') ? this.parseClusterWait() : undefined;
      const action: AlterClusterAction = { kind: 'set', options, ...(found.replicas ? { replicas: found.replicas } : {}), ...(wait ? { wait } : {}) };
      return { kind: 'alter_cluster', name: name[0]!, ifExists, action };
    }
    if (objectType === 'materialized view' && this.peekKeywords('apply', 'replacement')) {
      this.i += 2;
      const replacementPosition = this.byte(this.peek().start);
      return { kind: 'alter_apply_replacement', name, ifExists, replacement: this.parseObjectName(), replacementPosition };
    }
    if (objectType === 'cluster' && this.eatKeyword('reset')) {
      this.expectOp('(');
      const names: string[] = [];
      const seen = new Set<string>();
      do {
        const at = this.peek();
        const n = this.parseOptionName(OPTION_LISTS.alterCluster);
        if (seen.has(n)) throw new SqlSyntaxError(`${n} specified more than once`, this.byte(at.start));
        seen.add(n);
        names.push(n);
      } while (this.eatOp(','));
      this.expectOp(')');
      return { kind: 'alter_cluster', name: name[0]!, ifExists, action: { kind: 'reset', names } };
    }
    if (objectType === 'source') {
      const action = this.parseAlterSourceAction();
      if (action) return { kind: 'alter_source', ifExists, name, action };
    }
    if (RETAIN_HISTORY_TYPES.has(objectType) && ((this.peekKeyword('set') && this.peekOp('(', 1)) || (this.peekKeyword('reset') && this.peekOp('(', 1)))) {
      return this.parseAlterRetainHistory(objectType, ifExists, name, what);
    }
    if (objectType === 'table' && this.eatKeyword('add')) {
      // Materialize's grammar: COLUMN is required; no constraints, no default (nullable only).
      this.expectKeyword('column');
      const ifColumnNotExists = this.eatIfNotExists();
      const columnTok = this.peek();
      const column = this.parseIdent();
      return { kind: 'alter_table_add_column', ifExists, name, ifColumnNotExists, column, type: this.parseDataType(), columnPosition: this.byte(columnTok.start) };
    }
    if (objectType === 'connection' && a.kind === 'word' && ['set', 'reset', 'drop', 'rotate'].includes(a.value)) return this.parseAlterConnection(ifExists, name);
    if (a.kind === 'word' && ['set', 'reset', 'add', 'drop', 'rotate', 'alter', 'apply'].includes(a.value)) {
      throw this.unsupported(a, `${what} ... ${a.raw.toUpperCase()}`);
    }
    return this.fail(`one of ${ALTER_ACTIONS[objectType].join(' or ')}`);
  }

  /**
   * `SET (option [=] value) | DROP (option) | RESET (option) | ROTATE KEYS, ... [WITH (VALIDATE [= value], ...)]`
   * after `ALTER CONNECTION [IF EXISTS] name` (Materialize's parse_alter_connection: one option per action;
   * the planner checks which combinations go together).
   */
  private parseAlterConnection(ifExists: boolean, name: ObjectName): Statement {
    const actions: AlterConnectionAction[] = [];
    do {
      const t = this.peek();
      if (this.eatKeyword('rotate')) {
        this.expectKeyword('keys');
        actions.push({ kind: 'rotate_keys', position: this.byte(t.start) });
      } else if (this.eatKeyword('set')) {
        this.expectOp('(');
        const at = this.peek();
        const option = this.parseOptionRest(ANY_CONNECTION_OPTIONS, this.parseOptionName(ANY_CONNECTION_OPTIONS), at);
        this.expectOp(')');
        actions.push({ kind: 'set', option });
      } else if (this.peekKeyword('drop') || this.peekKeyword('reset')) {
        const word = this.next().value === 'drop' ? 'DROP' : 'RESET';
        this.expectOp('(');
        const at = this.peek();
        const option = this.parseOptionName(ANY_CONNECTION_OPTIONS);
        this.expectOp(')');
        actions.push({ kind: 'drop', name: option, word, position: this.byte(at.start) });
      } else {
        return this.fail('one of ROTATE or SET or RESET or DROP');
      }
    } while (this.eatOp(','));
    // Materialize reads VALIDATE any number of times here; the planner refuses a repeat.
    const withOptions: SqlOption[] = [];
    if (this.eatKeyword('with')) {
      this.expectOp('(');
      do {
        const at = this.peek();
        this.expectKeyword('validate');
        const hasEquals = this.eatOp('=');
        const bare = !hasEquals && (this.peekOp(',') || this.peekOp(')'));
        withOptions.push({ name: 'VALIDATE', value: bare ? { kind: 'none' } : this.parseOptionValue(), position: this.byte(at.start) });
      } while (this.eatOp(','));
      this.expectOp(')');
    }
    return { kind: 'alter_connection', ifExists, name, actions, withOptions };
  }

  /**
   * `ADD SUBSOURCE|TABLE ...`, `REFRESH REFERENCES`, and `SET (...)` / `RESET (...)` naming more
   * than RETAIN HISTORY, after `ALTER SOURCE name`; undefined for anything else (left to the callers after).
   */
  private parseAlterSourceAction(): AlterSourceAction | undefined {
    const next = this.peek(1);
    if (this.peekKeyword('add') && next.kind === 'word' && (next.value === 'subsource' || next.value === 'table')) {
      this.i += 2;
      const references: { reference: ObjectName; alias?: ObjectName }[] = [];
      do {
        const reference = this.parseObjectName();
        const alias = this.eatKeyword('as') ? this.parseObjectName() : undefined;
        references.push(alias ? { reference, alias } : { reference });
      } while (this.eatOp(','));
      const options = this.eatKeyword('with') ? this.parseOptions(OPTION_LISTS.alterSourceAddSubsource) : [];
      return { kind: 'add_subsources', references, options };
    }
    if (this.eatKeywords('refresh', 'references')) return { kind: 'refresh_references' };
    const set = this.peekKeyword('set') && this.peekOp('(', 1);
    const reset = this.peekKeyword('reset') && this.peekOp('(', 1);
    if (!set && !reset) return undefined;
    // SET / RESET of RETAIN HISTORY alone stays `alter_retain_history`.
    const start = this.i;
    this.next();
    if (set) {
      const options = this.parseOptions(OPTION_LISTS.alterSourceSet);
      if (options.length === 1 && options[0]!.name === 'RETAIN HISTORY') return (this.i = start), undefined;
      return { kind: 'set_options', options };
    }
    this.expectOp('(');
    const names: string[] = [];
    do names.push(this.parseOptionName(OPTION_LISTS.alterSourceSet));
    while (this.eatOp(','));
    this.expectOp(')');
    if (names.length === 1 && names[0] === 'RETAIN HISTORY') return (this.i = start), undefined;
    return { kind: 'reset_options', names };
  }

  /** `SET ([RETAIN HISTORY [=] FOR '<interval>'])` or `RESET (RETAIN HISTORY)` of a table, source, index or materialized view. */
  private parseAlterRetainHistory(objectType: ObjectType, ifExists: boolean, name: ObjectName, what: string): Statement {
    // What Materialize's parser lists for an unknown option name (its source options' first words).
    const spec = { what, names: ['RETAIN HISTORY'], ...(objectType === 'source' ? { unsupported: ['TIMESTAMP INTERVAL'], expected: ['TIMESTAMP', 'RETAIN'] } : {}) };
    if (this.eatKeyword('set')) {
      const [option] = this.parseOptions(spec);
      return { kind: 'alter_retain_history', objectType, ifExists, name, ...(option ? { option } : {}) };
    }
    this.expectKeyword('reset');
    this.expectOp('(');
    this.parseOptionName(spec);
    this.expectOp(')');
    return { kind: 'alter_retain_history', objectType, ifExists, name };
  }

  // ---- roles and privileges ----------------------------------------------------------------

  /** `name, name, ...` (role names). */
  private parseIdentSeq(): string[] {
    const out: string[] = [];
    do out.push(this.parseIdent());
    while (this.eatOp(','));
    return out;
  }

  /** A grantee or member: `[GROUP] name`. */
  private parseRoleSpecs(): string[] {
    const out: string[] = [];
    do {
      this.eatKeyword('group');
      out.push(this.parseIdent());
    } while (this.eatOp(','));
    return out;
  }

  /** `( RULES [=] ( rule ( ACTION [=] v, DIRECTION [=] v, ADDRESS [=] v ), ... ) )` (Materialize's parse_network_policy_option). */
  private parseNetworkPolicyOptions(): { rules?: { name: string; options: SqlOption[] }[] } {
    this.expectOp('(');
    let rules: { name: string; options: SqlOption[] }[] | undefined;
    do {
      const at = this.peek();
      this.expectKeyword('rules');
      if (rules) throw new SqlSyntaxError('RULES specified more than once', this.byte(at.start));
      this.eatOp('=');
      this.expectOp('(');
      rules = [];
      if (!this.eatOp(')')) {
        do {
          const name = this.parseIdent();
          rules.push({ name, options: this.parseOptions(NETWORK_POLICY_RULE_OPTIONS) });
        } while (this.eatOp(','));
        this.expectOp(')');
      }
    } while (this.eatOp(','));
    this.expectOp(')');
    return rules ? { rules } : {};
  }

  /** `SET name {TO | =} {value, ... | DEFAULT}` or `RESET {name | ALL}` after `ALTER SYSTEM`. */
  private parseAlterSystem(): Statement {
    if (this.eatKeyword('reset')) return { kind: 'alter_system_reset', name: this.eatKeyword('all') ? 'all' : this.parseVariableName() };
    if (!this.eatKeyword('set')) return this.fail('one of SET or RESET');
    const name = this.parseVariableName();
    if (!this.eatKeyword('to') && !this.eatOp('=')) return this.fail("TO or '='");
    return { kind: 'alter_system_set', name, value: this.parseSetValues() };
  }

  private parseCreateRole(): Statement {
    const name = this.parseIdent();
    this.eatKeyword('with');
    return { kind: 'create_role', name, attributes: this.parseRoleAttributes() };
  }

  /** Materialize's role attributes, in any number and order (the planner judges them). */
  private parseRoleAttributes(): RoleAttribute[] {
    const out: RoleAttribute[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'word') return out;
      if (t.value === 'password') {
        this.next();
        out.push({ kind: 'PASSWORD', password: this.eatKeyword('null') ? null : this.parseStringLiteral() });
        continue;
      }
      const kind = ROLE_ATTRIBUTES.find((a) => a.toLowerCase() === t.value);
      if (!kind) return out;
      this.next();
      out.push({ kind });
    }
  }

  private parseAlterRole(): Statement {
    const name = this.parseIdent();
    let action: AlterRoleAction;
    if (this.eatKeyword('set')) {
      const variable = this.parseIdent();
      if (!this.eatKeyword('to') && !this.eatOp('=')) return this.fail("TO or '='");
      action = { kind: 'set', variable, value: this.rawToStatementEnd('a value') };
    } else if (this.eatKeyword('reset')) {
      action = { kind: 'reset', variable: this.parseIdent() };
    } else {
      this.eatKeyword('with');
      action = { kind: 'attributes', attributes: this.parseRoleAttributes() };
    }
    return { kind: 'alter_role', name, action };
  }

  /** `ALL [PRIVILEGES]` or `priv, priv, ...`; undefined when the next word is no privilege (then it is GRANT role). */
  private parsePrivilegeSpec(): PrivilegeSpec | undefined {
    if (this.eatKeyword('all')) {
      this.eatKeyword('privileges');
      return { kind: 'all' };
    }
    const privileges: Privilege[] = [];
    for (;;) {
      const t = this.peek();
      const p = t.kind === 'word' ? PRIVILEGES.find((x) => x.toLowerCase() === t.value) : undefined;
      if (!p) break;
      this.next();
      privileges.push(p);
      if (!this.eatOp(',')) break;
    }
    return privileges.length ? { kind: 'list', privileges } : undefined;
  }

  private parseGrantOrRevoke(grant: boolean): Statement {
    const privileges = this.parsePrivilegeSpec();
    if (!privileges) {
      const roles = this.parseIdentSeq();
      this.expectKeyword(grant ? 'to' : 'from');
      return { kind: grant ? 'grant_role' : 'revoke_role', roles, members: this.parseRoleSpecs() };
    }
    this.expectKeyword('on');
    const target = this.parseGrantTarget(grant ? 'GRANT' : 'REVOKE');
    this.expectKeyword(grant ? 'to' : 'from');
    return { kind: grant ? 'grant_privileges' : 'revoke_privileges', privileges, target, roles: this.parseRoleSpecs() };
  }

  /** An object type after ON, singular or plural, checked as Materialize's parser checks it. */
  private parseGrantObjectType(what: 'GRANT' | 'REVOKE', plural: boolean): GrantObjectType | undefined {
    const t = this.peek();
    const entry = GRANT_OBJECT_TYPES.find((e) => (plural ? e.plural : e.words).length > 0 && this.peekKeywords(...(plural ? e.plural : e.words)));
    if (!entry) return undefined;
    this.i += (plural ? entry.plural : entry.words).length;
    if (['VIEW', 'MATERIALIZED VIEW', 'SOURCE'].includes(entry.type)) {
      throw new SqlSyntaxError(`For object type ${entry.type}, you must specify 'TABLE' or omit the object type`, this.byte(t.start));
    }
    if (entry.type === 'NETWORK POLICY') throw this.unsupported(t, `${what} ON NETWORK POLICY`);
    if (entry.type === entry.type.toUpperCase()) throw new SqlSyntaxError(`Unsupported ${what} on ${entry.type}`, this.byte(t.start));
    return entry.type as GrantObjectType;
  }

  private parsePluralGrantObjectType(what: 'GRANT' | 'REVOKE'): GrantObjectType {
    const type = this.parseGrantObjectType(what, true);
    if (!type) return this.fail('one of TABLES or TYPES or SECRETS or CONNECTIONS or SCHEMAS or DATABASES or CLUSTERS');
    return type;
  }

  private parseGrantTarget(what: 'GRANT' | 'REVOKE'): GrantTarget {
    if (this.eatKeyword('system')) return { kind: 'system' };
    if (this.eatKeyword('all')) {
      const objectType = this.parsePluralGrantObjectType(what);
      const inTok = this.peek();
      const within = this.parseGrantIn(objectType !== 'schema');
      if (within && !GRANT_TYPES_IN_SCHEMA.has(objectType) && objectType !== 'schema') {
        throw new SqlSyntaxError(`IN invalid for ${objectType.toUpperCase()}S`, this.byte(inTok.start));
      }
      return { kind: 'all', objectType, ...(within ? { in: within } : {}) };
    }
    // The object type may be left out: then it is a table.
    const objectType = this.parseGrantObjectType(what, false) ?? 'table';
    const names: ObjectName[] = [];
    do names.push(this.parseNameFor(objectType === 'table' ? 'table' : objectType));
    while (this.eatOp(','));
    return { kind: 'objects', objectType, names };
  }

  /** `IN DATABASE d, ... | IN SCHEMA s, ...`; `schemaAllowed` is false after ALL SCHEMAS (Materialize's parser wants DATABASE there). */
  private parseGrantIn(schemaAllowed = true): GrantIn | undefined {
    if (!this.peekKeyword('in')) return undefined;
    this.next();
    if (this.eatKeyword('database')) {
      const names: ObjectName[] = [];
      do names.push(this.parseNameFor('database'));
      while (this.eatOp(','));
      return { kind: 'database', names };
    }
    if (schemaAllowed && this.eatKeyword('schema')) {
      const names: ObjectName[] = [];
      do names.push(this.parseNameFor('schema'));
      while (this.eatOp(','));
      return { kind: 'schema', names };
    }
    return this.fail(schemaAllowed ? 'one of SCHEMA or DATABASE' : 'DATABASE');
  }

  private parseAlterDefaultPrivileges(): Statement {
    this.expectKeyword('for');
    let targetRoles: string[] | undefined;
    if (this.eatKeyword('role') || this.eatKeyword('user')) targetRoles = this.parseIdentSeq();
    else if (this.eatKeyword('all')) this.expectKeyword('roles');
    else return this.fail('one of ROLE or USER or ALL');
    const within = this.parseGrantIn();
    const grant = this.eatKeyword('grant');
    if (!grant && !this.eatKeyword('revoke')) return this.fail('one of GRANT or REVOKE');
    const privileges = this.parsePrivilegeSpec();
    if (!privileges) return this.fail('ALL or INSERT or SELECT or UPDATE or DELETE or USAGE or CREATE');
    this.expectKeyword('on');
    const objectType = this.parsePluralGrantObjectType(grant ? 'GRANT' : 'REVOKE');
    this.expectKeyword(grant ? 'to' : 'from');
    const grantees = this.parseRoleSpecs();
    return { kind: 'alter_default_privileges', ...(targetRoles ? { targetRoles } : {}), ...(within ? { in: within } : {}), grant, privileges, objectType, grantees };
  }

  // ---- COMMENT ON ----------------------------------------------------------------------------

  /** `COMMENT ON <object type> <name> IS '<text>' | NULL`; `COLUMN relation.column`. */
  private parseComment(): Statement {
    this.expectKeyword('on');
    const t = this.peek();
    if (t.kind === 'word' && t.value === 'function') throw this.unsupported(t, 'COMMENT ON FUNCTION');
    if (this.eatKeyword('role') || this.eatKeywords('network', 'policy')) {
      // A role's or network policy's name is one identifier (Materialize's parse_identifier).
      const objectType = t.value === 'role' ? 'role' : 'network policy';
      const nameTok = this.peek();
      const name = this.parseIdent();
      this.expectKeyword('is');
      const comment = this.eatKeyword('null') ? null : this.parseStringLiteral();
      return { kind: 'comment', objectType, name: [name], comment, namePosition: this.byte(nameTok.start) };
    }
    const objectType: ObjectType | 'column' = this.eatKeyword('column') ? 'column' : this.parseObjectType();
    const nameTok = this.peek();
    let name: ObjectName;
    let column: string | undefined;
    if (objectType === 'column') {
      // The relation's name (up to three parts, `database.schema.table`) and the column's: the
      // Terraform provider and dbt always send all four.
      const parts = this.parseColumnReference();
      name = parts.relation;
      column = parts.column;
    } else {
      name = this.parseNameFor(objectType);
    }
    this.expectKeyword('is');
    const comment = this.eatKeyword('null') ? null : this.parseStringLiteral();
    return { kind: 'comment', objectType, name, ...(column !== undefined ? { column } : {}), comment, namePosition: this.byte(nameTok.start) };
  }

  // ---- SHOW --------------------------------------------------------------------------------

  private parseShow(): Statement {
    if (this.eatKeyword('create')) {
      const t = this.peek();
      if (t.kind === 'word' && UNSUPPORTED_OBJECT_TYPES.includes(t.value)) throw this.unsupported(t, `SHOW CREATE ${t.raw.toUpperCase()}`);
      if (this.peekKeywords('network', 'policy')) throw this.unsupported(t, 'SHOW CREATE NETWORK POLICY');
      const objectType = this.parseObjectType();
      return { kind: 'show_create', objectType, name: this.parseNameFor(objectType) };
    }
    if (this.eatKeyword('columns')) {
      // `SHOW COLUMNS FROM | IN <relation> [LIKE | WHERE]`, Materialize's grammar.
      if (!this.eatKeyword('from') && !this.eatKeyword('in')) return this.fail('one of FROM or IN');
      const fromPosition = this.byte(this.peek().start);
      const from = this.parseObjectName();
      const filter = this.parseShowFilter();
      return { kind: 'show', what: 'columns', from, fromPosition, ...(filter ? { filter } : {}) };
    }
    const t = this.peek();
    let what: string | undefined;
    for (const words of SHOW_PLURALS) {
      if (this.eatKeywords(...words)) {
        what = words.join(' ');
        break;
      }
    }
    if (what === undefined) {
      if (t.kind === 'word' && SHOW_UNSUPPORTED.includes(t.value)) throw this.unsupported(t, t.value === 'network' ? 'SHOW NETWORK POLICIES' : `SHOW ${t.raw.toUpperCase()}`);
      if (t.kind === 'word' || t.kind === 'quoted') {
        if (this.eatKeywords('transaction', 'isolation', 'level')) return { kind: 'show_variable', name: 'transaction_isolation' };
        if (this.eatKeywords('time', 'zone')) return { kind: 'show_variable', name: 'timezone' };
        return { kind: 'show_variable', name: this.parseVariableName() };
      }
      return this.fail(`CREATE or what to show (one of ${oneOf([...SHOW_PLURALS.map((w) => w.join(' ').toUpperCase()), 'COLUMNS'].sort())})`);
    }
    if (what === 'roles') {
      const filter = this.parseShowFilter();
      return { kind: 'show', what, ...(filter ? { filter } : {}) };
    }
    // Materialize's parse_show: `FROM <schema>` first (of the kinds that live in a schema), then `ON
    // <object>` for tables, subsources and indexes; subsources and indexes may not have both, refused
    // at the ON name's last token.
    let on: ObjectName | undefined;
    let from: ObjectName | undefined;
    let inCluster: string | undefined;
    if (this.eatKeyword('from')) from = this.parseObjectName();
    if ((what === 'indexes' || what === 'subsources' || what === 'tables') && this.eatKeyword('on')) {
      on = this.parseObjectName();
      if (from && what !== 'tables') throw new SqlSyntaxError('Cannot specify both FROM and ON', this.byte(this.tokens[this.i - 1]!.start));
    }
    if (what !== 'subsources' && this.eatKeywords('in', 'cluster')) inCluster = this.parseIdent();
    const filter = this.parseShowFilter();
    return {
      kind: 'show',
      what,
      ...(on ? { on } : {}),
      ...(from ? { from } : {}),
      ...(inCluster !== undefined ? { inCluster } : {}),
      ...(filter ? { filter } : {}),
    };
  }

  /** `LIKE '<pattern>'` or `WHERE <expr>` after a SHOW, if present. */
  private parseShowFilter(): ShowFilter | undefined {
    if (this.eatKeyword('like')) return { kind: 'like', pattern: this.parseStringLiteral() };
    if (this.eatKeyword('where')) return { kind: 'where', expr: this.parseExpr() };
    return undefined;
  }

  // ---- transactions and EXPLAIN ------------------------------------------------------------

  private parseTransactionModes(): string[] {
    const modes: string[] = [];
    for (;;) {
      if (this.eatKeywords('isolation', 'level')) {
        const levels = [['strict', 'serializable'], ['serializable'], ['repeatable', 'read'], ['read', 'committed'], ['read', 'uncommitted']];
        const level = levels.find((l) => this.eatKeywords(...l));
        if (!level) return this.fail(oneOf(levels.map((l) => l.join(' ').toUpperCase())));
        modes.push(`ISOLATION LEVEL ${level.join(' ').toUpperCase()}`);
      } else if (this.eatKeywords('read', 'only')) modes.push('READ ONLY');
      else if (this.eatKeywords('read', 'write')) modes.push('READ WRITE');
      else if (modes.length > 0) return this.fail('ISOLATION LEVEL, READ ONLY or READ WRITE');
      else return modes;
      if (!this.eatOp(',') && !this.peekKeyword('isolation') && !this.peekKeyword('read')) return modes;
    }
  }

  private parseExplain(explainTok: Token): Statement {
    if (!this.eatKeyword('effects')) {
      const t = this.peek();
      // Query plans are the data plane's optimizer's business.
      throw new NotSupportedError(`EXPLAIN${t.kind === 'word' ? ` ${t.raw.toUpperCase()}` : ''} ${OUTSIDE_CONTROL_PLANE}`, {
        position: this.byte(explainTok.start),
        hint: 'EXPLAIN EFFECTS FOR <DDL statement> shows what a statement would change.',
      });
    }
    this.expectKeyword('for');
    const t = this.peek();
    // Checked before recursing, so `EXPLAIN EFFECTS FOR EXPLAIN ...` chains cannot nest.
    if (!(t.kind === 'word' && ['create', 'drop', 'alter', 'comment', 'grant', 'revoke', 'reassign'].includes(t.value))) {
      return this.fail('a DDL statement (CREATE, DROP, ALTER, COMMENT, GRANT, REVOKE or REASSIGN) after EXPLAIN EFFECTS FOR');
    }
    const statement = this.parseStatement();
    if (!DDL_KINDS.has(statement.kind)) return this.failAt(t, 'a DDL statement after EXPLAIN EFFECTS FOR');
    return { kind: 'explain_effects', statement };
  }

  // ---- queries and session variables -------------------------------------------------------

  /** Whether the SELECT at the cursor reads `FROM (SHOW ...)`. */
  private selectsFromShow(): boolean {
    for (let k = this.i; k < this.tokens.length - 1; k++) {
      const t = this.tokens[k]!;
      if (t.kind === 'eof' || (t.kind === 'op' && t.value === ';')) return false;
      if (t.kind === 'op' && t.value === '(' && this.tokens[k + 1]!.kind === 'word' && this.tokens[k + 1]!.value === 'show' && this.tokens[k - 1]?.kind === 'word' && this.tokens[k - 1]!.value === 'from') return true;
    }
    return false;
  }

  /** A query to the end of the statement, as typed: PostgreSQL's parser reads it (shared/system/query.ts). */
  private parseQuery(): Statement {
    // Materialize's parser caps nesting for queries too (its RECURSION_LIMIT): brackets stand for it here.
    let depth = 0;
    for (let k = this.i; k < this.tokens.length; k++) {
      const t = this.tokens[k]!;
      if (t.kind === 'eof' || (t.kind === 'op' && t.value === ';')) break;
      if (t.kind !== 'op') continue;
      if (t.value === '(' || t.value === '[') depth++;
      else if (t.value === ')' || t.value === ']') depth--;
      if (depth >= MAX_NESTING_DEPTH) {
        throw new SqlSyntaxError(`statement exceeds nested expression limit of ${MAX_NESTING_DEPTH}`, this.byte(t.start), { code: SQLSTATE.statementTooComplex });
      }
    }
    const raw = this.rawToStatementEnd('a query');
    return { kind: 'query', text: raw.text, position: raw.position };
  }

  /** A session variable's name: a word or a quoted identifier, lowercased as PostgreSQL does (`search_path`, `DateStyle`). */
  private parseVariableName(): string {
    const t = this.peek();
    if (t.kind !== 'word' && t.kind !== 'quoted') return this.fail('a variable name');
    this.next();
    let name = t.kind === 'word' ? t.value : t.value.toLowerCase();
    // `SET mz.x = ...`: a dotted name, as PostgreSQL's custom settings.
    while (this.eatOp('.')) name += `.${this.parseIdent()}`;
    return name;
  }

  /** `SET [SESSION | LOCAL] name { TO | = } { value [, ...] | DEFAULT }`, `SET TIME ZONE value`, `SET NAMES value`. */
  private parseSetVariable(): Statement {
    const local = this.eatKeyword('local');
    if (!local) this.eatKeyword('session');
    if (this.peekKeywords('transaction') || this.peekKeywords('characteristics')) throw this.outside(this.peek(), 'SET TRANSACTION');
    let name: string;
    if (this.eatKeywords('time', 'zone')) name = 'timezone';
    else if (this.eatKeyword('names')) name = 'client_encoding';
    else if (this.eatKeyword('schema')) {
      // Materialize's `SET SCHEMA [TO | =] x`: search_path, and one value only.
      name = 'search_path';
      if (!this.eatKeyword('to')) this.eatOp('=');
      if (this.eatKeyword('default')) return { kind: 'set_variable', name, local, value: 'default' };
      const v = this.peek();
      if (v.kind !== 'string' && v.kind !== 'word' && v.kind !== 'quoted') return this.fail('a schema name');
      this.next();
      return { kind: 'set_variable', name, local, value: [v.value] };
    } else {
      name = this.parseVariableName();
      if (!this.eatKeyword('to') && !this.eatOp('=')) return this.fail("TO or '='");
    }
    return { kind: 'set_variable', name, local, value: this.parseSetValues() };
  }

  /** `DEFAULT` or `value, ...` after `SET name {TO | =}` (SET, ALTER ROLE ... SET, ALTER SYSTEM SET). */
  parseSetValues(): string[] | 'default' {
    if (this.eatKeyword('default')) return 'default';
    const value: string[] = [];
    do {
      const v = this.peek();
      if (v.kind === 'string') value.push(v.value);
      else if (v.kind === 'word' || v.kind === 'quoted') value.push(v.value);
      else if (v.kind === 'number') value.push(v.raw);
      else if (v.kind === 'op' && (v.value === '-' || v.value === '+') && this.peek(1).kind === 'number') {
        this.next();
        value.push(`${v.value === '-' ? '-' : ''}${this.peek().raw}`);
      } else return this.fail('a value');
      this.next();
    } while (this.eatOp(','));
    return value;
  }

  // ---- SELECT ------------------------------------------------------------------------------

  /**
   * We serve a subset of SELECT (one relation, plain columns). A SELECT that fails to parse where
   * SQL goes on beyond that subset (a function call, a join, an alias, GROUP BY, a literal in the
   * select list, ...) is valid SQL we do not serve: 0A000 at that spot, not a syntax error.
   */
  private parseSelectOrUnsupported(): Statement {
    this.failedAt = undefined;
    this.selectListExpression = false;
    const start = this.i;
    try {
      const select = this.parseSelect();
      // Checked here rather than by the caller, so `GROUP BY`, `UNION` or an alias after the
      // relation are recognised as SQL beyond our subset too.
      if (!this.peekOp(';') && this.peek().kind !== 'eof') this.fail('end of statement');
      return select;
    } catch (e) {
      const at = this.failedAt;
      const beyond = at !== undefined && (this.selectListExpression || selectGoesBeyond(this.tokens[at]!, this.tokens[at - 1]));
      if (!(e instanceof SqlSyntaxError) || e.code !== SQLSTATE.syntaxError || at === undefined || !beyond) {
        throw e;
      }
      if (!this.statementTokens(start).some(namesSystemCatalog)) {
        throw new NotSupportedError(`A SELECT that reads no system catalog relation ${OUTSIDE_CONTROL_PLANE}`, { position: this.byte(this.tokens[at]!.start) });
      }
      throw new NotSupportedError('This SELECT is not supported by this control plane', {
        position: this.byte(this.tokens[at]!.start),
        hint: 'Only SELECT <columns or *> FROM <one relation> [WHERE ...] [ORDER BY <columns>] [LIMIT n] [OFFSET n] is served here.',
      });
    }
  }

  private parseSelect(): Statement {
    let columns: string[] | undefined;
    if (!this.eatOp('*')) {
      columns = [];
      do {
        // `SELECT a, FROM t`: a bare FROM here ends the list rather than naming a column.
        if (this.peekKeyword('from')) return this.fail('a column name');
        columns.push(this.parseIdent());
        // `SELECT a < b FROM ...`, `SELECT a IS NULL FROM ...`: an expression in the select list.
        const next = this.peek();
        if ((next.kind === 'op' && ![',', ';', ')', ']'].includes(next.value)) || (next.kind === 'word' && SELECT_LIST_OPERATOR_WORDS.has(next.value))) {
          this.selectListExpression = true;
          return this.fail("FROM or ','");
        }
      } while (this.eatOp(','));
    }
    this.expectKeyword('from');
    const fromPosition = this.byte(this.peek().start);
    const fromShow = this.parseShowSubquery();
    const from = fromShow ? [] : this.parseObjectName();
    const where = this.eatKeyword('where') ? this.parseExpr() : undefined;
    const orderBy: OrderBy[] = [];
    if (this.eatKeywords('order', 'by')) {
      do {
        const column = this.parseIdent();
        const desc = this.eatKeyword('desc') ? true : (this.eatKeyword('asc'), false);
        orderBy.push({ column, desc });
      } while (this.eatOp(','));
    }
    let limit: number | undefined;
    let offset: number | undefined;
    for (let k = 0; k < 2; k++) {
      if (limit === undefined && this.eatKeyword('limit')) limit = this.parseUnsigned();
      else if (offset === undefined && this.eatKeyword('offset')) offset = this.parseUnsigned();
    }
    return {
      kind: 'select',
      ...(columns ? { columns } : {}),
      from,
      fromPosition,
      ...(fromShow ? { fromShow } : {}),
      ...(where ? { where } : {}),
      orderBy,
      ...(limit !== undefined ? { limit } : {}),
      ...(offset !== undefined ? { offset } : {}),
    };
  }

  /**
   * `FROM (SHOW ...)`: Materialize takes a SHOW where a query goes. We serve the SHOW forms that
   * list (`SHOW SOURCES`, `SHOW COLUMNS FROM t`, ...); `SHOW CREATE` there is answered 0A000.
   */
  private parseShowSubquery(): ShowStatement | undefined {
    const next = this.tokens[this.i + 1];
    if (!this.peekOp('(') || next?.kind !== 'word' || next.value !== 'show') return undefined;
    this.next();
    const showTok = this.next();
    if (this.peekKeyword('create')) {
      throw new NotSupportedError('SHOW CREATE in a subquery is not supported by this control plane', {
        position: this.byte(showTok.start),
        hint: 'Run SHOW CREATE on its own: its create_sql column is the statement.',
      });
    }
    const variableTok = this.peek();
    const show = this.nested(() => this.parseShow());
    this.expectOp(')');
    if (show.kind === 'show_variable') {
      // Materialize reads a variable there too; we serve the listing forms only.
      throw new NotSupportedError(`SHOW ${show.name} in a subquery is not supported by this control plane`, {
        position: this.byte(variableTok.start),
        hint: `Run SHOW ${show.name} on its own, or read current_setting('${show.name}').`,
      });
    }
    return show as ShowStatement;
  }

  parseExpr(): Expr {
    return this.parseOr();
  }

  private parseOr(): Expr {
    let left = this.parseAnd();
    while (this.eatKeyword('or')) left = { kind: 'or', left, right: this.parseAnd() };
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    while (this.eatKeyword('and')) left = { kind: 'and', left, right: this.parseNot() };
    return left;
  }

  private parseNot(): Expr {
    if (this.eatKeyword('not')) return { kind: 'not', expr: this.nested(() => this.parseNot()) };
    return this.parseComparison();
  }

  private parseComparison(): Expr {
    const left = this.parsePrimary();
    const t = this.peek();
    if (t.kind === 'op' && ['=', '<>', '!=', '<', '<=', '>', '>='].includes(t.value)) {
      this.next();
      const op = (t.value === '!=' ? '<>' : t.value) as '=' | '<>' | '<' | '<=' | '>' | '>=';
      return { kind: 'binary', op, left, right: this.parsePrimary() };
    }
    if (this.eatKeyword('is')) {
      const negated = this.eatKeyword('not');
      this.expectKeyword('null');
      return { kind: 'is_null', expr: left, negated };
    }
    const negated = this.eatKeyword('not');
    if (this.eatKeyword('in')) {
      this.expectOp('(');
      const list: Expr[] = [];
      do list.push(this.parsePrimary());
      while (this.eatOp(','));
      this.expectOp(')');
      return { kind: 'in', expr: left, list, negated };
    }
    if (this.peekKeyword('like') || this.peekKeyword('ilike')) {
      const caseInsensitive = this.next().value === 'ilike';
      return { kind: 'like', expr: left, pattern: this.parsePrimary(), negated, caseInsensitive };
    }
    if (negated) return this.fail('IN, LIKE or ILIKE after NOT');
    return left;
  }

  private parsePrimary(): Expr {
    const t = this.peek();
    if (this.eatOp('(')) {
      const e = this.nested(() => this.parseExpr());
      this.expectOp(')');
      return e;
    }
    if (t.kind === 'string') {
      this.next();
      return { kind: 'literal', value: t.value };
    }
    if (t.kind === 'number') {
      this.next();
      return { kind: 'literal', value: this.finiteNumber(t, false) };
    }
    if (t.kind === 'op' && t.value === '-' && this.peek(1).kind === 'number') {
      this.next();
      return { kind: 'literal', value: this.finiteNumber(this.next(), true) };
    }
    if (t.kind === 'word' && (t.value === 'true' || t.value === 'false')) {
      this.next();
      return { kind: 'literal', value: t.value === 'true' };
    }
    if (t.kind === 'word' && t.value === 'null') {
      this.next();
      return { kind: 'literal', value: null };
    }
    if (t.kind === 'word' || t.kind === 'quoted') {
      const position = this.byte(t.start);
      return { kind: 'column', name: this.parseIdent(), position };
    }
    return this.fail('an expression');
  }

  private finiteNumber(t: Token, negative: boolean): number {
    const v = Number(t.value);
    if (!Number.isFinite(v)) throw new SqlSyntaxError(`number out of range: ${t.raw}`, this.byte(t.start));
    // -0 would print as 0: keep one zero.
    return negative && v !== 0 ? -v : v;
  }

  // ---- options -----------------------------------------------------------------------------

  /**
   * `( NAME [=] value, ... )`. With a spec, names are matched against its list (longest match,
   * so `SECRET ACCESS KEY = SECRET k` reads), unknown names list the valid ones, and a name given
   * twice is refused. Without a spec (kept for callers that read any name), any words make a name.
   */
  parseOptionList(spec?: OptionListSpec): SqlOption[] {
    if (spec) return this.parseOptions(spec);
    this.expectOp('(');
    const options: SqlOption[] = [];
    if (this.peekOp(')')) return this.fail('an option name');
    do {
      const startTok = this.peek();
      const words: string[] = [];
      while (this.peek().kind === 'word' && !(words.length > 0 && this.startsOptionValue())) {
        words.push(this.next().value.toUpperCase());
      }
      if (words.length === 0) this.fail('an option name');
      const hasEquals = this.eatOp('=');
      const bare = !hasEquals && (this.peekOp(',') || this.peekOp(')'));
      const value = bare ? ({ kind: 'none' } as const) : this.parseOptionValue();
      options.push({ name: words.join(' '), value, position: this.byte(startTok.start) });
    } while (this.eatOp(','));
    this.expectOp(')');
    return options;
  }

  private parseOptions(spec: OptionListSpec, onReplicas?: (at: Token) => void): SqlOption[] {
    this.expectOp('(');
    const options = this.parseOptionItems(spec, onReplicas);
    this.expectOp(')');
    return options;
  }

  /** `NAME [=] value, ...` without the parentheses (`CREATE CLUSTER c SIZE = 'x'` reads so too). */
  private parseOptionItems(spec: OptionListSpec, onReplicas?: (at: Token) => void): SqlOption[] {
    const options: SqlOption[] = [];
    const seen = new Set<string>();
    do {
      const startTok = this.peek();
      const name = this.parseOptionName(spec);
      if (onReplicas && name === 'REPLICAS') {
        onReplicas(startTok);
        continue;
      }
      // `DOC ON TYPE t`, `KEY DOC ON COLUMN t.c`: the object is part of the option's name (one option per object).
      const docOn = spec === OPTION_LISTS.csrConfig && name.endsWith('DOC ON') ? this.parseDocOnTarget() : undefined;
      const key = docOn ? `${name} ${docOnText(docOn)}` : name;
      // A materialized view takes several REFRESH options (`REFRESH AT ..., REFRESH EVERY ...`), as in Materialize.
      if (seen.has(key) && !MULTIPLE_OPTIONS.has(name)) throw new SqlSyntaxError(`${key} specified more than once`, this.byte(startTok.start));
      seen.add(key);
      const option = this.parseOptionRest(spec, name, startTok);
      options.push(docOn ? { ...option, docOn } : option);
    } while (this.eatOp(','));
    return options;
  }

  /** `TYPE name` or `COLUMN relation.column` after `[KEY | VALUE] DOC ON` (Materialize's parse_avro_doc_on_option_name). */
  private parseDocOnTarget(): DocOnTarget {
    if (this.eatKeyword('type')) return { kind: 'type', name: this.parseObjectName() };
    if (!this.eatKeyword('column')) return this.fail('one of TYPE or COLUMN');
    return { kind: 'column', ...this.parseColumnReference() };
  }

  /** `[[database.]schema.]relation.column` (Materialize's parse_column_name, with its message for a bare name). */
  private parseColumnReference(): { relation: ObjectName; column: string } {
    const start = this.peek();
    const name = [this.parseIdent()];
    while (this.eatOp('.')) name.push(this.parseIdent());
    if (name.length > 4) this.failAt(this.prev(), 'a column name with at most four parts (database.schema.relation.column)');
    if (name.length < 2) throw new SqlSyntaxError('need to specify an object and a column', this.byte(start.start));
    return { relation: name.slice(0, -1), column: name[name.length - 1]! };
  }

  /** The rest of one option after its name (`[=] value`, or none), as a SqlOption starting at `startTok`. */
  private parseOptionRest(spec: OptionListSpec, name: string, startTok: Token): SqlOption {
    const hasEquals = this.eatOp('=');
    const prefix = VALUE_PREFIX[name];
    let value: OptionValue;
    if (name === 'REFRESH' && spec === OPTION_LISTS.materializedViewWith) {
      value = { kind: 'refresh', refresh: this.parseRefreshOption() };
    } else if (prefix !== undefined) {
      this.expectKeyword(prefix.toLowerCase());
      value = this.parseOptionValue();
    } else if (name === 'SCHEDULE' && this.peekKeywords('on', 'refresh')) {
      value = this.parseRefreshSchedule();
    } else {
      const bare = !hasEquals && (this.peekOp(',') || this.peekOp(')') || this.peekOp(';') || this.peek().kind === 'eof');
      value = bare ? { kind: 'none' } : this.parseOptionValue();
    }
    // `BROKER 'b:9092' USING SSH TUNNEL t`: one broker through a tunnel.
    if (name === 'BROKER' && value.kind === 'string' && this.peekKeyword('using')) value = this.parseBrokerTunnel(value.value);
    if (this.peekKeyword('using')) throw this.unsupported(this.peek(), `${name} ... USING`);
    // `AWS PRIVATELINK svc (PORT 9093)`: the PrivateLink connection with its options.
    if (name === 'AWS PRIVATELINK' && this.peekOp('(') && (value.kind === 'ident' || value.kind === 'object')) {
      value = { kind: 'privatelink', connection: value.kind === 'ident' ? [value.value] : value.name, options: this.parsePrivatelinkOptions() };
    }
    return { name, value, position: this.byte(startTok.start) };
  }

  /** `USING SSH TUNNEL name` / `USING AWS PRIVATELINK name [(AVAILABILITY ZONE [=] 'z', PORT [=] n)]` after a broker's address (Materialize's parse_kafka_broker). */
  private parseBrokerTunnel(address: string): OptionValue {
    this.expectKeyword('using');
    for (const c of TUNNEL_CONNECTORS) {
      if (!this.eatKeywords(...c.words)) continue;
      const connection = this.parseObjectName();
      return { kind: 'broker', address, via: { kind: c.name, connection, options: c.connection.tunnel.options && this.peekOp('(') ? this.parsePrivatelinkOptions() : [] } };
    }
    return this.fail(`one of ${[...new Set(TUNNEL_CONNECTORS.map((c) => c.words[0]!.toUpperCase()))].sort().join(' or ')}`);
  }

  /** `(AVAILABILITY ZONE [=] 'z', PORT [=] n)` after an AWS PRIVATELINK connection's name. */
  private parsePrivatelinkOptions(): SqlOption[] {
    this.expectOp('(');
    const options: SqlOption[] = [];
    const seen = new Set<string>();
    do {
      const at = this.peek();
      const name = this.eatKeywords('availability', 'zone') ? 'AVAILABILITY ZONE' : this.eatKeyword('port') ? 'PORT' : this.fail('one of AVAILABILITY or PORT');
      if (seen.has(name)) throw new SqlSyntaxError(`${name} specified more than once`, this.byte(at.start));
      seen.add(name);
      const hasEquals = this.eatOp('=');
      const bare = !hasEquals && (this.peekOp(',') || this.peekOp(')'));
      options.push({ name, value: bare ? { kind: 'none' } : this.parseOptionValue(), position: this.byte(at.start) });
    } while (this.eatOp(','));
    this.expectOp(')');
    return options;
  }

  /** `(WAIT [=] FOR '<duration>')` or `(WAIT [=] UNTIL READY [=] (TIMEOUT [=] '<d>', ON TIMEOUT [=] '<action>'))`, after `WITH`. */
  private parseClusterWait(): ClusterAlterWait {
    this.expectOp('(');
    const position = this.byte(this.peek().start);
    this.expectKeyword('wait');
    this.eatOp('=');
    let wait: ClusterAlterWait;
    if (this.eatKeyword('for')) {
      wait = { kind: 'for', duration: this.parseStringLiteral(), position };
    } else if (this.eatKeywords('until', 'ready')) {
      this.eatOp('=');
      this.expectOp('(');
      const values: { timeout?: string; onTimeout?: string } = {};
      do {
        const at = this.peek();
        const key = this.eatKeywords('on', 'timeout') ? 'onTimeout' : this.eatKeyword('timeout') ? 'timeout' : this.fail('one of TIMEOUT or ON');
        if (values[key] !== undefined) throw new SqlSyntaxError(`${key === 'timeout' ? 'TIMEOUT' : 'ON TIMEOUT'} specified more than once`, this.byte(at.start));
        this.eatOp('=');
        const v = this.peek();
        values[key] = v.kind === 'word' ? (this.next(), v.raw) : this.parseStringLiteral();
      } while (this.eatOp(','));
      this.expectOp(')');
      wait = { kind: 'until_ready', ...values, position };
    } else {
      return this.fail('one of FOR or UNTIL');
    }
    this.expectOp(')');
    return wait;
  }

  /** `ON COMMIT | AT CREATION | AT <expr> | EVERY '<interval>' [ALIGNED TO <expr>]`, after `REFRESH [=]` (Materialize's grammar). */
  private parseRefreshOption(): RefreshOptionValue {
    if (this.eatKeyword('on')) {
      this.expectKeyword('commit');
      return { kind: 'on_commit' };
    }
    if (this.eatKeyword('at')) {
      if (this.eatKeyword('creation')) return { kind: 'at_creation' };
      return { kind: 'at', time: this.rawOptionExpr('an expression') };
    }
    if (this.eatKeyword('every')) {
      const t = this.peek();
      if (t.kind !== 'string') return this.fail('literal string');
      this.next();
      if (this.eatKeywords('aligned', 'to')) return { kind: 'every', interval: t.value, alignedTo: this.rawOptionExpr('an expression') };
      return { kind: 'every', interval: t.value };
    }
    return this.fail('one of ON or AT or EVERY');
  }

  /** An expression inside an option list: every token up to `,` or `)` at depth 0, as typed. */
  private rawOptionExpr(what: string): RawExpr {
    const first = this.i;
    let depth = 0;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof' || (t.kind === 'op' && t.value === ';')) break;
      if (t.kind === 'op') {
        if (depth === 0 && (t.value === ',' || t.value === ')')) break;
        if (t.value === '(' || t.value === '[') depth++;
        else if (t.value === ')' || t.value === ']') depth--;
      }
      this.next();
    }
    if (this.i === first) return this.fail(what);
    return this.rawSpan(first, this.i);
  }

  /** `ON REFRESH [(HYDRATION TIME ESTIMATE [=] [INTERVAL] '<interval>')]`, after `SCHEDULE [=]`. */
  private parseRefreshSchedule(): OptionValue {
    this.expectKeywords('on', 'refresh');
    if (!this.eatOp('(')) return { kind: 'refresh_schedule' };
    this.expectKeywords('hydration', 'time', 'estimate');
    this.eatOp('=');
    this.eatKeyword('interval');
    const hydrationTimeEstimate = this.parseStringLiteral();
    this.expectOp(')');
    return { kind: 'refresh_schedule', hydrationTimeEstimate };
  }

  /** Reads one of the spec's option names (canonical form), or fails listing them. */
  private parseOptionName(spec: OptionListSpec): string {
    const entries = wordsOf(spec);
    const matches = (words: readonly string[], k: number) => {
      const t = this.peek(k);
      return t.kind === 'word' && t.value === words[k];
    };
    let best: (typeof entries)[number] | undefined;
    let longestPrefix = 0;
    for (const e of entries) {
      let k = 0;
      while (k < e.words.length && matches(e.words, k)) k++;
      if (k === e.words.length) {
        if (!best || e.words.length > best.words.length) best = e;
      } else if (k > longestPrefix) longestPrefix = k;
    }
    if (best && best.words.length >= longestPrefix) {
      const t = this.peek();
      this.i += best.words.length;
      if (best.unsupported) throw this.unsupported(t, `The ${best.canonical} option of ${spec.what}`);
      return best.canonical;
    }
    if (longestPrefix > 0) {
      // `REPLICATION 3`: point at what should have continued the name.
      const continuations = new Set<string>();
      for (const e of entries) {
        let k = 0;
        while (k < longestPrefix && k < e.words.length && matches(e.words, k)) k++;
        if (k === longestPrefix && e.words.length > k) continuations.add(e.words[k]!.toUpperCase());
      }
      if (continuations.size > 0 || !best) {
        return this.failAt(this.peek(longestPrefix), oneOf([...continuations].sort()));
      }
    }
    const expected = spec.expected ?? spec.names;
    return this.fail(expected.length === 1 ? expected[0]! : `one of ${expected.join(' or ')}`);
  }

  private startsOptionValue(): boolean {
    const t = this.peek();
    return t.kind === 'word' && (t.value === 'true' || t.value === 'false' || t.value === 'secret');
  }

  parseOptionValue(): OptionValue {
    const t = this.peek();
    if (t.kind === 'string') {
      this.next();
      return { kind: 'string', value: t.value };
    }
    if (t.kind === 'number') {
      this.next();
      return { kind: 'number', value: t.value };
    }
    if (t.kind === 'op' && t.value === '-' && this.peek(1).kind === 'number') {
      this.next();
      return { kind: 'number', value: `-${this.next().value}` };
    }
    if (t.kind === 'word' && (t.value === 'true' || t.value === 'false')) {
      this.next();
      return { kind: 'boolean', value: t.value === 'true' };
    }
    if (t.kind === 'word' && t.value === 'secret') {
      this.next();
      return { kind: 'secret', name: this.parseObjectName() };
    }
    if (this.peekOp('(') || this.peekOp('[')) {
      const close = this.next().value === '(' ? ')' : ']';
      return this.nested(() => {
        const items: OptionValue[] = [];
        if (!this.peekOp(close)) {
          do {
            const item = this.parseOptionValue();
            // `BROKERS ('b1:9092' USING AWS PRIVATELINK svc (PORT 9001), ...)`: per-broker tunnels.
            if (item.kind === 'string' && this.peekKeyword('using')) items.push(this.parseBrokerTunnel(item.value));
            else items.push(item);
            if (this.peekKeyword('using')) throw this.unsupported(this.peek(), 'A tunnel per list item (... USING AWS PRIVATELINK / SSH TUNNEL)');
          } while (this.eatOp(','));
        }
        this.expectOp(close);
        return { kind: 'list', items };
      });
    }
    // A name: Materialize tries one and, when it is no name (`""`), expects an option value.
    if ((t.kind === 'word' || t.kind === 'quoted') && t.value !== '') {
      const name = this.parseObjectName();
      return name.length === 1 ? { kind: 'ident', value: name[0]! } : { kind: 'object', name };
    }
    return this.fail('option value');
  }

  // ---- raw spans ---------------------------------------------------------------------------

  private rawSpan(fromToken: number, toToken: number): RawExpr {
    const first = this.tokens[fromToken]!;
    const last = this.tokens[toToken - 1]!;
    return { text: this.text.slice(first.start, last.end), position: this.byte(first.start) };
  }

  /** Every token up to the end of the statement (`;` or end of input). */
  private rawToStatementEnd(what: string): RawExpr {
    const first = this.i;
    while (this.peek().kind !== 'eof' && !this.peekOp(';')) this.next();
    if (this.i === first) return this.fail(what);
    return this.rawSpan(first, this.i);
  }

  /** `( ... )` with balanced brackets inside: the text between the parentheses. */
  private rawParenthesized(what: string): RawExpr {
    const items = this.rawItems(what, false);
    return items[0]!;
  }

  /** `( a, b(c, d), ... )`: the comma-separated items at depth 0, as typed. */
  private rawList(what: string): RawExpr[] {
    return this.rawItems(what, true);
  }

  private rawItems(what: string, splitOnComma: boolean): RawExpr[] {
    this.expectOp('(');
    const items: RawExpr[] = [];
    let first = this.i;
    let depth = 0;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof' || (t.kind === 'op' && t.value === ';')) return this.fail('right parenthesis');
      if (t.kind === 'op') {
        if (t.value === '(' || t.value === '[') depth++;
        else if (t.value === ']' && depth > 0) depth--;
        else if (t.value === ')') {
          if (depth === 0) {
            if (this.i === first) return this.fail(what);
            items.push(this.rawSpan(first, this.i));
            this.next();
            return items;
          }
          depth--;
        } else if (t.value === ',' && depth === 0 && splitOnComma) {
          if (this.i === first) return this.fail(what);
          items.push(this.rawSpan(first, this.i));
          this.next();
          first = this.i;
          continue;
        }
      }
      this.next();
    }
  }

  /** Index of the token after the bracket that closes the one at `open` (the end of input if none). */
  private matchingClose(open: number): number {
    let depth = 0;
    for (let k = open; k < this.tokens.length; k++) {
      const t = this.tokens[k]!;
      if (t.kind === 'eof') return k;
      if (t.kind !== 'op') continue;
      if (t.value === '(' || t.value === '[') depth++;
      else if ((t.value === ')' || t.value === ']') && --depth === 0) return Math.min(k + 1, this.tokens.length - 1);
    }
    return this.tokens.length - 1;
  }

  // ---- names and literals ------------------------------------------------------------------

  parseIdent(): string {
    const t = this.peek();
    if (t.kind === 'word' || t.kind === 'quoted') {
      if (t.value === '') throw new SqlSyntaxError('zero-length delimited identifier', this.byte(t.start));
      this.next();
      return t.value;
    }
    return this.fail('identifier');
  }

  private parseIdentList(): string[] {
    this.expectOp('(');
    const out: string[] = [];
    do out.push(this.parseIdent());
    while (this.eatOp(','));
    this.expectOp(')');
    return out;
  }

  parseObjectName(): ObjectName {
    const parts = [this.parseIdent()];
    while (this.eatOp('.')) parts.push(this.parseIdent());
    if (parts.length > 3) this.failAt(this.prev(), 'a name with at most three parts (database.schema.name)');
    return parts;
  }

  parseStringLiteral(): string {
    const t = this.peek();
    if (t.kind !== 'string') return this.fail('literal string');
    this.next();
    return t.value;
  }

  private parseUnsigned(): number {
    const t = this.peek();
    if (t.kind !== 'number' || !/^[0-9]+$/.test(t.value) || !Number.isSafeInteger(Number(t.value))) return this.fail('a non-negative integer');
    this.next();
    return Number(t.value);
  }

  private eatIfNotExists(): boolean {
    return this.eatKeywords('if', 'not', 'exists');
  }

  // ---- token helpers -----------------------------------------------------------------------

  private nested<T>(f: () => T): T {
    if (this.depth >= MAX_NESTING_DEPTH) {
      throw new SqlSyntaxError(`statement exceeds nested expression limit of ${MAX_NESTING_DEPTH}`, this.byte(this.peek().start), {
        code: SQLSTATE.statementTooComplex,
      });
    }
    this.depth++;
    const r = f();
    this.depth--;
    return r;
  }

  private statementTokens(start: number): Token[] {
    const out: Token[] = [];
    for (let j = start; j < this.tokens.length; j++) {
      const t = this.tokens[j]!;
      if (t.kind === 'eof' || (t.kind === 'op' && t.value === ';')) break;
      out.push(t);
    }
    return out;
  }

  private outside(t: Token, what: string): NotSupportedError {
    return new NotSupportedError(`${what} ${OUTSIDE_CONTROL_PLANE}`, { position: this.byte(t.start) });
  }

  private unsupported(t: Token, what: string): NotSupportedError {
    return new NotSupportedError(`${what} is not supported by this control plane`, {
      position: this.byte(t.start),
      hint: 'Only DDL and SELECT over the system catalog are served here.',
    });
  }

  peek(ahead = 0): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)]!;
  }
  next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  prev(): Token {
    return this.tokens[Math.max(0, this.i - 1)]!;
  }
  peekKeyword(kw: string): boolean {
    const t = this.peek();
    return t.kind === 'word' && t.value === kw;
  }
  peekKeywords(...kws: string[]): boolean {
    for (let k = 0; k < kws.length; k++) {
      const t = this.peek(k);
      if (t.kind !== 'word' || t.value !== kws[k]) return false;
    }
    return true;
  }
  eatKeyword(kw: string): boolean {
    if (!this.peekKeyword(kw)) return false;
    this.i++;
    return true;
  }
  /** Consumes the whole keyword sequence or nothing. */
  eatKeywords(...kws: string[]): boolean {
    if (!this.peekKeywords(...kws)) return false;
    this.i += kws.length;
    return true;
  }
  expectKeyword(kw: string): void {
    if (!this.eatKeyword(kw)) this.fail(kw.toUpperCase());
  }
  /** Expects each keyword in turn, failing at the first one missing. */
  expectKeywords(...kws: string[]): void {
    for (const kw of kws) this.expectKeyword(kw);
  }
  peekOp(op: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'op' && t.value === op;
  }
  eatOp(op: string): boolean {
    if (!this.peekOp(op)) return false;
    this.i++;
    return true;
  }
  expectOp(op: string): void {
    if (!this.eatOp(op)) this.fail(describeOp(op));
  }
  /** UTF-16 index → byte offset, computed once per request (per-statement re-measuring was quadratic). */
  private byteTable: Uint32Array | null | undefined;
  byte(index: number): number {
    if (this.byteTable === undefined) this.byteTable = byteOffsets(this.text);
    return this.base + (this.byteTable === null ? index : this.byteTable[index]!);
  }
  fail(expected: string): never {
    return this.failAt(this.peek(), expected);
  }
  failAt(t: Token, expected: string): never {
    const index = this.tokens.indexOf(t);
    this.failedAt = index >= 0 ? index : undefined;
    throw parserExpected(expected, describeToken(t, this.secretsInStatement), this.byte(t.start));
  }

  /** `CREATE SECRET`, `ALTER SECRET`, `CREATE | ALTER CONNECTION` (and EXPLAIN EFFECTS of them) carry secret values or credentials. */
  private holdsSecrets(): boolean {
    const words: string[] = [];
    for (let k = this.i; k < this.tokens.length && words.length < 8; k++) {
      const t = this.tokens[k]!;
      if (t.kind !== 'word') break;
      words.push(t.value);
    }
    return words.includes('secret') || words.includes('connection');
  }
}

/** The options of one network policy rule (Materialize's NetworkPolicyRuleOptionName). */
const NETWORK_POLICY_RULE_OPTIONS: OptionListSpec = { what: 'a network policy rule', names: ['ACTION', 'ADDRESS', 'DIRECTION'] };

/** Option names a list may give more than once. */
const MULTIPLE_OPTIONS: ReadonlySet<string> = new Set(['REFRESH', 'ASSERT NOT NULL']);

/** The kinds Materialize's ALTER ... SET/RESET (RETAIN HISTORY) takes. */
const RETAIN_HISTORY_TYPES: ReadonlySet<string> = new Set(['table', 'source', 'index', 'materialized view']);

/** Parses a request's SQL text into statements with their byte spans. */
export function parse(text: string, options: { maxStatements?: number } = {}): ParsedStatement[] {
  return new Parser(text).parseStatements(options.maxStatements);
}

/**
 * Reads a scalar expression kept as typed (`RawExpr`, a webhook CHECK's); positions in the tree
 * and in errors are byte offsets in the request.
 */
export function parseScalar(raw: RawExpr): ScalarExpr {
  const p = new Parser(raw.text, raw.position);
  const e = readScalar(p);
  if (p.peek().kind !== 'eof') p.fail('end of expression');
  return e;
}
