/**
 * Bulk actions on conversations (issue 49): one call resolves, reopens, marks pending, snoozes, assigns or
 * unassigns up to 500 conversations. Each item is the single action, run as if it were alone (its own
 * transaction: visibility, reply rights, the state machine, the claim race, its realtime events and workflow
 * triggers), so one item's refusal leaves the others applied; the answer lists each item's result in the
 * order given. Items run a few at a time, in the database pool's measure.
 */
import { AppError, permissionDenied, validationFailed } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import type { ConversationLifecycle } from '../lifecycle/index.js';
import type { AssignmentService } from '../routing/index.js';
import type { BulkActionBody, BulkActionResponse } from './bulk-actions.schemas.js';

/** Assigning and unassigning need this code, as the single routes do (docs/decisions.md). */
const ASSIGN_PERMISSION = 'cartera.seller_assignment';
/** Items in flight at once: enough to keep a pool's connections busy, few enough not to starve other requests. */
const ITEMS_AT_ONCE = 8;

export interface BulkActions {
  /** 400 `validation_failed` when `until` or `employee_id` is missing for its action or given for another; 403 without the assignment code. */
  apply(p: Principal, body: BulkActionBody): Promise<BulkActionResponse>;
}

export function createBulkActions(deps: {
  lifecycle: Pick<ConversationLifecycle, 'change'>;
  assignment: Pick<AssignmentService, 'assign' | 'unassign'>;
  log: { error(obj: object, msg: string): void };
}): BulkActions {
  return {
    async apply(p, body) {
      const { action } = body;
      const misplaced = [
        ...(action === 'snooze' ? (body.until === undefined ? [{ field: '/body/until', message: 'is required to snooze' }] : []) : []),
        ...(action !== 'snooze' && body.until !== undefined ? [{ field: '/body/until', message: 'applies to snooze only' }] : []),
        ...(action === 'assign' && body.employee_id === undefined ? [{ field: '/body/employee_id', message: 'is required to assign' }] : []),
        ...(action !== 'assign' && body.employee_id !== undefined ? [{ field: '/body/employee_id', message: 'applies to assign only' }] : []),
      ];
      if (misplaced.length > 0) throw validationFailed(misplaced);
      if ((action === 'assign' || action === 'unassign') && !p.permissions.has(ASSIGN_PERMISSION)) throw permissionDenied(ASSIGN_PERMISSION);
      const until = body.until === undefined ? undefined : new Date(body.until);
      const one = async (id: number): Promise<unknown> => {
        switch (action) {
          case 'assign':
            return deps.assignment.assign(p, id, body.employee_id!);
          case 'unassign':
            return deps.assignment.unassign(p, id);
          default:
            return deps.lifecycle.change(p, id, action, until);
        }
      };
      const results: BulkActionResponse['results'] = [];
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < body.conversation_ids.length; i = next++) {
          const id = body.conversation_ids[i]!;
          try {
            await one(id);
            results[i] = { id, ok: true };
          } catch (err) {
            if (err instanceof AppError) results[i] = { id, ok: false, status: err.status, code: err.code, detail: err.message };
            else {
              // One item's failure never undoes the others: it is reported, and logged for the operators.
              deps.log.error({ err, conversationId: id, action }, 'bulk action item failed');
              results[i] = { id, ok: false, status: 500, code: 'internal_error', detail: 'This conversation could not be changed; try it again' };
            }
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(ITEMS_AT_ONCE, body.conversation_ids.length) }, worker));
      const succeeded = results.filter((r) => r.ok).length;
      return { action, succeeded, failed: results.length - succeeded, results };
    },
  };
}
