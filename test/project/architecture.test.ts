/**
 * The architecture guard: the catalog table's stores alone send DynamoDB commands (with the
 * secret store, the reference data plane and client construction). Each rule is also run on a
 * small made-up tree, so a rule that could never fail would show here. The layering of the
 * folders is dependency-cruiser's (test/project/layers.test.ts).
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DYNAMODB_COMMAND_USERS, dynamoDbViolations, dynamoHelperViolations, madeUpTree, sharedImports } from '../helpers/architecture';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

describe('architecture', () => {
  const imports = sharedImports(ROOT);

  it('reads the imports of shared/', () => {
    expect(imports.length).toBeGreaterThan(300);
    expect(imports.filter((i) => i.file === 'shared/catalog/outbox-store.ts' && i.from === '@aws-sdk/lib-dynamodb')).toHaveLength(1);
  });

  it('DynamoDB commands are imported only by the stores, the secret store, the reference data plane and the paging helper', () => {
    expect(dynamoDbViolations(imports)).toEqual([]);
    expect(dynamoHelperViolations(imports)).toEqual([]);
  });

  it('every file allowed to send DynamoDB commands exists and does', () => {
    const senders = new Set(imports.filter((i) => !i.typeOnly && (i.from === '@aws-sdk/lib-dynamodb' || i.from === '@aws-sdk/client-dynamodb')).map((i) => i.file));
    expect(Object.keys(DYNAMODB_COMMAND_USERS).filter((f) => !senders.has(f))).toEqual([]);
  });

  describe('on a made-up tree, the rules catch', () => {
    const { root, write } = madeUpTree('architecture-');
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    write('shared/executor/executor.ts', "import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\nimport type { X } from '../catalog/store';\n");
    write('shared/sweeper/full-pass.ts', "import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';\nimport { queryPartition } from '../dynamo';\n");
    write('shared/aws.ts', "import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';\n");
    write('shared/clients/dynamodb.ts', "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\n");
    const made = sharedImports(root);

    it('a command imported outside the allowed files, and a client builder that imports a command', () => {
      expect(dynamoDbViolations(made).sort()).toEqual(['shared/aws.ts imports DynamoDBClient, PutItemCommand from @aws-sdk/client-dynamodb', 'shared/executor/executor.ts imports GetCommand from @aws-sdk/lib-dynamodb']);
    });

    it('the paging helper used outside the allowed files', () => {
      expect(dynamoHelperViolations(made)).toEqual(['shared/sweeper/full-pass.ts imports shared/dynamo.ts']);
    });
  });
});
