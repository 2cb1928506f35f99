/** The demo entity's labels (issue 49). Idempotent; returns every demo label's id by name. */
import type { Db } from '../../db/client.js';
import { listLabels } from './label.repository.js';
import { label } from './label.table.js';

const DEMO_LABELS = [
  { name: 'VIP', color: '#d4a017', description: 'Clientes de trato preferente' },
  { name: 'Reclamo', color: '#e03e3e', description: 'Queja o devolución en curso' },
  { name: 'Cotización', color: '#2f80ed', description: 'Pidió precios o una cotización' },
  { name: 'Mayorista', color: '#27ae60', description: null },
];

export async function seedLabelsDemo(db: Db, entityId: number): Promise<Map<string, number>> {
  await db
    .insert(label)
    .values(DEMO_LABELS.map((l) => ({ entityId, ...l })))
    .onConflictDoNothing();
  return new Map((await listLabels(db, entityId)).map((l) => [l.name, l.id]));
}
