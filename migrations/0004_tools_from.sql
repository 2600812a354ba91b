-- `tools_from:` (seed 002's explicit exports): modules whose exported
-- functions (TOOLS, else __all__) become tools at import.
-- The manifest's list, kept for export:
ALTER TABLE toolsets ADD COLUMN tools_from TEXT NOT NULL DEFAULT '[]';
-- The module a tool was exported by (NULL: declared one by one in `tools:`).
-- Such tools are resolved through the module's export table at call time
-- and are not written back as `tools:` entries on export.
ALTER TABLE tools ADD COLUMN exported_from TEXT;
