-- The seller side of the cartera read model (cartera_seller_item, see cartera-item.table.ts): one row per
-- item and effective seller, kept by statement triggers on cartera_item in the transaction that changed
-- the item. The effective sellers are the direct ones of the item's `sellers`, else the inherited ones
-- (SPEC "Cartera": a direct assignment wins), as records' lead_seller.effective says. Deleted items take
-- their rows with them (foreign key, on delete cascade).
CREATE FUNCTION cartera_seller_item_write(lead_ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(cardinality(lead_ids), 0) > 0 THEN
    DELETE FROM cartera_seller_item WHERE lead_id = ANY (lead_ids);
    INSERT INTO cartera_seller_item (lead_id, employee_id, entity_id, is_client, created_at)
    SELECT DISTINCT ci.lead_id, (s.seller ->> 'id')::int, ci.entity_id, ci.is_client, ci.created_at
      FROM cartera_item ci
      CROSS JOIN LATERAL json_array_elements(
        CASE WHEN json_array_length(ci.sellers -> 'direct') > 0 THEN ci.sellers -> 'direct' ELSE ci.sellers -> 'inherited' END) AS s(seller)
     WHERE ci.lead_id = ANY (lead_ids) AND ci.sellers IS NOT NULL;
  END IF;
END $$;
--> statement-breakpoint
CREATE FUNCTION cartera_seller_item_on_item() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM cartera_seller_item_write(ARRAY(SELECT lead_id FROM new_rows WHERE sellers IS NOT NULL));
  ELSE
    -- Most updates are a conversation's latest message: only a change of what the rows hold rewrites them.
    PERFORM cartera_seller_item_write(ARRAY(
      SELECT n.lead_id FROM new_rows n JOIN old_rows o ON o.lead_id = n.lead_id
       WHERE (n.sellers::text, n.entity_id, n.is_client, n.created_at) IS DISTINCT FROM (o.sellers::text, o.entity_id, o.is_client, o.created_at)));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cartera_seller_item_insert AFTER INSERT ON cartera_item REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_seller_item_on_item();
--> statement-breakpoint
CREATE TRIGGER cartera_seller_item_update AFTER UPDATE ON cartera_item REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cartera_seller_item_on_item();
--> statement-breakpoint
-- The items that exist already.
SELECT cartera_seller_item_write(ARRAY(SELECT lead_id FROM cartera_item WHERE sellers IS NOT NULL));
