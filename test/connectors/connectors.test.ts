/**
 * The connector descriptors (shared/connectors): each type is spelled in its descriptor and its
 * probe and nowhere else in shared/, every descriptor file is listed, and what the rest of the
 * code reads of them is what it read before they existed (the types the health monitor probes
 * again, the option checks' messages, the contract's list).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CONNECTION_CONNECTORS,
  CONNECTORS,
  DATA_PLANE_CONNECTOR_TYPES,
  connectionOf,
  generatesKeys,
  isReprobed,
  keyedSource,
  namespaceOf,
  sourceOf,
  sqlWords,
  type CheckedOption,
} from '../../shared/connectors';
import { PlanError } from '../../shared/errors';
import { filesSpelling, literalsOf } from '../helpers/connector-names';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** A type's spellings: its name, and its SQL words joined by a space, a hyphen or an underscore. */
const spellings = (c: (typeof CONNECTORS)[number]) => [c.name, c.words.join(' '), c.words.join('-'), c.words.join('_')];

/**
 * The only files of shared/ that spell each type: its descriptor and its probe's files. Homonyms,
 * which are not the type: `postgres`, an IntervalStyle (planner/session.ts); `mysql`, MySQL's own
 * schema and flavour (probes/mysql-rules.ts, part of its probe); `aws`, the first SQL word of AWS
 * PRIVATELINK (its descriptor). Materialize's lexicon (shared/sql/mz-keywords.ts, its keywords.txt)
 * lists every word its lexer knows, `kafka` and `aws` among them, as words, not as types: it is
 * left out of the scan.
 */
const LEXICON = 'shared/sql/mz-keywords.ts';
const WHERE: Readonly<Record<string, readonly string[]>> = {
  kafka: ['shared/connectors/kafka.ts', 'shared/probes/kafka.ts'],
  postgres: ['shared/connectors/postgres.ts', 'shared/planner/session.ts', 'shared/probes/postgres.ts'],
  mysql: ['shared/connectors/mysql.ts', 'shared/probes/mysql-rules.ts', 'shared/probes/mysql.ts'],
  'sql-server': ['shared/connectors/sql-server.ts', 'shared/probes/sql-server.ts'],
  'load-generator': ['shared/connectors/load-generator.ts'],
  webhook: ['shared/connectors/webhook.ts'],
  aws: ['shared/connectors/aws-privatelink.ts', 'shared/connectors/aws.ts', 'shared/probes/s3.ts'],
  ssh: ['shared/connectors/ssh.ts', 'shared/probes/ssh.ts'],
  'aws-privatelink': ['shared/connectors/aws-privatelink.ts'],
  'confluent-schema-registry': ['shared/connectors/confluent-schema-registry.ts', 'shared/probes/schema-registry.ts'],
};

const checked = (name: string, text: string, kind = 'string', position = 7): CheckedOption => ({ name, position, kind, text, strings: kind === 'string' ? [text] : [] });

describe('connector descriptors', () => {
  it("a type's name is spelled in its descriptor and its probe, and in no other file of shared/", () => {
    const found = Object.fromEntries(CONNECTORS.map((c) => [c.name, [...new Set([...filesSpelling(ROOT, 'shared', spellings(c)).values()].flat())].filter((f) => f !== LEXICON).sort()]));
    expect(found).toEqual(WHERE);
    for (const files of Object.values(found)) expect(files.length).toBeLessThanOrEqual(3);
  });

  it('the spelling check finds a type in a string, in the words of one call and of one array, and not in a comment or an import', () => {
    const found = literalsOf("import { x } from './kafka';\n// 'mysql'\nconst a = 'postgres';\nthis.eatKeywords('sql', 'server');\nconst w = ['load', 'generator'];\nconst u = 'SSH TUNNEL';\n");
    expect(['postgres', 'sql server', 'load generator'].every((s) => found.has(s))).toBe(true);
    expect(['kafka', 'mysql', 'ssh tunnel', './kafka'].some((s) => found.has(s))).toBe(false);
  });

  it('every descriptor file is listed, under its own name, and names and words are unique', () => {
    const files = readdirSync(join(ROOT, 'shared/connectors'))
      .filter((f) => !['index.ts', 'types.ts', 'common.ts'].includes(f))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(files).toEqual(CONNECTORS.map((c) => c.name).sort());
    expect(new Set(CONNECTORS.map((c) => sqlWords(c))).size).toBe(CONNECTORS.length);
  });

  it("the controller contract's connector types are the OpenAPI document's, in its order", () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'docs/controller-contract.openapi.json'), 'utf8')) as { components: { schemas: { ConnectorSpec: { properties: { type: { enum: string[] } } } } } };
    expect([...DATA_PLANE_CONNECTOR_TYPES]).toEqual(doc.components.schemas.ConnectorSpec.properties.type.enum);
  });

  it('says what the code said before the descriptors: probed again, validated by default, keyed, namespaces, SQL words', () => {
    expect(CONNECTORS.filter((c) => isReprobed(c.name)).map((c) => c.name).sort()).toEqual(['aws', 'kafka', 'mysql', 'postgres', 'sql-server', 'ssh']);
    expect(CONNECTION_CONNECTORS.filter((c) => !c.connection.validateByDefault).map((c) => c.name).sort()).toEqual(['aws', 'aws-privatelink', 'ssh']);
    expect(CONNECTORS.filter((c) => keyedSource(c.name, { GENERATOR: 'KEY VALUE' })).map((c) => c.name)).toEqual(['kafka', 'load-generator']);
    expect(keyedSource('load-generator', { GENERATOR: 'AUCTION' })).toBe(false);
    expect([generatesKeys('load-generator', 'key value'), generatesKeys('load-generator', 'KEY VALUE'), generatesKeys('kafka', 'key value')]).toEqual([true, true, false]);
    expect(Object.fromEntries(CONNECTORS.map((c) => [c.name, namespaceOf(c)]))).toMatchObject({ 'aws-privatelink': 'aws', 'confluent-schema-registry': 'schema-registry', 'sql-server': 'sql-server' });
    expect(CONNECTORS.map((c) => sqlWords(c))).toContain('CONFLUENT SCHEMA REGISTRY');
    expect(CONNECTORS.filter((c) => { const s = sourceOf(c.name)?.source; return s !== undefined && 'upstreamTables' in s; }).map((c) => c.name)).toEqual(['postgres', 'mysql', 'sql-server']);
  });

  it("each type's option check runs alone, with Materialize's words and the option's position", () => {
    const fails = (type: string, options: CheckedOption[]) => {
      try {
        const check = connectionOf(type)?.connection;
        if (check && 'check' in check) check.check(options, 1);
      } catch (e) {
        expect(e).toBeInstanceOf(PlanError);
        return `${(e as PlanError).message} @${(e as PlanError).position}`;
      }
      return undefined;
    };
    expect(fails('kafka', [])).toBe('invalid CONNECTION: must set one of BROKER, BROKERS, or AWS PRIVATELINK @1');
    expect(fails('kafka', [checked('BROKER', 'a:9092,b:9092')])).toMatch(/^invalid CONNECTION: cannot specify multiple Kafka broker addresses in one string/);
    expect(fails('kafka', [checked('BROKER', 'a:9092'), checked('SECURITY PROTOCOL', 'carrier pigeon', 'string', 9)])).toBe('unknown security protocol: CARRIER PIGEON @9');
    expect(fails('mysql', [checked('HOST', 'h'), checked('USER', 'u'), checked('SSL MODE', 'verify', 'string', 5)])).toBe('invalid CONNECTION: unknown SSL MODE "VERIFY" @5');
    expect(fails('sql-server', [checked('HOST', 'h'), checked('USER', 'u'), checked('SSL MODE', 'verify')])).toBeUndefined();
    expect(fails('ssh', [checked('HOST', 'h')])).toBe('USER option is required @1');
    expect(fails('confluent-schema-registry', [checked('URL', 'http://r:8081/x', 'string', 3)])).toBe('invalid CONNECTION: URL must have an empty path @3');
    // Materialize's connection planning (src/sql/src/plan/statement/ddl/connection.rs), type by type.
    expect(fails('postgres', [])).toBe('HOST option is required @1');
    expect(fails('postgres', [checked('HOST', 'h'), checked('USER', 'u'), checked('SSL MODE', 'prefer', 'string', 4)])).toBe('invalid CONNECTION: unknown SSL MODE "prefer" @4');
    expect(fails('postgres', [checked('HOST', 'h'), checked('USER', 'u'), checked('SSL MODE', 'verify-full')])).toBeUndefined();
    expect(fails('postgres', [checked('HOST', 'h'), checked('USER', 'u'), checked('SSL KEY', 'k', 'secret', 6)])).toBe('invalid CONNECTION: both SSL KEY and SSL CERTIFICATE are required @6');
    const pl = (position: number, nested?: string[]): CheckedOption => ({ name: 'AWS PRIVATELINK', position, kind: nested ? 'privatelink' : 'ident', text: 'pl', strings: [], ...(nested ? { nested } : {}) });
    expect(fails('postgres', [checked('HOST', 'h'), checked('USER', 'u'), pl(8, ['PORT'])])).toBe('invalid CONNECTION: POSTGRES does not support PORT for AWS PRIVATELINK @8');
    expect(fails('mysql', [checked('HOST', 'h'), checked('USER', 'u'), pl(8), checked('SSH TUNNEL', 't', 'ident')])).toBe('cannot specify both SSH TUNNEL and AWS PRIVATELINK @8');
    expect(fails('mysql', [checked('HOST', 'h'), checked('USER', 'u'), checked('AWS CONNECTION', 'a', 'ident', 2)])).toBe('invalid CONNECTION: AWS IAM authentication requires SSL to be enabled @2');
    expect(fails('sql-server', [checked('HOST', 'h'), checked('USER', 'u'), checked('SSL MODE', 'verify_ca', 'string', 3)])).toBe("invalid CONNECTION: SSL MODE 'verify_ca' requires SSL CERTIFICATE AUTHORITY @3");
    expect(fails('ssh', [checked('HOST', 'h'), checked('USER', 'u', 'secret', 5)])).toBe('SSH connections do not support supplying USER value as SECRET @5');
    expect(fails('aws-privatelink', [checked('AVAILABILITY ZONES', 'use1-az1')])).toBe('SERVICE NAME option is required @1');
    expect(fails('aws-privatelink', [checked('SERVICE NAME', 's')])).toBe('AVAILABILITY ZONES option is required @1');
    expect(fails('aws', [checked('ACCESS KEY ID', 'k')])).toBe('must specify both ACCESS KEY ID and SECRET ACCESS KEY with optional SESSION TOKEN @1');
    expect(fails('aws', [checked('ASSUME ROLE SESSION NAME', 'n')])).toBe('must specify ASSUME ROLE ARN with optional ASSUME ROLE SESSION NAME @1');
    expect(fails('aws', [checked('REGION', 'r')])).toBe('must specify either ASSUME ROLE ARN or ACCESS KEY ID and SECRET ACCESS KEY @1');
    expect(fails('aws', [checked('ACCESS KEY ID', 'k'), checked('SECRET ACCESS KEY', 's', 'secret'), checked('ASSUME ROLE ARN', 'a')])).toBe('cannot specify both ACCESS KEY ID and ASSUME ROLE ARN @1');
    expect(fails('aws', [checked('ASSUME ROLE ARN', 'a')])).toBeUndefined();
    expect(fails('confluent-schema-registry', [checked('URL', 'registry:8081', 'string', 3)])).toBe('invalid CONNECTION: URL must specify domain name @3');
    expect(fails('confluent-schema-registry', [checked('URL', 'registry', 'string', 3)])).toBe('parsing schema registry url: relative URL without a base @3');
  });

  it("a source type's check runs alone: a load generator's options, a Kafka source's", () => {
    const lg = sourceOf('load-generator')!.source;
    const kafka = sourceOf('kafka')!.source;
    if (!('check' in lg) || !('check' in kafka)) throw new Error('no check');
    const context = { includesMetadata: false, forAllTables: false };
    expect(() => lg.check([checked('SCALE FACTOR', '1', 'number', 4)], { ...context, generator: 'counter' }, 1)).toThrow('COUNTER load generators do not support SCALE FACTOR values');
    expect(() => lg.check([], { ...context, generator: 'auction', includesMetadata: true }, 1)).toThrow('INCLUDE metadata only supported with `KEY VALUE` load generators');
    expect(() => lg.check([], { ...context, generator: 'key value', includesMetadata: true }, 1)).not.toThrow();
    expect(() => kafka.check([], { ...context, forAllTables: true }, 1)).toThrow('FOR ALL TABLES is only valid for multi-output sources');
    expect(() => kafka.check([checked('TOPIC METADATA REFRESH INTERVAL', '2h')], context, 1)).toThrow('TOPIC METADATA REFRESH INTERVAL cannot be greater than 1 hour');
  });
});
