import { describe, expect, it } from 'vitest';
import { refreshAfterFor, statusOf, toSnapshot, type ErpSessionSecret } from '../../../src/modules/erp-session/erp-session.state.js';

const issued = new Date('2025-01-01T10:00:00Z');
const expires = new Date('2025-01-01T11:00:00Z');
const secret: ErpSessionSecret = {
  email: 'a@example.com',
  apiKey: 'key',
  graphqlJwt: 'jwt.value.here',
  graphqlJwtExpiresAt: expires.toISOString(),
  refreshAfter: refreshAfterFor(issued, expires).toISOString(),
  profile: { userId: 1, employeeId: 2, name: 'A', email: 'a@example.com' },
  selectedEntity: { id: 7, name: 'E', logo: null },
  checkedAt: issued.toISOString(),
  syncedAt: issued.toISOString(),
};
const at = (iso: string) => new Date(iso);

describe('ERP session status', () => {
  it('is due for refresh in the last 20% of the JWT lifetime', () => {
    expect(secret.refreshAfter).toBe('2025-01-01T10:48:00.000Z');
  });

  it.each([
    ['2025-01-01T10:10:00Z', 7, 'ready'],
    ['2025-01-01T10:48:00Z', 7, 'expiring_soon'],
    ['2025-01-01T11:00:00Z', 7, 'expired'],
    ['2025-01-01T10:10:00Z', 8, 'entity_mismatch'],
    ['2025-01-01T10:50:00Z', 8, 'entity_mismatch'],
    ['2025-01-01T11:30:00Z', 8, 'expired'],
  ] as const)('at %s for CRM ERP entity %s is %s', (now, erpEntity, status) => {
    expect(statusOf(secret, erpEntity, at(now))).toBe(status);
  });

  it('is missing without a record, and the snapshot never carries the JWT or the API key', () => {
    const scope = { userId: 1, entityId: 3, clientKind: 'web' };
    expect(toSnapshot(scope, undefined, 7, at('2025-01-01T10:10:00Z')).status).toBe('missing');
    const text = JSON.stringify(toSnapshot(scope, secret, 7, at('2025-01-01T10:10:00Z')));
    expect(text).not.toContain(secret.graphqlJwt);
    expect(text).not.toContain('"key"');
  });
});
