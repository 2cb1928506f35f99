-- The audit trail's hash chain and its append-only guard (issue 54; docs/privacy.md "The audit trail").
--
-- audit_entry_hash(e): sha256 (hex) over the previous entry's hash and every field of the entry, written as a JSON
-- array (jsonb's text is one canonical form; the time as epoch microseconds, so the session's time zone never
-- changes it). verify (src/modules/audit) recomputes it.
CREATE FUNCTION audit_entry_hash(e audit_entry) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT encode(sha256(convert_to(jsonb_build_array(
    e.prev_hash, e.chain_key, e.seq, e.entity_id, (extract(epoch FROM e.occurred_at) * 1000000)::bigint,
    e.actor_kind, e.actor_user_id, e.actor_employee_id, e.actor_ref, e.action, e.target_type, e.target_id,
    e.diff, e.client_address, e.request_id)::text, 'UTF8')), 'hex')
$$;
--> statement-breakpoint
-- Each insert takes its chain's head row FOR UPDATE (so appends to one chain are serialised until the writer
-- commits), numbers the entry, links it to the head's hash, hashes it and moves the head. The application only
-- inserts; what it passes as seq, prev_hash or hash is overwritten.
CREATE FUNCTION audit_entry_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  head audit_chain_head%ROWTYPE;
BEGIN
  INSERT INTO audit_chain_head (chain_key, seq, hash) VALUES (NEW.chain_key, 0, '') ON CONFLICT (chain_key) DO NOTHING;
  SELECT * INTO head FROM audit_chain_head WHERE chain_key = NEW.chain_key FOR UPDATE;
  NEW.seq := head.seq + 1;
  NEW.prev_hash := head.hash;
  NEW.hash := audit_entry_hash(NEW);
  UPDATE audit_chain_head SET seq = NEW.seq, hash = NEW.hash WHERE chain_key = NEW.chain_key;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER audit_entry_chain BEFORE INSERT ON audit_entry FOR EACH ROW EXECUTE FUNCTION audit_entry_chain();
--> statement-breakpoint
-- Append-only: every UPDATE and TRUNCATE is refused, and every DELETE except one made by audit_prune below (the
-- call stack is read, so a session setting cannot open the door). The error is SQLSTATE 42501 (insufficient
-- privilege). On PostgreSQL deployments whose application role differs from the migrating role, also
-- REVOKE UPDATE, DELETE, TRUNCATE ON audit_entry, audit_chain_head FROM <application role> (docs/privacy.md).
CREATE FUNCTION audit_entry_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stack text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    GET DIAGNOSTICS stack = PG_CONTEXT;
    IF stack LIKE '%function audit_prune(%' THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'audit_entry is append-only: % refused', TG_OP USING ERRCODE = '42501';
END $$;
--> statement-breakpoint
CREATE TRIGGER audit_entry_append_only BEFORE UPDATE OR DELETE ON audit_entry FOR EACH ROW EXECUTE FUNCTION audit_entry_refuse();
--> statement-breakpoint
CREATE TRIGGER audit_entry_no_truncate BEFORE TRUNCATE ON audit_entry FOR EACH STATEMENT EXECUTE FUNCTION audit_entry_refuse();
--> statement-breakpoint
-- Retention (the audit.prune job): removes the chain's entries up to the last one that occurred before p_before,
-- oldest first and without holes, and records on the head where the chain now starts, so verify still checks
-- the first entry kept. SECURITY DEFINER: it runs as the migrating role, the one allowed to delete.
CREATE FUNCTION audit_prune(p_chain integer, p_before timestamptz) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  last_seq bigint;
  last_hash text;
  removed integer;
BEGIN
  SELECT seq, hash INTO last_seq, last_hash FROM audit_entry
   WHERE chain_key = p_chain AND occurred_at < p_before ORDER BY seq DESC LIMIT 1;
  IF last_seq IS NULL THEN
    RETURN 0;
  END IF;
  PERFORM 1 FROM audit_chain_head WHERE chain_key = p_chain FOR UPDATE;
  DELETE FROM audit_entry WHERE chain_key = p_chain AND seq <= last_seq;
  GET DIAGNOSTICS removed = ROW_COUNT;
  UPDATE audit_chain_head SET first_seq = last_seq + 1, first_prev_hash = last_hash WHERE chain_key = p_chain;
  RETURN removed;
END $$;
