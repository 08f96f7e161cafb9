/** Stand-ins for the Postgres wire server's tests over a fake SQL API (test/pgwire/). */
import { AuthError } from '../../shared/errors';
import { scramVerifier, tenantSalt } from '../../shared/wire/scram';
import type { PgPasswords } from '../../shared/pgwire/server';

/** The one app password {@link fakePasswords} accepts, for tenant `t1`. */
export const TEST_APP_PASSWORD = 'ddlp_00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff0011223344556677';

/** App passwords as the catalog would check them: {@link TEST_APP_PASSWORD} of tenant `t1`, by cleartext or SCRAM. */
export const fakePasswords: PgPasswords = {
  async verifyPassword(password, tenant) {
    if (password !== TEST_APP_PASSWORD || (tenant !== undefined && tenant !== 't1')) throw new AuthError('invalid app password');
    return { tenant: 't1', tokenId: 'tok' };
  },
  async scramVerifiers(tenant) {
    return tenant === 't1' ? [{ tokenId: 'tok', ...scramVerifier(TEST_APP_PASSWORD, tenantSalt('t1')) }] : [];
  },
};
