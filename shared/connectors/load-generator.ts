/**
 * Load generators: sources whose data the data plane makes up (`FROM LOAD GENERATOR AUCTION`), with
 * no connection and nothing to probe. Each generator's options, tables and columns are
 * Materialize's (src/sql/src/plan/statement/ddl.rs, src/storage-types/src/sources/load_generator.rs).
 */
import { byName, duration, optionError, type CheckedOption, type ConnectorDescriptor, type GeneratorSpec, type SourceCheckContext } from './types';

const TICKING = ['TICK INTERVAL', 'AS OF', 'UP TO'];

const GENERATORS = {
  auction: { words: ['auction'], options: TICKING, tables: ['accounts', 'auctions', 'bids', 'organizations', 'users'] },
  clock: { words: ['clock'], options: TICKING, columns: [{ name: 'time', type: 'timestamp with time zone' }] },
  counter: { words: ['counter'], options: [...TICKING, 'MAX CARDINALITY'], columns: [{ name: 'counter', type: 'bigint' }] },
  datums: { words: ['datums'], options: TICKING },
  'key value': {
    words: ['key', 'value'],
    options: ['TICK INTERVAL', 'KEYS', 'SNAPSHOT ROUNDS', 'TRANSACTIONAL SNAPSHOT', 'VALUE SIZE', 'SEED', 'PARTITIONS', 'BATCH SIZE'],
    keyed: true,
  },
  marketing: { words: ['marketing'], options: TICKING, tables: ['conversion_predictions', 'coupons', 'customers', 'leads'] },
  tpch: { words: ['tpch'], options: [...TICKING, 'SCALE FACTOR'], tables: ['customer', 'lineitem', 'nation', 'orders', 'part', 'partsupp', 'region', 'supplier'] },
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
