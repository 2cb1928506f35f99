CREATE TABLE "conversation_report_day" (
	"entity_id" integer NOT NULL,
	"time_zone" text NOT NULL,
	"grouping" text NOT NULL,
	"agent_employee_id" integer,
	"day" date NOT NULL,
	"lo" timestamp with time zone NOT NULL,
	"hi" timestamp with time zone NOT NULL,
	"rows" jsonb NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversation_report_day_key" UNIQUE NULLS NOT DISTINCT("entity_id","time_zone","grouping","agent_employee_id","day")
);
--> statement-breakpoint
ALTER TABLE "conversation_report_day" ADD CONSTRAINT "conversation_report_day_entity_id_entity_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."entity"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversation_report_day_entity_id_hi_index" ON "conversation_report_day" USING btree ("entity_id","hi");--> statement-breakpoint
-- Kept report days stay exact (conversation-report-day.table.ts; docs/decisions.md "Closed report days are
-- kept"). A statement that writes, changes or deletes events of an entity timed more than 5 minutes before
-- now (a late webhook, a backfill, a conversation's deletion) deletes the entity's kept days that end after
-- the earliest of them. It takes the entity's report lock shared (writers do not wait for each other); a
-- report keeping days takes it exclusive, so it either sees these events (it waited for their commit) or
-- its days are deleted here after it committed. Events timed within the last 5 minutes need no lock: a day
-- is kept only 10 minutes after it ends.
CREATE FUNCTION conversation_report_day_forget(entity integer, since timestamptz) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(1919250532, entity);
  DELETE FROM conversation_report_day d WHERE d.entity_id = entity AND d.hi > since;
END $$;
--> statement-breakpoint
CREATE FUNCTION conversation_report_day_on_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  late record;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    FOR late IN SELECT n.entity_id, min(n.at) AS since FROM new_rows n WHERE n.at < clock_timestamp() - interval '5 minutes' GROUP BY 1 ORDER BY 1 LOOP
      PERFORM conversation_report_day_forget(late.entity_id, late.since);
    END LOOP;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    FOR late IN SELECT o.entity_id, min(o.at) AS since FROM old_rows o WHERE o.at < clock_timestamp() - interval '5 minutes' GROUP BY 1 ORDER BY 1 LOOP
      PERFORM conversation_report_day_forget(late.entity_id, late.since);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER conversation_report_day_insert AFTER INSERT ON conversation_event REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_report_day_on_event();
--> statement-breakpoint
CREATE TRIGGER conversation_report_day_update AFTER UPDATE ON conversation_event REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_report_day_on_event();
--> statement-breakpoint
CREATE TRIGGER conversation_report_day_delete AFTER DELETE ON conversation_event REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_report_day_on_event();
