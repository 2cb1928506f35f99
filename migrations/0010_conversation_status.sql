ALTER TABLE "conversation" ADD COLUMN "status" text DEFAULT 'open' NOT NULL;--> statement-breakpoint
ALTER TABLE "conversation" ADD COLUMN "status_changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversation" ADD COLUMN "status_changed_by" integer;--> statement-breakpoint
ALTER TABLE "conversation" ADD COLUMN "snoozed_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversation" ADD CONSTRAINT "conversation_status_changed_by_employee_id_fk" FOREIGN KEY ("status_changed_by") REFERENCES "public"."employee"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversation_entity_id_status_last_message_at_idx" ON "conversation" USING btree ("entity_id","status","last_message_at","id");--> statement-breakpoint
CREATE INDEX "conversation_entity_id_status_assignment_idx" ON "conversation" USING btree ("entity_id","status","assignment_status","assigned_employee_id");