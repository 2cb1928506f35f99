/** Password hashing with argon2id (PHC strings), and a constant-cost check for unknown users. */
import { hash, verify } from '@node-rs/argon2';
import { Counter } from 'prom-client';

const OPTIONS = { algorithm: 2 /* Algorithm.Argon2id (a const enum) */, memoryCost: 19_456, timeCost: 2, parallelism: 1 };
// A hash of a random string, verified against when the user does not exist so both paths cost the same.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Y2xjZEpKMG1sb0pqVHJ5bWJJc0J0ZnVhV2Z5Rk1RVGk';

/** Shortest password anyone may set, through the API or the CLI (docs/decisions.md). */
export const MIN_PASSWORD_LENGTH = 8;
/** Longest: argon2 hashes whatever it is given; a megabyte of password is a denial of service, not a secret. */
export const MAX_PASSWORD_LENGTH = 256;

/** Why `password` may not be set (length out of bounds); `undefined` when it may. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must have at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}

export async function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/**
 * `auth_password_verifications_total` (on `/metrics` once registered by app.ts): argon2 verifications run,
 * real or against the dummy hash. Every login attempt runs exactly one, whether or not the user exists or
 * has a password, so the work (and the time) of an answer tells nothing about the account (issue 33).
 */
export const passwordVerifications = new Counter({
  name: 'auth_password_verifications_total',
  help: 'argon2 password verifications run (one per login attempt, dummy ones included)',
  registers: [],
});

/** True when `password` matches `passwordHash`; a null hash still spends the same work and answers false. */
export async function verifyPassword(passwordHash: string | null | undefined, password: string): Promise<boolean> {
  passwordVerifications.inc();
  try {
    const ok = await verify(passwordHash ?? DUMMY_HASH, password);
    return passwordHash ? ok : false;
  } catch {
    return false;
  }
}
