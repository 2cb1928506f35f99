/**
 * Authenticated encryption of small records at rest (SPEC "ERP session security"): AES-256-CBC with a
 * random IV per record, then HMAC-SHA256 over the version, the scope, the IV and the ciphertext
 * (encrypt-then-MAC). The scope (e.g. `user_id|entity_id|client_kind`) is not stored in the sealed text,
 * so a record copied to another scope, or altered in any byte, fails to open.
 *
 * One configured 32-byte key yields two independent keys through HKDF-SHA256 (salt `crm-backend`,
 * info `<purpose>:aes-256-cbc` and `<purpose>:hmac-sha256`), so the cipher and the MAC never share a key.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 16;

export interface SealedBox {
  /** Encrypts `plaintext` bound to `scope`; returns `v1.<iv>.<ciphertext>.<mac>` (base64url parts). */
  seal(plaintext: string, scope: string): string;
  /** Returns the plaintext, or `undefined` when the text is malformed, altered, or sealed for another scope. */
  open(sealed: string, scope: string): string | undefined;
}

/** Derives the AES and HMAC keys for `purpose` from the 32-byte `masterKey`. */
export function createSealedBox(masterKey: Buffer, purpose: string): SealedBox {
  if (masterKey.length !== 32) throw new Error('the encryption key must be 32 bytes');
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', masterKey, 'crm-backend', `${purpose}:${info}`, 32));
  const encKey = derive('aes-256-cbc');
  const macKey = derive('hmac-sha256');

  const mac = (scope: string, iv: Buffer, ciphertext: Buffer) => {
    const scopeBytes = Buffer.from(scope, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(scopeBytes.length);
    // Length-prefixing the scope keeps (scope, iv) boundaries unambiguous.
    return createHmac('sha256', macKey).update(VERSION).update(length).update(scopeBytes).update(iv).update(ciphertext).digest();
  };

  return {
    seal(plaintext, scope) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-cbc', encKey, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), ciphertext.toString('base64url'), mac(scope, iv, ciphertext).toString('base64url')].join('.');
    },
    open(sealed, scope) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) return undefined;
      const iv = Buffer.from(parts[1]!, 'base64url');
      const ciphertext = Buffer.from(parts[2]!, 'base64url');
      const tag = Buffer.from(parts[3]!, 'base64url');
      if (iv.length !== IV_BYTES || ciphertext.length === 0 || ciphertext.length % 16 !== 0) return undefined;
      const expected = mac(scope, iv, ciphertext);
      if (tag.length !== expected.length || !timingSafeEqual(tag, expected)) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-cbc', encKey, iv);
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
