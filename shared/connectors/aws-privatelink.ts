/**
 * AWS PrivateLink: a VPC endpoint service that Kafka brokers and databases are reached through
 * (`AWS PRIVATELINK pl` as an option, `'b:9092' USING AWS PRIVATELINK pl (PORT 9093)` for a broker).
 * Nothing to probe from the control plane: only the data plane's side of the endpoint reaches it.
 */
import { AWS } from './aws';
import { byName, optionError, type ConnectorDescriptor } from './types';

export const AWS_PRIVATELINK = {
  name: 'aws-privatelink',
  words: ['aws', 'privatelink'],
  // Its errors are AWS's.
  namespace: AWS.name,
  connection: {
    options: { what: 'AWS PrivateLink connection', names: ['AVAILABILITY ZONES', 'PORT', 'SERVICE NAME'] },
    // The endpoint service must accept the connection first: checked by VALIDATE CONNECTION only.
    validateByDefault: false,
    // Materialize's connection planning: both are required, the service name first.
    check: (options, at) => {
      const given = byName(options);
      if (!given.has('SERVICE NAME')) throw optionError('SERVICE NAME option is required', at);
      if (!given.has('AVAILABILITY ZONES')) throw optionError('AVAILABILITY ZONES option is required', at);
    },
    tunnel: { options: true },
  },
  dataPlane: false,
} as const satisfies ConnectorDescriptor;
