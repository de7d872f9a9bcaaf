-- Each answer names the question it answers: two questions asked at once
-- in one session are listed before either answer. Exchanges of a session
-- were always written question then answer under the session's lock, so
-- an existing answer's question is the last question of its session
-- inserted before it.
ALTER TABLE chat_messages ADD COLUMN question_id UUID NULL REFERENCES chat_messages (id) ON DELETE CASCADE;

UPDATE chat_messages AS a SET question_id = (
	SELECT q.id FROM chat_messages AS q
	WHERE q.session_id = a.session_id AND q.role = 'user' AND q.seq < a.seq
	ORDER BY q.seq DESC LIMIT 1
) WHERE a.role = 'assistant';

CREATE INDEX chat_messages_question_idx ON chat_messages (question_id);
