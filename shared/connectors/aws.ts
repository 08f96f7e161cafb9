/**
 * AWS: credentials or an assumed role (Materialize's AWS connection), used by Kafka's IAM
 * authentication and S3. Its probe is shared/probes/s3.ts: the connection under `aws:`, a bucket
 * read for a source or sink under `s3:`.
 */
import type { ConnectorDescriptor } from './types';

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
  },
  dataPlane: true,
  probe: { reprobed: true, namespaces: ['s3'] },
} as const satisfies ConnectorDescriptor;
