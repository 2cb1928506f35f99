/**
 * One shape for every bulk call (issue 49): each item is the single action, run as if it were alone, a few at a
 * time; the answer lists each item's result in the order given, `ok` or the problem the single call would have
 * answered. One item's refusal never undoes the others.
 */
import { Type, type Static } from 'typebox';
import { AppError } from '../errors.js';

/** Most items one bulk call acts on. */
export const BULK_MAX_ITEMS = 500;
/** Items in flight at once: enough to keep a pool's connections busy, few enough not to starve other requests. */
const ITEMS_AT_ONCE = 8;

export const BulkItemResult = Type.Union([
  Type.Object({ id: Type.Integer(), ok: Type.Literal(true) }),
  Type.Object({
    id: Type.Integer(),
    ok: Type.Literal(false),
    status: Type.Integer({ description: 'The HTTP status the single action would have answered' }),
    code: Type.String({ description: "The single action's problem code (`not_found`, `status_transition_not_allowed`, ...)" }),
    detail: Type.String(),
  }),
]);
export type BulkItemResult = Static<typeof BulkItemResult>;

/** The answer of a bulk call: the action, how many items succeeded and failed, and each item's result. */
export function bulkResponse(itemDescription: string) {
  return Type.Object({
    action: Type.String(),
    succeeded: Type.Integer(),
    failed: Type.Integer(),
    results: Type.Array(BulkItemResult, { description: `One per ${itemDescription}, in the order given` }),
  });
}

/**
 * Runs `one` for each of `ids`, `ITEMS_AT_ONCE` at a time, and tallies the results. An `AppError` becomes the
 * item's problem; anything else is logged and reported as `internal_error` for that item alone.
 */
export async function runBulk(
  action: string,
  ids: readonly number[],
  one: (id: number) => Promise<unknown>,
  log: { error(obj: object, msg: string): void },
): Promise<{ action: string; succeeded: number; failed: number; results: BulkItemResult[] }> {
  const results: BulkItemResult[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < ids.length; i = next++) {
      const id = ids[i]!;
      try {
        await one(id);
        results[i] = { id, ok: true };
      } catch (err) {
        if (err instanceof AppError) results[i] = refusedItem(id, err);
        else {
          log.error({ err, id, action }, 'bulk action item failed');
          results[i] = { id, ok: false, status: 500, code: 'internal_error', detail: 'This item could not be changed; try it again' };
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ITEMS_AT_ONCE, ids.length) }, worker));
  return tallyBulk(action, results);
}

/** Item `id` refused with `problem`, as the single action would have answered it. */
export function refusedItem(id: number, problem: AppError): BulkItemResult {
  return { id, ok: false, status: problem.status, code: problem.code, detail: problem.message };
}

/** The answer of a bulk call whose items' `results` are known: how many succeeded and failed, and each result. */
export function tallyBulk(action: string, results: BulkItemResult[]): { action: string; succeeded: number; failed: number; results: BulkItemResult[] } {
  const succeeded = results.filter((r) => r.ok).length;
  return { action, succeeded, failed: results.length - succeeded, results };
}
