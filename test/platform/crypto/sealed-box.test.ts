import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { createSealedBox } from '../../../src/platform/crypto/sealed-box.js';

const key = randomBytes(32);
const box = createSealedBox(key, 'erp-session');

describe('sealed box', () => {
  it('round-trips any text for its scope', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (text, scope) => {
        expect(box.open(box.seal(text, scope), scope)).toBe(text);
      }),
    );
  });

  it('uses a fresh IV per record, so equal plaintexts give different sealed texts', () => {
    expect(box.seal('same', 's')).not.toBe(box.seal('same', 's'));
  });

  it('refuses a record opened under another scope', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (text, a, b) => {
        fc.pre(a !== b);
        expect(box.open(box.seal(text, a), b)).toBeUndefined();
      }),
    );
  });

  it('refuses any single altered byte of IV, ciphertext or MAC', () => {
    const sealed = box.seal('{"apiKey":"secret"}', 'scope');
    const parts = sealed.split('.');
    for (const index of [1, 2, 3]) {
      const bytes = Buffer.from(parts[index]!, 'base64url');
      for (let i = 0; i < bytes.length; i++) {
        const altered = Buffer.from(bytes);
        altered[i] = altered[i]! ^ 0x01;
        const copy = [...parts];
        copy[index] = altered.toString('base64url');
        expect(box.open(copy.join('.'), 'scope')).toBeUndefined();
      }
    }
  });

  it('refuses malformed text and records sealed with another key or purpose', () => {
    expect(box.open('garbage', 'scope')).toBeUndefined();
    expect(box.open('v2.a.b.c', 'scope')).toBeUndefined();
    const sealed = box.seal('x', 'scope');
    expect(createSealedBox(randomBytes(32), 'erp-session').open(sealed, 'scope')).toBeUndefined();
    expect(createSealedBox(key, 'other-purpose').open(sealed, 'scope')).toBeUndefined();
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => createSealedBox(randomBytes(16), 'x')).toThrow();
  });
});
