-- The course report's sign-ins that signed out, each kept until it would
-- have ended: a copied cookie stays dead across restarts.
CREATE TABLE admin_signouts (
	nonce TEXT PRIMARY KEY,
	until TEXT NOT NULL
);
