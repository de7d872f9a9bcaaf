-- Chat sessions and their messages. Times are UTC text in a fixed-width
-- RFC 3339 form (microseconds), so text order is time order.
CREATE TABLE chat_sessions (
	id         TEXT PRIMARY KEY,
	started_at TEXT NOT NULL,
	ended_at   TEXT NULL,
	created_at TEXT NOT NULL
);

-- seq is the insertion order: messages are listed by (created_at, seq), so
-- equal timestamps still come back in a stable order, question first.
CREATE TABLE chat_messages (
	seq            INTEGER PRIMARY KEY AUTOINCREMENT,
	id             TEXT NOT NULL UNIQUE,
	session_id     TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
	role           TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
	content        TEXT NOT NULL,
	sources        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(sources)),
	was_refusal    BOOLEAN NOT NULL DEFAULT 0 CHECK (was_refusal IN (0, 1)),
	refusal_reason TEXT NULL,
	created_at     TEXT NOT NULL
);

CREATE INDEX chat_messages_session_created_idx ON chat_messages (session_id, created_at, seq);
CREATE INDEX chat_messages_created_idx ON chat_messages (created_at);
