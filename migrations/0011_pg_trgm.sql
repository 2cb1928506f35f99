-- Trigram matching for the inbox search (`q`: sender name, chat id, last message preview): its GIN indexes
-- (next migration) let ILIKE '%text%' read an index instead of every conversation of the entity. pg_trgm is a
-- trusted extension (PostgreSQL 13+): the database owner may create it; PGlite loads it in src/db/client.ts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
