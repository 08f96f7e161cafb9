/**
 * Load generators: sources whose data the data plane makes up (`FROM LOAD GENERATOR AUCTION`), with
 * no connection and nothing to probe. Each generator's options, tables and columns are
 * Materialize's (src/sql/src/plan/statement/ddl.rs, src/storage-types/src/sources/load_generator.rs).
 */
import { byName, duration, optionError, type CheckedOption, type ConnectorDescriptor, type GeneratorSpec, type SourceCheckContext } from './types';

const TICKING = ['TICK INTERVAL', 'AS OF', 'UP TO'];

/** The generators; the multi-output ones' tables with their columns in Materialize's order (its `LoadGenerator::views`). */
const GENERATORS = {
  auction: {
    words: ['auction'],
    options: TICKING,
    tables: {
      organizations: [{ name: 'id', type: 'bigint' }, { name: 'name', type: 'text' }],
      users: [{ name: 'id', type: 'bigint' }, { name: 'org_id', type: 'bigint' }, { name: 'name', type: 'text' }],
      accounts: [{ name: 'id', type: 'bigint' }, { name: 'org_id', type: 'bigint' }, { name: 'balance', type: 'bigint' }],
      auctions: [{ name: 'id', type: 'bigint' }, { name: 'seller', type: 'bigint' }, { name: 'item', type: 'text' }, { name: 'end_time', type: 'timestamp with time zone' }],
      bids: [{ name: 'id', type: 'bigint' }, { name: 'buyer', type: 'bigint' }, { name: 'auction_id', type: 'bigint' }, { name: 'amount', type: 'integer' }, { name: 'bid_time', type: 'timestamp with time zone' }],
    },
  },
  clock: { words: ['clock'], options: TICKING, columns: [{ name: 'time', type: 'timestamp with time zone' }] },
  counter: { words: ['counter'], options: [...TICKING, 'MAX CARDINALITY'], columns: [{ name: 'counter', type: 'bigint' }] },
  datums: { words: ['datums'], options: TICKING },
  'key value': {
    words: ['key', 'value'],
    options: ['TICK INTERVAL', 'KEYS', 'SNAPSHOT ROUNDS', 'TRANSACTIONAL SNAPSHOT', 'VALUE SIZE', 'SEED', 'PARTITIONS', 'BATCH SIZE'],
    keyed: true,
  },
  marketing: {
    words: ['marketing'],
    options: TICKING,
    tables: {
      customers: [{ name: 'id', type: 'bigint' }, { name: 'email', type: 'text' }, { name: 'income', type: 'bigint' }],
      impressions: [{ name: 'id', type: 'bigint' }, { name: 'customer_id', type: 'bigint' }, { name: 'campaign_id', type: 'bigint' }, { name: 'impression_time', type: 'timestamp with time zone' }],
      clicks: [{ name: 'impression_id', type: 'bigint' }, { name: 'click_time', type: 'timestamp with time zone' }],
      leads: [{ name: 'id', type: 'bigint' }, { name: 'customer_id', type: 'bigint' }, { name: 'created_at', type: 'timestamp with time zone' }, { name: 'converted_at', type: 'timestamp with time zone', nullable: true }, { name: 'conversion_amount', type: 'bigint', nullable: true }],
      coupons: [{ name: 'id', type: 'bigint' }, { name: 'lead_id', type: 'bigint' }, { name: 'created_at', type: 'timestamp with time zone' }, { name: 'amount', type: 'bigint' }],
      conversion_predictions: [{ name: 'lead_id', type: 'bigint' }, { name: 'experiment_bucket', type: 'text' }, { name: 'predicted_at', type: 'timestamp with time zone' }, { name: 'score', type: 'double precision' }],
    },
  },
  tpch: {
    words: ['tpch'],
    options: [...TICKING, 'SCALE FACTOR'],
    tables: {
      supplier: [{ name: 's_suppkey', type: 'bigint' }, { name: 's_name', type: 'text' }, { name: 's_address', type: 'text' }, { name: 's_nationkey', type: 'bigint' }, { name: 's_phone', type: 'text' }, { name: 's_acctbal', type: 'numeric' }, { name: 's_comment', type: 'text' }],
      part: [{ name: 'p_partkey', type: 'bigint' }, { name: 'p_name', type: 'text' }, { name: 'p_mfgr', type: 'text' }, { name: 'p_brand', type: 'text' }, { name: 'p_type', type: 'text' }, { name: 'p_size', type: 'integer' }, { name: 'p_container', type: 'text' }, { name: 'p_retailprice', type: 'numeric' }, { name: 'p_comment', type: 'text' }],
      partsupp: [{ name: 'ps_partkey', type: 'bigint' }, { name: 'ps_suppkey', type: 'bigint' }, { name: 'ps_availqty', type: 'integer' }, { name: 'ps_supplycost', type: 'numeric' }, { name: 'ps_comment', type: 'text' }],
      customer: [{ name: 'c_custkey', type: 'bigint' }, { name: 'c_name', type: 'text' }, { name: 'c_address', type: 'text' }, { name: 'c_nationkey', type: 'bigint' }, { name: 'c_phone', type: 'text' }, { name: 'c_acctbal', type: 'numeric' }, { name: 'c_mktsegment', type: 'text' }, { name: 'c_comment', type: 'text' }],
      orders: [{ name: 'o_orderkey', type: 'bigint' }, { name: 'o_custkey', type: 'bigint' }, { name: 'o_orderstatus', type: 'text' }, { name: 'o_totalprice', type: 'numeric' }, { name: 'o_orderdate', type: 'date' }, { name: 'o_orderpriority', type: 'text' }, { name: 'o_clerk', type: 'text' }, { name: 'o_shippriority', type: 'integer' }, { name: 'o_comment', type: 'text' }],
      lineitem: [{ name: 'l_orderkey', type: 'bigint' }, { name: 'l_partkey', type: 'bigint' }, { name: 'l_suppkey', type: 'bigint' }, { name: 'l_linenumber', type: 'integer' }, { name: 'l_quantity', type: 'numeric' }, { name: 'l_extendedprice', type: 'numeric' }, { name: 'l_discount', type: 'numeric' }, { name: 'l_tax', type: 'numeric' }, { name: 'l_returnflag', type: 'text' }, { name: 'l_linestatus', type: 'text' }, { name: 'l_shipdate', type: 'date' }, { name: 'l_commitdate', type: 'date' }, { name: 'l_receiptdate', type: 'date' }, { name: 'l_shipinstruct', type: 'text' }, { name: 'l_shipmode', type: 'text' }, { name: 'l_comment', type: 'text' }],
      nation: [{ name: 'n_nationkey', type: 'bigint' }, { name: 'n_name', type: 'text' }, { name: 'n_regionkey', type: 'bigint' }, { name: 'n_comment', type: 'text' }],
      region: [{ name: 'r_regionkey', type: 'bigint' }, { name: 'r_name', type: 'text' }, { name: 'r_comment', type: 'text' }],
    },
  },
} as const satisfies Record<string, GeneratorSpec>;

/** Materialize's order of load generator option names (its `LoadGeneratorOptionName`). */
const OPTION_ORDER = [
  'SCALE FACTOR', 'TICK INTERVAL', 'AS OF', 'UP TO', 'MAX CARDINALITY', 'KEYS', 'SNAPSHOT ROUNDS', 'TRANSACTIONAL SNAPSHOT', 'VALUE SIZE', 'SEED',
  'PARTITIONS', 'BATCH SIZE',
];

const I64_MAX = 2 ** 63 - 1;

function check(options: readonly CheckedOption[], context: SourceCheckContext, at: number): void {
  const generator = context.generator ?? '';
  const spec: GeneratorSpec | undefined = GENERATORS[generator as keyof typeof GENERATORS];
  const permitted = new Set(spec?.options ?? []);
  const foreign = options.filter((o) => !permitted.has(o.name)).map((o) => o.name);
  if (foreign.length > 0) {
    const sorted = [...new Set(foreign)].sort((a, b) => OPTION_ORDER.indexOf(a) - OPTION_ORDER.indexOf(b));
    throw optionError(`${generator.toUpperCase()} load generators do not support ${sorted.join(', ')} values`, options.find((o) => o.name === sorted[0])!.position);
  }
  if (!spec?.keyed && context.includesMetadata) throw optionError('INCLUDE metadata only supported with `KEY VALUE` load generators', at);
  const given = byName(options);
  const maxCardinality = given.get('MAX CARDINALITY');
  if (maxCardinality && !(maxCardinality.kind === 'number' && /^\d+$/.test(maxCardinality.text ?? ''))) {
    const reason = maxCardinality.kind === 'number' ? 'invalid unsigned numeric value: invalid digit found in string' : 'cannot use value as number';
    throw optionError(`invalid MAX CARDINALITY: ${reason}`, maxCardinality.position);
  }
  // Only TPCH takes SCALE FACTOR (the permitted options above).
  const scale = given.get('SCALE FACTOR');
  if (scale?.kind === 'number') {
    const sf = Number(scale.text);
    // Materialize scales the largest table by 1 500 000 per unit and needs the count in an i64.
    if (!Number.isFinite(sf) || sf < 0 || Math.floor(sf * 1_500_000) > I64_MAX) throw optionError(`unsupported scale factor ${sf}`, scale.position);
  }
  const tick = given.get('TICK INTERVAL');
  if (tick) {
    const micros = duration(tick, 'invalid TICK INTERVAL: ');
    if (micros !== undefined && micros > I64_MAX) throw optionError('out of range integral type conversion', tick.position);
  }
  const asOf = given.get('AS OF');
  const upTo = given.get('UP TO');
  if (asOf && upTo && Number(upTo.text) < Number(asOf.text)) throw optionError('UP TO cannot be less than AS OF', upTo.position);
}

export const LOAD_GENERATOR = {
  name: 'load-generator',
  words: ['load', 'generator'],
  source: {
    form: 'generator',
    options: {
      what: 'load generator',
      names: [
        'AS OF',
        'BATCH SIZE',
        'KEYS',
        'MAX CARDINALITY',
        'PARTITIONS',
        'SCALE FACTOR',
        'SEED',
        'SNAPSHOT ROUNDS',
        'TICK INTERVAL',
        'TRANSACTIONAL SNAPSHOT',
        'UP TO',
        'VALUE SIZE',
      ],
    },
    generators: GENERATORS,
    check,
  },
  dataPlane: true,
} as const satisfies ConnectorDescriptor;
