CREATE INDEX "conversation_sender_name_trgm_idx" ON "conversation" USING gin ("sender_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "conversation_external_chat_id_trgm_idx" ON "conversation" USING gin ("external_chat_id" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "conversation_last_message_preview_trgm_idx" ON "conversation" USING gin ("last_message_preview" gin_trgm_ops);