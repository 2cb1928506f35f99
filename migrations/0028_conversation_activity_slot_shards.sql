ALTER TABLE "conversation_activity_slot" DROP CONSTRAINT "conversation_activity_slot_key";--> statement-breakpoint
ALTER TABLE "conversation_activity_slot" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "conversation_activity_slot" ADD CONSTRAINT "conversation_activity_slot_key" UNIQUE NULLS NOT DISTINCT("entity_id","slot","assignee_employee_id","queue_id","channel_type_code","shard");--> statement-breakpoint
-- The running counts of the log, split by the writing session (issue 55): every change of an entity in the same
-- 15 minutes added to one row, so concurrent sends and inbound batches of one entity queued on its lock until
-- each commit. Each session now adds to its own shard (`pg_backend_pid() % 16`), the reports sum the shards, and a
-- removal is added as a negative count to the remover's shard, so the sums stay equal to the log's aggregate.
CREATE OR REPLACE FUNCTION conversation_activity_slot_on_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  own_shard smallint := pg_backend_pid() % 16;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO conversation_activity_slot AS s (entity_id, slot, assignee_employee_id, queue_id, channel_type_code, shard,
                                                 opened, resolved, reopened, messages_in, messages_out)
    SELECT n.entity_id, date_bin('15 minutes', n.at, timestamptz '1970-01-01 00:00:00+00'), n.assignee_employee_id, n.queue_id,
           n.channel_type_code, own_shard,
           count(*) FILTER (WHERE n.kind = 'opened'), count(*) FILTER (WHERE n.kind = 'resolved'),
           count(*) FILTER (WHERE n.kind = 'reopened'), count(*) FILTER (WHERE n.kind = 'message_in'),
           count(*) FILTER (WHERE n.kind = 'message_out')
      FROM new_rows n
     WHERE n.kind IN ('opened', 'resolved', 'reopened', 'message_in', 'message_out')
     GROUP BY 1, 2, 3, 4, 5
     ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT ON CONSTRAINT conversation_activity_slot_key DO UPDATE
       SET opened = s.opened + excluded.opened, resolved = s.resolved + excluded.resolved, reopened = s.reopened + excluded.reopened,
           messages_in = s.messages_in + excluded.messages_in, messages_out = s.messages_out + excluded.messages_out;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO conversation_activity_slot AS s (entity_id, slot, assignee_employee_id, queue_id, channel_type_code, shard,
                                                 opened, resolved, reopened, messages_in, messages_out)
    SELECT r.entity_id, date_bin('15 minutes', r.at, timestamptz '1970-01-01 00:00:00+00'), r.assignee_employee_id, r.queue_id,
           r.channel_type_code, own_shard,
           -count(*) FILTER (WHERE r.kind = 'opened'), -count(*) FILTER (WHERE r.kind = 'resolved'),
           -count(*) FILTER (WHERE r.kind = 'reopened'), -count(*) FILTER (WHERE r.kind = 'message_in'),
           -count(*) FILTER (WHERE r.kind = 'message_out')
      FROM old_rows r
     WHERE r.kind IN ('opened', 'resolved', 'reopened', 'message_in', 'message_out')
     GROUP BY 1, 2, 3, 4, 5
     ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT ON CONSTRAINT conversation_activity_slot_key DO UPDATE
       SET opened = s.opened + excluded.opened, resolved = s.resolved + excluded.resolved, reopened = s.reopened + excluded.reopened,
           messages_in = s.messages_in + excluded.messages_in, messages_out = s.messages_out + excluded.messages_out;
  END IF;
  RETURN NULL;
END $$;
