CREATE TABLE "cartera_seller_item" (
	"lead_id" integer NOT NULL,
	"employee_id" integer NOT NULL,
	"entity_id" integer NOT NULL,
	"is_client" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "cartera_seller_item_pkey" PRIMARY KEY("lead_id","employee_id")
);
--> statement-breakpoint
ALTER TABLE "cartera_seller_item" ADD CONSTRAINT "cartera_seller_item_lead_id_cartera_item_lead_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."cartera_item"("lead_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cartera_seller_item" ADD CONSTRAINT "cartera_seller_item_entity_id_entity_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."entity"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cartera_seller_item_seller_created_at_idx" ON "cartera_seller_item" USING btree ("entity_id","employee_id","is_client","created_at","lead_id");