-- Chat sessions and their messages.
CREATE TABLE chat_sessions (
	id         UUID PRIMARY KEY,
	started_at TIMESTAMPTZ NOT NULL,
	ended_at   TIMESTAMPTZ NULL,
	created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- seq is the insertion order: messages are listed by (created_at, seq), so
-- equal timestamps still come back in a stable order, question first.
CREATE TABLE chat_messages (
	id             UUID PRIMARY KEY,
	seq            BIGSERIAL NOT NULL UNIQUE,
	session_id     UUID NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
	role           TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
	content        TEXT NOT NULL,
	sources        JSONB NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(sources) = 'array'),
	was_refusal    BOOLEAN NOT NULL DEFAULT false,
	refusal_reason TEXT NULL,
	created_at     TIMESTAMPTZ NOT NULL
);

CREATE INDEX chat_messages_session_created_idx ON chat_messages (session_id, created_at, seq);
CREATE INDEX chat_messages_created_idx ON chat_messages (created_at);
