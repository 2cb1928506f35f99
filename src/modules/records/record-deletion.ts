/**
 * Deleting contacts and leads (issue 54), the way out besides erasure: what the foreign keys keep is refused. A
 * contact or lead still named by a conversation, a quote, an order or a form key cannot be deleted (409
 * `record_in_use`): those records would lose their subject, and the reports their counts; its personal data is
 * erased instead (docs/privacy.md), which keeps them as anonymous shells. Channels, labels, assignments, sellers
 * and the cartera row go with the record (`on delete cascade`).
 */
import { isForeignKeyViolation } from '../../db/db-errors.js';
import { conflict } from '../../platform/errors.js';

/** `work`'s result, or 409 `record_in_use` when the database refused the deletion for a reference. */
export async function refusingReferenced<T>(what: 'contact' | 'lead', id: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isForeignKeyViolation(err))
      throw conflict(
        'record_in_use',
        `The ${what} ${id} is still named by conversations, quotes, orders or a form key: erase its personal data instead (docs/privacy.md)`,
      );
    throw err;
  }
}
