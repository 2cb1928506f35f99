ALTER TABLE "media_object" ADD COLUMN "visitor_id" integer;--> statement-breakpoint
ALTER TABLE "media_object" ADD COLUMN "website_id" integer;--> statement-breakpoint
CREATE INDEX "media_object_visitor_id_created_at_idx" ON "media_object" USING btree ("visitor_id","created_at") WHERE "media_object"."visitor_id" is not null;--> statement-breakpoint
CREATE INDEX "media_object_website_id_created_at_idx" ON "media_object" USING btree ("website_id","created_at") WHERE "media_object"."website_id" is not null;