CREATE VIEW "public"."custom_field_value_count" AS (select entity_id, record_type, record_id, count(*)::int as value_count from custom_field_value group by entity_id, record_type, record_id);--> statement-breakpoint
CREATE VIEW "public"."active_employee" AS (select id, entity_id, user_id, name from employee where is_active);--> statement-breakpoint
-- The cartera read model's full rebuild of one entity (operators, after writes that bypassed the triggers):
-- part of the read model's maintenance, next to the triggers of 0002; returns the number of leads.
CREATE FUNCTION cartera_item_rebuild(rebuild_entity_id integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  ids integer[] := array(SELECT id FROM lead WHERE entity_id = rebuild_entity_id);
BEGIN
  PERFORM cartera_item_refresh(ids);
  RETURN cardinality(ids);
END;
$$;
