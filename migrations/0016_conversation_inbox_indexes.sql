DROP INDEX "conversation_entity_id_assigned_employee_id_idx";--> statement-breakpoint
DROP INDEX "conversation_lead_id_idx";--> statement-breakpoint
DROP INDEX "conversation_entity_id_last_message_at_idx";--> statement-breakpoint
DROP INDEX "conversation_queue_id_queued_at_idx";--> statement-breakpoint
CREATE INDEX "conversation_entity_id_assignee_activity_idx" ON "conversation" USING btree ("entity_id","assigned_employee_id","assignment_status","last_message_at","id","status");--> statement-breakpoint
CREATE INDEX "conversation_lead_id_activity_idx" ON "conversation" USING btree ("lead_id","entity_id","last_message_at","id","status","assignment_status","assigned_employee_id","queue_id");--> statement-breakpoint
CREATE INDEX "conversation_entity_id_last_message_at_idx" ON "conversation" USING btree ("entity_id","last_message_at","id","queue_id","assignment_status");--> statement-breakpoint
CREATE INDEX "conversation_queue_id_queued_at_idx" ON "conversation" USING btree ("queue_id","queued_at","entity_id","assignment_status","status","assigned_employee_id");