-- The course report's sign-ins that signed out, each kept until it would
-- have ended: a copied cookie stays dead across restarts and on every
-- replica. Nonces are random, so books sharing the database share it.
CREATE TABLE admin_signouts (
	nonce TEXT PRIMARY KEY,
	until TIMESTAMPTZ NOT NULL
);
