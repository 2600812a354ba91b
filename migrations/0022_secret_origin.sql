-- Where a stored secret's value came from: typed by the person (`person`:
-- the toolset's details, `atelier secrets set`, a provider's key, a sign-in)
-- or brought by a toolset ZIP and moved to the secret store when it was
-- imported (`bundle`). The toolset's details say which, and removing a
-- value the bundle brought warns that only installing the toolset again
-- puts it back. The next write of a value sets it again: a bundle import's
-- move says `bundle`, anything the person does says `person`.
--
-- Rows from before this become `person`: nothing recorded which of them a
-- bundle brought, and guessing `bundle` would tell a person their own value
-- comes back by reinstalling when it does not. `person` only drops a
-- warning for a value that had one; an upgrade that brings the value again
-- records `bundle` then.
ALTER TABLE secret_names
    ADD COLUMN origin TEXT NOT NULL DEFAULT 'person' CHECK (origin IN ('person', 'bundle'));
