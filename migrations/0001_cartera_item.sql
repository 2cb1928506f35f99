CREATE TABLE "cartera_item" (
	"lead_id" integer PRIMARY KEY NOT NULL,
	"entity_id" integer NOT NULL,
	"is_client" boolean NOT NULL,
	"group_id" integer NOT NULL,
	"group_name" text NOT NULL,
	"name" text NOT NULL,
	"erp_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"sellers" json,
	"contact_id" integer,
	"contact_name" text,
	"conversation_id" integer,
	"interaction_channel" text,
	"interaction_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "cartera_item" ADD CONSTRAINT "cartera_item_lead_id_lead_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."lead"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cartera_item" ADD CONSTRAINT "cartera_item_entity_id_entity_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."entity"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cartera_item_entity_id_is_client_created_at_idx" ON "cartera_item" USING btree ("entity_id","is_client","created_at","lead_id");--> statement-breakpoint
CREATE INDEX "cartera_item_entity_id_is_client_name_idx" ON "cartera_item" USING btree ("entity_id","is_client","name","lead_id");--> statement-breakpoint
CREATE INDEX "cartera_item_entity_id_is_client_group_name_idx" ON "cartera_item" USING btree ("entity_id","is_client","group_name","lead_id");--> statement-breakpoint
CREATE INDEX "cartera_item_entity_id_is_client_lead_id_idx" ON "cartera_item" USING btree ("entity_id","is_client","lead_id");--> statement-breakpoint
CREATE INDEX "cartera_item_entity_id_group_id_idx" ON "cartera_item" USING btree ("entity_id","group_id");--> statement-breakpoint
CREATE INDEX "conversation_lead_id_idx" ON "conversation" USING btree ("lead_id");