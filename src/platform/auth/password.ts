/** Password hashing with argon2id (PHC strings), and a constant-cost check for unknown users. */
import { hash, verify } from '@node-rs/argon2';

const OPTIONS = { algorithm: 2 /* Algorithm.Argon2id (a const enum) */, memoryCost: 19_456, timeCost: 2, parallelism: 1 };
// A hash of a random string, verified against when the user does not exist so both paths cost the same.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Y2xjZEpKMG1sb0pqVHJ5bWJJc0J0ZnVhV2Z5Rk1RVGk';

export async function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** True when `password` matches `passwordHash`; a null hash still spends the same work and answers false. */
export async function verifyPassword(passwordHash: string | null | undefined, password: string): Promise<boolean> {
  try {
    const ok = await verify(passwordHash ?? DUMMY_HASH, password);
    return passwordHash ? ok : false;
  } catch {
    return false;
  }
}
