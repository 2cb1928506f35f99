/**
 * Mentions in a note's body (issue 50): `@[employee:<id>]` tokens, which clients show as the employee's name.
 * Only the token form mentions; a bare `@name` is text.
 */
const TOKEN = /@\[employee:([1-9][0-9]*)\]/g;

/** The distinct employee ids `body` mentions, in order of first mention. */
export function mentionedIn(body: string): number[] {
  return [...new Set([...body.matchAll(TOKEN)].map((m) => Number(m[1])))];
}
