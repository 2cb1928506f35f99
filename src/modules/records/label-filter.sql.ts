/**
 * SQL fragments of the label filters (issue 49) on records' lists, and the one records publishes for the cartera:
 * `label` (any of) and `label_all` (all of), over `contact_label` and `lead_label`. Values are `integer[]`.
 */
import { sql, type SQL } from 'drizzle-orm';

const LINKS = { contact: sql`contact_label`, lead: sql`lead_label` };
const SUBJECT = { contact: sql`contact_id`, lead: sql`lead_id` };

/**
 * True for records of `kind` whose id (`recordId`, the outer query's column) carries any of `anyOf` and every one
 * of `allOf`: `integer[]` values or placeholders, either null for no condition (one statement text serves the
 * four combinations).
 */
export function recordLabelled(kind: 'contact' | 'lead', recordId: SQL, anyOf: unknown, allOf: unknown): SQL {
  return sql`(${anyOf}::integer[] is null or exists (select 1 from ${LINKS[kind]} lf where lf.${SUBJECT[kind]} = ${recordId} and lf.label_id = any(${anyOf}::integer[])))
    and (${allOf}::integer[] is null or (select count(*) from ${LINKS[kind]} lf where lf.${SUBJECT[kind]} = ${recordId} and lf.label_id = any(${allOf}::integer[])) = cardinality(${allOf}::integer[]))`;
}

/** The leads' label filter, as the cartera reads it (a published contract of records, docs/architecture.md). */
export function leadLabelled(leadId: SQL, anyOf: unknown, allOf: unknown): SQL {
  return recordLabelled('lead', leadId, anyOf, allOf);
}

/** A record's label ids as a JSON array text (`[3,8]`, `[]` without labels), for the list pages built as JSON text. */
export function recordLabelIdsJson(kind: 'contact' | 'lead', recordId: SQL): SQL {
  return sql`coalesce((select json_agg(lj.label_id order by lj.label_id) from ${LINKS[kind]} lj where lj.${SUBJECT[kind]} = ${recordId})::text, '[]')`;
}
