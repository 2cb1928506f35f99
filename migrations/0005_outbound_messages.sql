ALTER TABLE "message" ADD COLUMN "client_message_id" text;--> statement-breakpoint
ALTER TABLE "message" ADD COLUMN "sent_by_employee_id" integer;--> statement-breakpoint
ALTER TABLE "message" ADD COLUMN "send_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "message" ADD COLUMN "retried_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "message" ADD COLUMN "origin" jsonb;--> statement-breakpoint
ALTER TABLE "message" ADD CONSTRAINT "message_sent_by_employee_id_employee_id_fk" FOREIGN KEY ("sent_by_employee_id") REFERENCES "public"."employee"("id") ON DELETE no action ON UPDATE no action;