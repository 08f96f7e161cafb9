/**
 * AWS: credentials or an assumed role (Materialize's AWS connection), used by Kafka's IAM
 * authentication and S3. Its probe is shared/probes/s3.ts: the connection under `aws:`, a bucket
 * read for a source or sink under `s3:`.
 */
import { byName, optionError, type CheckedOption, type ConnectorDescriptor } from './types';

/** How an AWS connection authenticates: keys, or a role it assumes, not both (Materialize's connection planning, in its order). */
function check(options: readonly CheckedOption[], at: number): void {
  const given = byName(options);
  const has = (n: string) => given.has(n);
  const keys = has('ACCESS KEY ID') || has('SECRET ACCESS KEY') || has('SESSION TOKEN');
  if (keys && !(has('ACCESS KEY ID') && has('SECRET ACCESS KEY'))) throw optionError('must specify both ACCESS KEY ID and SECRET ACCESS KEY with optional SESSION TOKEN', at);
  if (!has('ASSUME ROLE ARN') && has('ASSUME ROLE SESSION NAME')) throw optionError('must specify ASSUME ROLE ARN with optional ASSUME ROLE SESSION NAME', at);
  if (!keys && !has('ASSUME ROLE ARN')) throw optionError('must specify either ASSUME ROLE ARN or ACCESS KEY ID and SECRET ACCESS KEY', at);
  if (keys && has('ASSUME ROLE ARN')) throw optionError('cannot specify both ACCESS KEY ID and ASSUME ROLE ARN', at);
}

export const AWS = {
  name: 'aws',
  words: ['aws'],
  connection: {
    options: {
      what: 'AWS connection',
      names: ['ACCESS KEY ID', 'ASSUME ROLE ARN', 'ASSUME ROLE SESSION NAME', 'ENDPOINT', 'REGION', 'SECRET ACCESS KEY', 'SESSION TOKEN'],
    },
    // The other side's setup (a role's trust policy) comes first: checked by VALIDATE CONNECTION or WITH (VALIDATE = true).
    validateByDefault: false,
    check,
  },
  dataPlane: true,
  probe: { reprobed: true, namespaces: ['s3'] },
} as const satisfies ConnectorDescriptor;
