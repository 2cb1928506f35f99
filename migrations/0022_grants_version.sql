CREATE TABLE "grants_version" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"version" uuid DEFAULT gen_random_uuid() NOT NULL,
	CONSTRAINT "grants_version_singleton" CHECK ("grants_version"."singleton")
);
