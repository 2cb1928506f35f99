/** The demo web form key of an entity. Idempotent. */
import type { Db } from '../../db/client.js';
import { ensureFormKey } from './forms.repository.js';

const DEMO_FORM_KEY = 'demo-form-key';

export async function seedFormsDemo(db: Db, entityId: number): Promise<{ formKey: string }> {
  await ensureFormKey(db, { entityId, key: DEMO_FORM_KEY, name: 'Demo website form' });
  return { formKey: DEMO_FORM_KEY };
}
