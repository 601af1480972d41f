// pg_trgm, which the documents' and the keys' searches are indexed by when it is there.

/**
 * PL/pgSQL statements that create pg_trgm when the role may (PostgreSQL 13 and later trust it to any role
 * that may create in the database; before, a superuser), in `public` where it can go, so that a schema
 * dropped never takes it with it; without it, nothing fails and searches read rows instead.
 */
export const CREATE_TRIGRAMS = `IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    BEGIN
      CREATE EXTENSION pg_trgm SCHEMA public;
    EXCEPTION WHEN OTHERS THEN
      BEGIN
        CREATE EXTENSION pg_trgm;
      EXCEPTION WHEN OTHERS THEN
        NULL;
      END;
    END;
  END IF;`;

/** The schema of pg_trgm (a row, `schema`), or no row when it is not installed. */
export const TRIGRAM_SCHEMA =
  "SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'";
