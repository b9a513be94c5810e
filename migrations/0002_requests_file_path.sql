-- The file behind a journaled request: the file mock that answered it (answered_by = 'file'), or
-- the file record mode wrote from the upstream's answer (answered_by = 'redirect' or 'proxy').
-- Absolute path with symlinks resolved; NULL otherwise. Rules: docs/files.md.
ALTER TABLE requests ADD COLUMN file_path TEXT;
