/**
 * SSH tunnels: a bastion that databases and brokers are reached through. The data plane holds its
 * key pair (`ALTER CONNECTION ... ROTATE KEYS`). Its probe is shared/probes/ssh.ts (the bastion
 * answers on its port).
 */
import { requireHostAndUser } from './common';
import { byName, optionError, type ConnectorDescriptor } from './types';

export const SSH = {
  name: 'ssh',
  words: ['ssh', 'tunnel'],
  connection: {
    options: { what: 'SSH tunnel connection', names: ['HOST', 'PORT', 'USER'], aliases: { USERNAME: 'USER' } },
    // The bastion cannot answer before the connection's public keys are installed on it.
    validateByDefault: false,
    check: (options, at) => {
      const given = byName(options);
      requireHostAndUser(given, at);
      // A bastion's user is a name, not a secret (Materialize's connection planning).
      const user = given.get('USER')!;
      if (user.kind === 'secret') throw optionError('SSH connections do not support supplying USER value as SECRET', user.position);
    },
    rotatesKeys: true,
    tunnel: { options: false },
  },
  dataPlane: true,
  probe: { reprobed: true },
} as const satisfies ConnectorDescriptor;
