-- The grants version (grants_version, see grants-version.table.ts): one row, given a new random version by
-- every statement that changes what a permission resolution reads, in that statement's transaction, so the
-- guard's read of the version on the next request sees the change exactly when it sees the change itself.
-- Statement triggers: a bulk change replaces it once per statement; a statement that changes no row
-- replaces it too (harmless: the next request reads the subscriptions once more).
INSERT INTO grants_version (singleton) VALUES (true) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE FUNCTION grants_version_advance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE grants_version SET version = gen_random_uuid();
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER grants_version_subscription AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON subscription
  FOR EACH STATEMENT EXECUTE FUNCTION grants_version_advance();
--> statement-breakpoint
CREATE TRIGGER grants_version_subscription_override AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON subscription_override
  FOR EACH STATEMENT EXECUTE FUNCTION grants_version_advance();
--> statement-breakpoint
CREATE TRIGGER grants_version_role AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON role
  FOR EACH STATEMENT EXECUTE FUNCTION grants_version_advance();
--> statement-breakpoint
CREATE TRIGGER grants_version_role_permission AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON role_permission
  FOR EACH STATEMENT EXECUTE FUNCTION grants_version_advance();
