import { idColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgEnum, pgTable, pgView, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** Records that carry custom field values (SPEC "Custom fields": record_type; `contact` is the one in use). */
export const customFieldRecordType = pgEnum('custom_field_record_type', ['contact', 'group']);

/** Value kinds (SPEC "Custom fields": currency, department, municipality, image, video, pdf, plus the basic kinds). */
export const customFieldType = pgEnum('custom_field_type', [
  'text',
  'number',
  'date',
  'boolean',
  'select',
  'currency',
  'department',
  'municipality',
  'image',
  'video',
  'pdf',
]);

/** A titled section of custom fields for one record type. */
export const customFieldGroup = pgTable(
  'custom_field_group',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    name: text().notNull(),
    recordType: customFieldRecordType().notNull(),
    position: integer().notNull().default(0),
    ...timestampColumns(),
  },
  (t) => [index('custom_field_group_entity_id_record_type_idx').on(t.entityId, t.recordType, t.position)],
);

/**
 * A field definition. `readonly`, `override_permission_code` and `contexts` are the SPEC's transported
 * settings; `contexts` is stored and returned, never used to filter.
 */
export const customField = pgTable(
  'custom_field',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    customFieldGroupId: integer()
      .notNull()
      .references(() => customFieldGroup.id),
    name: text().notNull(),
    type: customFieldType().notNull(),
    /** Allowed values of a `select` field. */
    options: jsonb().$type<string[]>().notNull().default([]),
    readonly: boolean().notNull().default(false),
    overridePermissionCode: text(),
    contexts: jsonb().$type<string[]>().notNull().default([]),
    position: integer().notNull().default(0),
    ...timestampColumns(),
  },
  (t) => [index('custom_field_entity_id_custom_field_group_id_idx').on(t.entityId, t.customFieldGroupId, t.position)],
);

/** One value of one field on one record; `value` holds the kind's JSON shape (docs/api/custom-fields.md). */
export const customFieldValue = pgTable(
  'custom_field_value',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    customFieldId: integer()
      .notNull()
      .references(() => customField.id, { onDelete: 'cascade' }),
    recordType: customFieldRecordType().notNull(),
    recordId: integer().notNull(),
    value: jsonb().notNull(),
    updatedByEmployeeId: integer(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('custom_field_value_custom_field_id_record_id_uq').on(t.customFieldId, t.recordId),
    index('custom_field_value_entity_id_record_type_record_id_idx').on(t.entityId, t.recordType, t.recordId),
  ],
);

/**
 * How many custom field values each record holds: the view custom fields publish for other modules'
 * lists (records' contacts carry `hasCustomFieldValues` and `customFieldValuesCount`, SPEC "Cartera").
 * Filtered by its grouping columns, PostgreSQL reads only that record's index range.
 */
export const customFieldValueCount = pgView('custom_field_value_count', {
  entityId: integer().notNull(),
  recordType: customFieldRecordType().notNull(),
  recordId: integer().notNull(),
  valueCount: integer().notNull(),
}).as(sql`select entity_id, record_type, record_id, count(*)::int as value_count from custom_field_value group by entity_id, record_type, record_id`);
