-- Readers' feedback on answers: one row per rated answer, replaced when
-- the reader changes their mind. A separate table, so that the messages'
-- table (and its writers) stay as they were.
CREATE TABLE message_feedback (
	message_id TEXT PRIMARY KEY REFERENCES chat_messages (id) ON DELETE CASCADE,
	rating     TEXT NOT NULL CHECK (rating IN ('helpful', 'not_helpful')),
	comment    TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);

-- The course report reads answers in a time range, page by page, keyed
-- by (created_at, seq).
CREATE INDEX chat_messages_answers_idx ON chat_messages (created_at, seq) WHERE role = 'assistant';
