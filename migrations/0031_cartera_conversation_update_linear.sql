-- The cartera read model's conversation trigger (migration 0002) asked whether a statement moved a conversation to
-- another lead by joining its old and new rows; PostgreSQL planned that join over the two transition tables as a
-- nested loop (it expects an early exit), so an update of n conversations compared n² pairs when none moved: 5,000
-- conversations labelled at once (issue 49, a lead's or a popular label's) took six seconds in this trigger alone.
-- The same question as a set difference is one hashed pass.
CREATE OR REPLACE FUNCTION cartera_item_on_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A conversation moved to another lead: both rows are derived again.
  IF TG_OP = 'UPDATE' THEN
    IF EXISTS (SELECT 1 FROM (SELECT n.id, n.lead_id FROM new_rows n EXCEPT SELECT o.id, o.lead_id FROM old_rows o) moved) THEN
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
