-- pos is a message's place in its session: the order in which its
-- exchange was committed, question then answer. Sessions are listed and
-- paged by pos, not by created_at (when the question arrived): an
-- exchange asked earlier but answered later is committed after messages a
-- reader paging forward may already have passed, and ordered by date it
-- would land behind the reader's cursor, never to be seen.
--
-- Existing messages are numbered in the order they were listed until
-- now, (created_at, seq), so old sessions read as they did. The default
-- 0 only lets the column be added; every insert names its pos.
ALTER TABLE chat_messages ADD COLUMN pos INTEGER NOT NULL DEFAULT 0;

UPDATE chat_messages SET pos = numbered.pos
FROM (SELECT seq, row_number() OVER (PARTITION BY session_id ORDER BY created_at, seq) AS pos FROM chat_messages) AS numbered
WHERE chat_messages.seq = numbered.seq;

CREATE UNIQUE INDEX chat_messages_session_pos_idx ON chat_messages (session_id, pos);
