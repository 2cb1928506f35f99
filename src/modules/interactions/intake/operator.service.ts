/**
 * Operator views of the webhook intake: the dead-letter list (processing failed after every retry, with the
 * error) and the unroutable list (valid events for an account no entity owns). These rows have no
 * entity yet, so they are shown only to operators: holders of `communications.command_palette.view`
 * whose e-mail is in COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS (SPEC "Errors" 5). The routes check
 * both in the guard (`operatorRoute`), before validation; the service checks again.
 */
import type { Db } from '../../../db/client.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import { assertPrivilegedOperator } from '../communications/index.js';
import * as intakeRepo from './intake.repository.js';
import type { IntakeWorker } from './intake.worker.js';

export interface OperatorService {
  list(
    principal: Principal,
    state: 'dead' | 'unroutable',
    q: { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<{ data: ReturnType<typeof toItem>[]; pagination: { next_cursor: string | null; limit: number } }>;
  retry(principal: Principal, ids: number[]): Promise<{ requeued: number }>;
}

export function createOperatorService(deps: { db: Db; privilegedEmails: string[]; worker: IntakeWorker }): OperatorService {
  const check = (p: Principal) => assertPrivilegedOperator(p, deps.privilegedEmails);
  return {
    async list(principal, state, q) {
      check(principal);
      const limit = q.limit ?? 50;
      const rows = await intakeRepo.listByState(deps.db, state, limit + 1, q.cursor !== undefined ? Number(q.cursor) : undefined);
      const page = rows.slice(0, limit);
      return { data: page.map(toItem), pagination: { next_cursor: rows.length > limit ? String(page.at(-1)!.id) : null, limit } };
    },
    async retry(principal, ids) {
      check(principal);
      const requeued = await intakeRepo.requeue(deps.db, ids);
      await deps.worker.sweep();
      return { requeued };
    },
  };
}

function toItem(r: intakeRepo.IntakeRow) {
  return {
    id: r.id,
    event_key: r.eventKey,
    platform: r.platform,
    kind: r.kind,
    account_external_id: r.accountExternalId,
    external_chat_id: r.externalChatId,
    state: r.state,
    attempts: r.attempts,
    last_error: r.lastError,
    occurred_at: r.occurredAt.toISOString(),
    received_at: r.receivedAt.toISOString(),
    event: r.event,
  };
}
