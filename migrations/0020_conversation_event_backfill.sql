-- Conversation reports (issue 31). `reports.view` sees every row of the conversation reports; without it an
-- agent sees only their own (docs/api/interactions.md "Reports"). Roles holding `conversations.view_all`
-- get it: they already see every conversation the reports count. The catalogue row is written here because
-- role_permission references permission(code); the catalogue sync keeps its label current.
INSERT INTO "permission" ("code", "module", "label") VALUES
  ('reports.view', 'conversaciones', 'See the conversation reports of every agent, queue and channel')
ON CONFLICT ("code") DO NOTHING;
--> statement-breakpoint
INSERT INTO "role_permission" ("role_id", "permission_code")
SELECT rp."role_id", 'reports.view' FROM "role_permission" rp WHERE rp."permission_code" = 'conversations.view_all'
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- The running counts of the log (conversation_activity_slot, see conversation-activity-slot.table.ts): statement
-- triggers with transition tables add each statement's counted events to their 15-minute slot and attribution
-- in the writing transaction, so the counts equal the log's aggregate whatever writes it (the application's
-- append, the backfill below, a bulk load). The log is append-only; a conversation's deletion cascades to its
-- events and takes them out of the counts (and an update, if one ever happens, moves them). Rows are upserted
-- in key order, so two transactions counting into the same slots wait for each other and never deadlock.
CREATE FUNCTION conversation_activity_slot_on_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO conversation_activity_slot AS s (entity_id, slot, assignee_employee_id, queue_id, channel_type_code,
                                                 opened, resolved, reopened, messages_in, messages_out)
    SELECT n.entity_id, date_bin('15 minutes', n.at, timestamptz '1970-01-01 00:00:00+00'), n.assignee_employee_id, n.queue_id,
           n.channel_type_code,
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
    UPDATE conversation_activity_slot s
       SET opened = s.opened - o.opened, resolved = s.resolved - o.resolved, reopened = s.reopened - o.reopened,
           messages_in = s.messages_in - o.messages_in, messages_out = s.messages_out - o.messages_out
      FROM (SELECT r.entity_id, date_bin('15 minutes', r.at, timestamptz '1970-01-01 00:00:00+00') AS slot, r.assignee_employee_id,
                   r.queue_id, r.channel_type_code,
                   count(*) FILTER (WHERE r.kind = 'opened') AS opened, count(*) FILTER (WHERE r.kind = 'resolved') AS resolved,
                   count(*) FILTER (WHERE r.kind = 'reopened') AS reopened, count(*) FILTER (WHERE r.kind = 'message_in') AS messages_in,
                   count(*) FILTER (WHERE r.kind = 'message_out') AS messages_out
              FROM old_rows r
             WHERE r.kind IN ('opened', 'resolved', 'reopened', 'message_in', 'message_out')
             GROUP BY 1, 2, 3, 4, 5) o
     WHERE s.entity_id = o.entity_id AND s.slot = o.slot AND s.assignee_employee_id IS NOT DISTINCT FROM o.assignee_employee_id
       AND s.queue_id IS NOT DISTINCT FROM o.queue_id AND s.channel_type_code = o.channel_type_code;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER conversation_activity_slot_insert AFTER INSERT ON conversation_event REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_activity_slot_on_event();
--> statement-breakpoint
CREATE TRIGGER conversation_activity_slot_update AFTER UPDATE ON conversation_event REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_activity_slot_on_event();
--> statement-breakpoint
CREATE TRIGGER conversation_activity_slot_delete AFTER DELETE ON conversation_event REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_activity_slot_on_event();
--> statement-breakpoint
-- Backfill of the conversation event log from what the conversations and messages still say. Known exactly:
-- each message (in/out, its time, the employee who sent it), the first response (the first message an
-- employee sent), the opening (the first message's time). Not known, so not written: past assignments,
-- past status changes (resolutions, reopenings, pending, snoozes) other than the current one, and who the
-- conversation was assigned to at each message: every backfilled row is attributed to the conversation's
-- current assignee and queue, and carries "backfilled": true. The triggers above count these rows too.
INSERT INTO "conversation_event" ("entity_id", "conversation_id", "kind", "at", "assignee_employee_id", "queue_id", "channel_type_code", "data")
SELECT c."entity_id", c."id", 'opened',
       coalesce((SELECT min(m."occurred_at") FROM "message" m WHERE m."conversation_id" = c."id"), c."created_at"),
       CASE WHEN c."assignment_status" = 'assigned' THEN c."assigned_employee_id" END, c."queue_id", c."channel_type_code",
       '{"backfilled": true}'::jsonb
  FROM "conversation" c
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "conversation_event" ("entity_id", "conversation_id", "kind", "at", "actor_employee_id", "assignee_employee_id", "queue_id", "channel_type_code", "data")
SELECT m."entity_id", m."conversation_id", CASE WHEN m."direction" = 'inbound' THEN 'message_in' ELSE 'message_out' END, m."occurred_at",
       m."sent_by_employee_id", CASE WHEN c."assignment_status" = 'assigned' THEN c."assigned_employee_id" END, c."queue_id", c."channel_type_code",
       jsonb_build_object('message_id', m."id", 'backfilled', true)
  FROM "message" m JOIN "conversation" c ON c."id" = m."conversation_id";
--> statement-breakpoint
INSERT INTO "conversation_event" ("entity_id", "conversation_id", "kind", "at", "actor_employee_id", "assignee_employee_id", "queue_id", "channel_type_code",
                                  "duration_seconds", "data")
SELECT DISTINCT ON (m."conversation_id") m."entity_id", m."conversation_id", 'first_response', m."occurred_at", m."sent_by_employee_id",
       CASE WHEN c."assignment_status" = 'assigned' THEN c."assigned_employee_id" END, c."queue_id", c."channel_type_code",
       greatest(0, extract(epoch FROM m."occurred_at" - o."at"))::float8,
       jsonb_build_object('message_id', m."id", 'since', o."at", 'backfilled', true)
  FROM "message" m
  JOIN "conversation" c ON c."id" = m."conversation_id"
  JOIN "conversation_event" o ON o."conversation_id" = m."conversation_id" AND o."kind" = 'opened'
 WHERE m."direction" = 'outbound' AND m."sent_by_employee_id" IS NOT NULL
 ORDER BY m."conversation_id", m."occurred_at", m."id"
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "conversation_event" ("entity_id", "conversation_id", "kind", "at", "assignee_employee_id", "queue_id", "channel_type_code", "data")
SELECT c."entity_id", c."id", 'assigned', c."assigned_at", c."assigned_employee_id", c."queue_id", c."channel_type_code",
       jsonb_build_object('employee_id', c."assigned_employee_id", 'backfilled', true)
  FROM "conversation" c
 WHERE c."assignment_status" = 'assigned' AND c."assigned_employee_id" IS NOT NULL AND c."assigned_at" IS NOT NULL;
--> statement-breakpoint
INSERT INTO "conversation_event" ("entity_id", "conversation_id", "kind", "at", "actor_employee_id", "assignee_employee_id", "queue_id", "channel_type_code",
                                  "duration_seconds", "data")
SELECT c."entity_id", c."id", c."status", coalesce(c."status_changed_at", c."updated_at"), c."status_changed_by",
       CASE WHEN c."assignment_status" = 'assigned' THEN c."assigned_employee_id" END, c."queue_id", c."channel_type_code",
       CASE WHEN c."status" = 'resolved' THEN greatest(0, extract(epoch FROM coalesce(c."status_changed_at", c."updated_at") - o."at"))::float8 END,
       CASE WHEN c."status" = 'resolved' THEN jsonb_build_object('since', o."at", 'backfilled', true)
            WHEN c."status" = 'snoozed' THEN jsonb_build_object('until', c."snoozed_until", 'backfilled', true)
            ELSE '{"backfilled": true}'::jsonb END
  FROM "conversation" c
  JOIN "conversation_event" o ON o."conversation_id" = c."id" AND o."kind" = 'opened'
 WHERE c."status" IN ('resolved', 'pending', 'snoozed');
