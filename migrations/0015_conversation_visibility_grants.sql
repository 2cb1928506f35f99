-- Conversation visibility (issue 30): roles that existed before `conversations.view_all` and
-- `conversations.reply_any` keep today's behaviour (every member sees and answers every conversation of
-- the entity). The catalogue rows are written here too, because the catalogue sync runs after migrating
-- and role_permission references permission(code); the sync then keeps their labels current.
INSERT INTO "permission" ("code", "module", "label") VALUES
  ('conversations.view_all', 'conversaciones', 'See every conversation of the entity'),
  ('conversations.reply_any', 'conversaciones', 'Answer any visible conversation, whoever it is assigned to')
ON CONFLICT ("code") DO NOTHING;
--> statement-breakpoint
INSERT INTO "role_permission" ("role_id", "permission_code")
SELECT r."id", c."code" FROM "role" r CROSS JOIN (VALUES ('conversations.view_all'), ('conversations.reply_any')) AS c("code")
ON CONFLICT DO NOTHING;
