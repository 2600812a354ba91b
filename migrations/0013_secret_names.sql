-- The names of stored secrets, never their values (those live in the OS
-- keychain, or with the person's consent in a 0600 file): which owner
-- (`provider:<id>`, `toolset:<id>`, `mcp:<id>`) holds which key, and where.
-- A keychain cannot be listed portably; this index is what `secrets list`
-- shows.
CREATE TABLE secret_names (
    owner      TEXT NOT NULL,
    key        TEXT NOT NULL,
    store      TEXT NOT NULL CHECK (store IN ('keychain', 'file')),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (owner, key)
) STRICT;
