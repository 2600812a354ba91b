-- App-wide settings a person changes in the desktop app (or the CLI):
-- one row per key, the value as JSON. Unknown keys are kept, so an older
-- build never drops what a newer one wrote.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
