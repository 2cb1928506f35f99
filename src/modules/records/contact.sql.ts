/** Statements of contact.repository.ts: the contacts list with channels and value counts in one statement. */
import { sql, type SQL } from 'drizzle-orm';
import { everyShape, shapedStatement } from '../../db/statement.js';
import { recordLabelled } from './label-filter.sql.js';

/** Which filters the list's text has; values are placeholders (`entityId`, `groupId`, `leadId`, `id`, `limit`, `offset`). */
interface ContactViewsShape {
  group: boolean;
  lead: boolean;
  id: boolean;
  /** `label` (any of, placeholder `labelAny`) and `label_all` (placeholder `labelAll`), either null. */
  labels: boolean;
}

/**
 * Contacts with their channels (aggregated per row), custom-field value counts and the window count
 * `count(*) over ()`, by id.
 */
export const CONTACT_VIEWS = shapedStatement('records_contact_views', {
  shapes: everyShape({ group: [false, true], lead: [false, true], id: [false, true], labels: [false, true] }),
  build: (shape: ContactViewsShape) => {
    const conditions: SQL[] = [sql`c.entity_id = ${sql.placeholder('entityId')}`];
    if (shape.group) conditions.push(sql`c.group_id = ${sql.placeholder('groupId')}`);
    if (shape.lead) conditions.push(sql`c.lead_id = ${sql.placeholder('leadId')}`);
    if (shape.id) conditions.push(sql`c.id = ${sql.placeholder('id')}`);
    if (shape.labels) conditions.push(recordLabelled('contact', sql`c.id`, sql.placeholder('labelAny'), sql.placeholder('labelAll')));
    return sql`select c.id, c.group_id, c.lead_id, c.name, c.created_at, c.updated_at,
      coalesce((select json_agg(json_build_object('id', ch.id, 'type', ch.type, 'identifier', ch.identifier, 'label', ch.label, 'is_manual', ch.is_manual) order by ch.id)
        from contact_channel ch where ch.contact_id = c.id), '[]'::json) as channels,
      coalesce((select v.value_count from custom_field_value_count v where v.entity_id = c.entity_id and v.record_type = 'contact' and v.record_id = c.id), 0) as custom_field_values_count,
      coalesce((select array_agg(cl.label_id order by cl.label_id) from contact_label cl where cl.contact_id = c.id), '{}'::integer[]) as label_ids,
      (count(*) over ())::int as total
    from contact c where ${sql.join(conditions, sql` and `)}
    order by c.id limit ${sql.placeholder('limit')} offset ${sql.placeholder('offset')}`;
  },
});
