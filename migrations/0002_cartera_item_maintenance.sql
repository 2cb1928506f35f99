-- The cartera read model (cartera_item, one row per lead) is kept by the database itself: statement
-- triggers on every table it is derived from rewrite the rows of the leads a statement touched, in that
-- statement's transaction. Every write path (the API, the webhook's one-statement creation of new
-- senders, bulk SQL) keeps it exact without knowing it exists. See docs/decisions.md ("Cartera read model").

-- Rewrites the rows of `lead_ids` from the source tables (leads that no longer exist are skipped).
CREATE FUNCTION cartera_item_refresh(lead_ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(cardinality(lead_ids), 0) > 0 THEN
    -- Lock the existing rows first: a concurrent refresh of the same leads waits until the other
    -- transaction ends, and the next statement's fresh snapshot then sees what it committed.
    PERFORM 1 FROM cartera_item WHERE lead_id = ANY (lead_ids) ORDER BY lead_id FOR UPDATE;
    INSERT INTO cartera_item AS ci (lead_id, entity_id, is_client, group_id, group_name, name, erp_id, created_at,
                                    sellers, contact_id, contact_name, conversation_id, interaction_channel, interaction_at)
    SELECT l.id, l.entity_id, l.erp_id IS NOT NULL, l.group_id, g.name, l.name, l.erp_id, l.created_at,
           s.sellers, c.id, c.name, v.id, v.channel_type_code, v.last_message_at
      FROM lead l
      JOIN crm_group g ON g.id = l.group_id
      LEFT JOIN LATERAL (
        SELECT json_build_object(
                 'direct', coalesce(json_agg(json_build_object('id', e.id, 'name', e.name) ORDER BY ls.assignment_id) FILTER (WHERE ls.via = 'lead'), '[]'),
                 'inherited', coalesce(json_agg(json_build_object('id', e.id, 'name', e.name) ORDER BY ls.assignment_id) FILTER (WHERE ls.via = 'group'), '[]')
               ) AS sellers
          FROM lead_seller ls JOIN employee e ON e.id = ls.employee_id
         WHERE ls.lead_id = l.id
        HAVING count(*) > 0) s ON true
      LEFT JOIN LATERAL (
        SELECT c.id, c.name FROM contact c
         WHERE c.entity_id = l.entity_id AND c.lead_id = l.id
         ORDER BY c.created_at DESC, c.id DESC LIMIT 1) c ON true
      LEFT JOIN LATERAL (
        SELECT v.id, v.channel_type_code, v.last_message_at FROM conversation v
         WHERE v.lead_id = l.id AND v.last_message_at IS NOT NULL
         ORDER BY v.last_message_at DESC, v.id DESC LIMIT 1) v ON true
     WHERE l.id = ANY (lead_ids)
    ON CONFLICT (lead_id) DO UPDATE SET
      entity_id = excluded.entity_id, is_client = excluded.is_client, group_id = excluded.group_id,
      group_name = excluded.group_name, name = excluded.name, erp_id = excluded.erp_id, created_at = excluded.created_at,
      sellers = excluded.sellers, contact_id = excluded.contact_id, contact_name = excluded.contact_name,
      conversation_id = excluded.conversation_id, interaction_channel = excluded.interaction_channel,
      interaction_at = excluded.interaction_at
    -- Unchanged rows are not rewritten (json has no equality operator: compared as text).
    WHERE (ci.entity_id, ci.is_client, ci.group_id, ci.group_name, ci.name, ci.erp_id, ci.created_at, ci.sellers::text,
           ci.contact_id, ci.contact_name, ci.conversation_id, ci.interaction_channel, ci.interaction_at)
          IS DISTINCT FROM
          (excluded.entity_id, excluded.is_client, excluded.group_id, excluded.group_name, excluded.name, excluded.erp_id,
           excluded.created_at, excluded.sellers::text, excluded.contact_id, excluded.contact_name, excluded.conversation_id,
           excluded.interaction_channel, excluded.interaction_at);
  END IF;
END $$;
--> statement-breakpoint
CREATE FUNCTION cartera_item_on_lead() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM cartera_item_refresh(ARRAY(SELECT id FROM new_rows));
  ELSE
    PERFORM cartera_item_refresh(ARRAY(
      SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE (n.entity_id, n.group_id, n.name, n.erp_id, n.created_at) IS DISTINCT FROM (o.entity_id, o.group_id, o.name, o.erp_id, o.created_at)));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cartera_item_lead_insert AFTER INSERT ON lead REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_lead();
--> statement-breakpoint
CREATE TRIGGER cartera_item_lead_update AFTER UPDATE ON lead REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_lead();
--> statement-breakpoint
CREATE FUNCTION cartera_item_on_group() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM cartera_item_refresh(ARRAY(
    SELECT l.id FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN lead l ON l.entity_id = n.entity_id AND l.group_id = n.id
     WHERE n.name IS DISTINCT FROM o.name));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cartera_item_group_update AFTER UPDATE ON crm_group REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_group();
--> statement-breakpoint
-- Rows that name their lead (contacts, stored sellers): the leads named before and after the statement.
CREATE FUNCTION cartera_item_on_lead_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM cartera_item_refresh(ARRAY(SELECT DISTINCT lead_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM cartera_item_refresh(ARRAY(SELECT DISTINCT lead_id FROM old_rows));
  ELSE
    PERFORM cartera_item_refresh(ARRAY(SELECT lead_id FROM new_rows UNION SELECT lead_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cartera_item_contact_insert AFTER INSERT ON contact REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_lead_rows();
--> statement-breakpoint
CREATE TRIGGER cartera_item_contact_update AFTER UPDATE ON contact REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_lead_rows();
--> statement-breakpoint
CREATE TRIGGER cartera_item_contact_delete AFTER DELETE ON contact REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_lead_rows();
--> statement-breakpoint
CREATE TRIGGER cartera_item_lead_seller_insert AFTER INSERT ON lead_seller REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_lead_rows();
--> statement-breakpoint
CREATE TRIGGER cartera_item_lead_seller_update AFTER UPDATE ON lead_seller REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_lead_rows();
--> statement-breakpoint
CREATE TRIGGER cartera_item_lead_seller_delete AFTER DELETE ON lead_seller REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_lead_rows();
--> statement-breakpoint
CREATE FUNCTION cartera_item_on_employee() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM cartera_item_refresh(ARRAY(
    SELECT DISTINCT ls.lead_id FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN lead_seller ls ON ls.entity_id = n.entity_id AND ls.employee_id = n.id
     WHERE n.name IS DISTINCT FROM o.name));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cartera_item_employee_update AFTER UPDATE ON employee REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_employee();
--> statement-breakpoint
-- A conversation's latest message only moves forward and moves with every inbound message, so the
-- webhook path gets a targeted update instead of a refresh: a lead's row takes the conversation whose
-- (last_message_at, id) is the greatest, and the row lock orders concurrent writers.
CREATE FUNCTION cartera_item_on_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A conversation moved to another lead: both rows are derived again.
  IF TG_OP = 'UPDATE' THEN
    IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.lead_id IS DISTINCT FROM o.lead_id) THEN
      PERFORM cartera_item_refresh(ARRAY(SELECT lead_id FROM new_rows UNION SELECT lead_id FROM old_rows));
      RETURN NULL;
    END IF;
  END IF;
  UPDATE cartera_item ci
     SET conversation_id = x.id, interaction_channel = x.channel_type_code, interaction_at = x.last_message_at
    FROM (SELECT DISTINCT ON (n.lead_id) n.lead_id, n.id, n.channel_type_code, n.last_message_at
            FROM new_rows n WHERE n.last_message_at IS NOT NULL
           ORDER BY n.lead_id, n.last_message_at DESC, n.id DESC) x
   WHERE ci.lead_id = x.lead_id
     AND (ci.interaction_at IS NULL OR (x.last_message_at, x.id) > (ci.interaction_at, ci.conversation_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cartera_item_conversation_insert AFTER INSERT ON conversation REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_conversation();
--> statement-breakpoint
CREATE TRIGGER cartera_item_conversation_update AFTER UPDATE ON conversation REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_item_on_conversation();
--> statement-breakpoint
SELECT cartera_item_refresh(ARRAY(SELECT id FROM lead));
