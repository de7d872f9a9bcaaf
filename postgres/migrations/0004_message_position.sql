-- pos is a message's place in its session: the order in which its
-- exchange was committed, question then answer. Sessions are listed and
-- paged by pos, not by created_at (when the question arrived) nor by seq
-- (taken from a sequence before the commit): an exchange asked earlier
-- but committed later would land behind a reader paging forward, never
-- to be seen. Writers of one session hold its row lock while they number
-- and insert, so pos order is commit order.
--
-- Existing messages are numbered in the order they were listed until
-- now, (created_at, seq), so old sessions read as they did.
ALTER TABLE chat_messages ADD COLUMN pos BIGINT NULL;

UPDATE chat_messages AS m SET pos = numbered.pos
FROM (SELECT id, row_number() OVER (PARTITION BY session_id ORDER BY created_at, seq) AS pos FROM chat_messages) AS numbered
WHERE m.id = numbered.id;

ALTER TABLE chat_messages ALTER COLUMN pos SET NOT NULL;

CREATE UNIQUE INDEX chat_messages_session_pos_idx ON chat_messages (session_id, pos);
