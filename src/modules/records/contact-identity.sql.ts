/**
 * Statements of contact-identity.repository.ts: contacts by channel identifier, and the creation of
 * group, lead, contact and channel in one statement (one sender, or many at once).
 */
import { sql } from 'drizzle-orm';
import { shapedStatement, statement } from '../../db/statement.js';

/**
 * Group, lead, contact and channel of one new sender (placeholders `entityId`, `name`, `phone`, `type`,
 * `identifier`); `channel_id` null when the channel already existed.
 */
export const INSERT_CONTACT_WITH_CHANNEL = shapedStatement('records_insert_contact_with_channel', {
  build: () => sql`with g as (insert into crm_group (entity_id, name) values (${sql.placeholder('entityId')}, ${sql.placeholder('name')}) returning id),
             l as (insert into lead (entity_id, group_id, name, phone) select ${sql.placeholder('entityId')}, g.id, ${sql.placeholder('name')}, ${sql.placeholder('phone')} from g returning id, group_id),
             c as (insert into contact (entity_id, group_id, lead_id, name) select ${sql.placeholder('entityId')}, l.group_id, l.id, ${sql.placeholder('name')} from l returning id, lead_id, group_id),
             ch as (insert into contact_channel (entity_id, contact_id, type, identifier)
                    select ${sql.placeholder('entityId')}, c.id, ${sql.placeholder('type')}::contact_channel_type, ${sql.placeholder('identifier')} from c
                    on conflict do nothing returning id)
        select c.id as contact_id, c.lead_id, c.group_id, (select id from ch) as channel_id from c`,
});

/** The contacts owning channel keys: `$1` input index, `$2` entity, `$3` type, `$4` identifier (arrays of one length). */
export const FIND_CONTACTS_BY_CHANNELS = statement(
  'records_find_contacts_by_channels',
  `
  select x.ord, c.id as contact_id, c.lead_id, c.group_id
    from unnest($1::int[], $2::int[], $3::text[], $4::text[]) as x(ord, entity_id, type, identifier)
    join contact_channel ch on ch.entity_id = x.entity_id and ch.type = x.type::contact_channel_type and ch.identifier = x.identifier
    join contact c on c.id = ch.contact_id`,
);

// Ids are drawn first so each input row knows its group, lead and contact: INSERT ... RETURNING cannot
// say which input row produced which id.
// `$1` input index, `$2` entity, `$3` name, `$4` phone, `$5` type, `$6` identifier (arrays of one length).
export const INSERT_CONTACTS_WITH_CHANNELS = statement(
  'records_insert_contacts_with_channels',
  `
  with x as (
    select x.*, nextval(pg_get_serial_sequence('crm_group', 'id'))::int as group_id,
           nextval(pg_get_serial_sequence('lead', 'id'))::int as lead_id,
           nextval(pg_get_serial_sequence('contact', 'id'))::int as contact_id
      from unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[]) as x(ord, entity_id, name, phone, type, identifier)
  ), g as (
    insert into crm_group (id, entity_id, name) select group_id, entity_id, name from x
  ), l as (
    insert into lead (id, entity_id, group_id, name, phone) select lead_id, entity_id, group_id, name, phone from x
  ), c as (
    insert into contact (id, entity_id, group_id, lead_id, name) select contact_id, entity_id, group_id, lead_id, name from x
  ), ch as (
    insert into contact_channel (entity_id, contact_id, type, identifier)
    select entity_id, contact_id, type::contact_channel_type, identifier from x
    on conflict do nothing returning contact_id
  )
  select x.ord, x.contact_id, x.lead_id, x.group_id, exists (select 1 from ch where ch.contact_id = x.contact_id) as channel_created from x`,
);
