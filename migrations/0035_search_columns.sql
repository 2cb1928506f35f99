ALTER TABLE "message" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('crm_spanish'::regconfig, coalesce("text", ''))) STORED;--> statement-breakpoint
ALTER TABLE "contact" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(search_unaccent(name))) STORED;--> statement-breakpoint
ALTER TABLE "contact_channel" ADD COLUMN "phone_digits" text GENERATED ALWAYS AS (case when type in ('phone', 'whatsapp') then search_digits(identifier) end) STORED;--> statement-breakpoint
ALTER TABLE "crm_group" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(search_unaccent(name))) STORED;--> statement-breakpoint
ALTER TABLE "lead" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(search_unaccent(name || ' ' || coalesce(email, '') || ' ' || coalesce(tax_id, '') || ' ' || coalesce(erp_id, '')))) STORED;--> statement-breakpoint
ALTER TABLE "lead" ADD COLUMN "phone_digits" text GENERATED ALWAYS AS (search_digits(phone)) STORED;--> statement-breakpoint
CREATE INDEX "message_search_vector_idx" ON "message" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "contact_search_text_trgm_idx" ON "contact" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "contact_channel_identifier_trgm_idx" ON "contact_channel" USING gin ("identifier" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "contact_channel_phone_digits_trgm_idx" ON "contact_channel" USING gin ("phone_digits" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "crm_group_search_text_trgm_idx" ON "crm_group" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "lead_search_text_trgm_idx" ON "lead" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "lead_phone_digits_trgm_idx" ON "lead" USING gin ("phone_digits" gin_trgm_ops);