-- client_id is the session id a reader sends, unique within a book: books
-- sharing the database may each hold a session of one client id, and
-- neither learns that the other has it. id stays the row's key, which
-- messages reference: the client id itself unless another book's session
-- already held that id when the session began.
ALTER TABLE chat_sessions ADD COLUMN client_id UUID NULL;

UPDATE chat_sessions SET client_id = id;

ALTER TABLE chat_sessions ALTER COLUMN client_id SET NOT NULL;

CREATE UNIQUE INDEX chat_sessions_book_client_idx ON chat_sessions (book, client_id);
