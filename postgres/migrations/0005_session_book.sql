-- book names the course a session belongs to: servers of several books
-- may share one database, and each sees only its own book's sessions,
-- messages and feedback. Sessions written before have no book ('') until
-- a server claims them (History.UseBook).
ALTER TABLE chat_sessions ADD COLUMN book TEXT NOT NULL DEFAULT '';

CREATE INDEX chat_sessions_book_idx ON chat_sessions (book, id);
