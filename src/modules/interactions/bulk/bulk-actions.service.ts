/**
 * Bulk actions on conversations (issue 49): one call resolves, reopens, marks pending, snoozes, assigns,
 * unassigns, labels or unlabels up to 500 conversations. Each item is the single action, run as if it were alone (its own
 * transaction: visibility, reply rights, the state machine, the claim race, its realtime events and workflow
 * triggers), so one item's refusal leaves the others applied; the answer lists each item's result in the
 * order given. Items run a few at a time (platform/http/bulk.ts).
 */
import { permissionDenied, validationFailed } from '../../../platform/errors.js';
import { runBulk } from '../../../platform/http/bulk.js';
import type { Labels } from '../../labels/index.js';
import type { ConversationLabels } from '../conversation-labels/index.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import type { ConversationLifecycle } from '../lifecycle/index.js';
import { ASSIGN_PERMISSION, type AssignmentService } from '../routing/index.js';
import type { BulkActionBody, BulkActionResponse } from './bulk-actions.schemas.js';

export interface BulkActions {
  /**
   * 400 `validation_failed` when `until`, `employee_id` or `label_ids` is missing for its action or given for another;
   * 403 without the assignment code; 404 for a label that is not the entity's (nothing applied).
   */
  apply(p: Principal, body: BulkActionBody): Promise<BulkActionResponse>;
}

export function createBulkActions(deps: {
  lifecycle: Pick<ConversationLifecycle, 'change'>;
  assignment: Pick<AssignmentService, 'assign' | 'unassign'>;
  labels: ConversationLabels;
  catalogue: Pick<Labels, 'assertLabels'>;
  log: { error(obj: object, msg: string): void };
}): BulkActions {
  return {
    async apply(p, body) {
      const { action } = body;
      const labelling = action === 'label' || action === 'unlabel';
      const misplaced = [
        ...(action === 'snooze' ? (body.until === undefined ? [{ field: '/body/until', message: 'is required to snooze' }] : []) : []),
        ...(action !== 'snooze' && body.until !== undefined ? [{ field: '/body/until', message: 'applies to snooze only' }] : []),
        ...(action === 'assign' && body.employee_id === undefined ? [{ field: '/body/employee_id', message: 'is required to assign' }] : []),
        ...(action !== 'assign' && body.employee_id !== undefined ? [{ field: '/body/employee_id', message: 'applies to assign only' }] : []),
        ...(labelling && body.label_ids === undefined ? [{ field: '/body/label_ids', message: 'is required to label and unlabel' }] : []),
        ...(!labelling && body.label_ids !== undefined ? [{ field: '/body/label_ids', message: 'applies to label and unlabel only' }] : []),
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
          case 'label':
            return deps.labels.add(p, id, body.label_ids!);
          case 'unlabel':
            return deps.labels.remove(p, id, body.label_ids!);
          default:
            return deps.lifecycle.change(p, id, action, until);
        }
      };
      // A label of another entity refuses the whole call before any item is applied.
      if (body.label_ids !== undefined) await deps.catalogue.assertLabels(p.entityId, body.label_ids);
      return runBulk(action, body.conversation_ids, one, deps.log);
    },
  };
}
