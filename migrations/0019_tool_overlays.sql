-- A `tools:` entry without `entrypoint` adds to a tool a `tools_from:`
-- module exports (a name, a renderer, `requires_confirmation`…). The
-- exported tool's row keeps that entry as written (JSON of the manifest's
-- tool declaration), so an export writes it back; NULL for every other row.
ALTER TABLE tools ADD COLUMN overlay TEXT;
