/** Demo canned replies (issue 49): a few of the entity's, one of the demo inbox queue's and one agent's own. Idempotent. */
import type { Db } from '../../../db/client.js';
import { cannedReply } from '../model/index.js';
import { searchKey } from './canned-reply.variables.js';

export async function seedCannedRepliesDemo(db: Db, entityId: number, queueId: number, employeeId: number | undefined): Promise<void> {
  const replies = [
    {
      scope: 'entity' as const,
      shortcode: 'hola',
      title: 'Saludo',
      body: 'Hola {{contact.name}}, soy {{agent.name}} de {{entity.name}}. ¿En qué te puedo ayudar?',
    },
    {
      scope: 'entity' as const,
      shortcode: 'horario',
      title: 'Horario de atención',
      body: 'Atendemos de lunes a viernes de 8:00 a 18:00 y sábados de 8:00 a 12:00.',
    },
    { scope: 'entity' as const, shortcode: 'gracias', title: 'Despedida', body: '¡Gracias por escribirnos, {{contact.name}}! Quedamos a tus órdenes.' },
    {
      scope: 'queue' as const,
      shortcode: 'pedido',
      title: 'Estado del pedido',
      body: 'Tu pedido {{?número de pedido}} va en camino y llega en 2 días hábiles.',
      queueId,
    },
    ...(employeeId !== undefined
      ? [{ scope: 'personal' as const, shortcode: 'firma', title: 'Mi firma', body: 'Saludos cordiales,\n{{agent.name}}', ownerEmployeeId: employeeId }]
      : []),
  ];
  for (const r of replies) {
    await db
      .insert(cannedReply)
      .values({ entityId, ...r, titleKey: searchKey(r.title), searchText: searchKey(`${r.shortcode} ${r.title} ${r.body}`) })
      .onConflictDoNothing();
  }
}
