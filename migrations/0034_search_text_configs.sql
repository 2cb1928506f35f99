-- Full-text search (issue 51, docs/decisions.md "Search"). unaccent is trusted since PostgreSQL 13, like pg_trgm
-- (migration 0011); PGlite loads both contrib builds in src/db/client.ts.
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
-- Text search configurations that fold accents before stemming: 'canción', 'cancion' and 'CANCIÓN' are one
-- lexeme, and ts_headline still marks the accented original. Used by the generated tsvector columns and the queries.
CREATE TEXT SEARCH CONFIGURATION crm_spanish (COPY = pg_catalog.spanish);--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION crm_spanish ALTER MAPPING FOR hword, hword_part, word WITH unaccent, spanish_stem;--> statement-breakpoint
CREATE TEXT SEARCH CONFIGURATION crm_english (COPY = pg_catalog.english);--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION crm_english ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;--> statement-breakpoint
CREATE TEXT SEARCH CONFIGURATION crm_simple (COPY = pg_catalog.simple);--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION crm_simple ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple;--> statement-breakpoint
-- unaccent(text) is only STABLE (it reads the search path for its dictionary): this wrapper names the dictionary
-- with its schema, so it is IMMUTABLE and may feed generated columns and indexes (the records' trigram texts).
CREATE FUNCTION search_unaccent(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, value) $$;--> statement-breakpoint
-- The digits of a phone in any format ('+502 5555-1234' → '50255551234'), for the records' phone columns.
CREATE FUNCTION search_digits(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$ SELECT nullif(regexp_replace(value, '[^0-9]', '', 'g'), '') $$;
