// Package postgres stores chat history in PostgreSQL through pgx v5, with
// embedded migrations applied at Open under an advisory lock.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/textbook-rag/rag"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the pg_advisory_lock key that serializes migrations
// between instances starting together.
const migrationLock int64 = 0x7465_7874_626f_6f6b // "textbook"

// History is a rag.History in a PostgreSQL database.
type History struct {
	pool *pool
	// Now is the clock for times the caller leaves out; time.Now when nil.
	// Set it before use. Postgres keeps times to the microsecond.
	Now func() time.Time
	// MaxSessionMessages caps a session's length (0: no cap); set it
	// before use. AppendExchange counts under the session's row lock, so
	// concurrent writers, on any number of replicas, never take a session
	// past it.
	MaxSessionMessages int
	// Book names the course whose history this is (see UseBook): its
	// sessions, messages and feedback are the only ones written, read and
	// pruned, so books sharing a database stay apart. Set it before use.
	Book string
}

var _ rag.History = (*History)(nil)

// DefaultConnectTimeout bounds each new connection when the URL sets no
// connect_timeout: a server that accepts nothing would otherwise hold a
// caller until the operating system gives up.
const DefaultConnectTimeout = 10 * time.Second

// Open connects to databaseURL through a pgx pool and applies the
// migrations the database has not seen yet. The URL's pool_max_conns
// parameter bounds the number of connections (pgxpool's default: the
// larger of 4 and the number of CPUs).
func Open(ctx context.Context, databaseURL string) (*History, error) {
	p, err := connect(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	h := &History{pool: &pool{p: p}}
	if err := h.migrate(ctx); err != nil {
		h.Close()
		return nil, fmt.Errorf("open postgres history: %w", err)
	}
	return h, nil
}

// connect opens a pgx pool on databaseURL, with DefaultConnectTimeout
// unless the URL sets one.
func connect(ctx context.Context, databaseURL string) (*pgxpool.Pool, error) {
	config, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		// pgx keeps passwords out of its parse errors.
		return nil, fmt.Errorf("open postgres history: %w", err)
	}
	if config.ConnConfig.ConnectTimeout == 0 {
		config.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	p, err := pgxpool.NewWithConfig(ctx, config)
	if err != nil {
		return nil, fmt.Errorf("open postgres history: %w", err)
	}
	return p, nil
}

// ErrNoSchema is returned by OpenReader when the database does not hold
// the chat history's schema, or an older one: a server started on it
// creates or upgrades it.
var ErrNoSchema = errors.New("the database holds no chat history of this version: start `textbook-rag serve` with this database once to create it")

// OpenReader connects to databaseURL to read the history of book (see
// History.Book), writing nothing: it never migrates, and a database
// without the current schema is ErrNoSchema.
func OpenReader(ctx context.Context, databaseURL, book string) (*History, error) {
	p, err := connect(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	h := &History{pool: &pool{p: p}, Book: book}
	if err := h.checkSchema(ctx); err != nil {
		h.Close()
		return nil, fmt.Errorf("open postgres history: %w", err)
	}
	return h, nil
}

// checkSchema returns ErrNoSchema unless every embedded migration has
// been applied.
func (h *History) checkSchema(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	return h.pool.with(ctx, func(c *pgx.Conn) error {
		var table *string
		if err := c.QueryRow(ctx, "SELECT to_regclass('schema_migrations')::text").Scan(&table); err != nil {
			return err
		}
		if table == nil {
			return ErrNoSchema
		}
		var applied int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ANY($1)", versions(names)).Scan(&applied); err != nil {
			return err
		}
		if applied < len(names) {
			return ErrNoSchema
		}
		return newerSchema(ctx, c, names)
	})
}

// ErrNewerSchema is Open's refusal of a database that a newer binary has
// migrated: this one would start healthy, then fail on every write to a
// table it does not know the shape of.
var ErrNewerSchema = errors.New("the database's chat history schema is newer than this binary")

// newerSchema returns ErrNewerSchema, naming them, when schema_migrations
// lists migrations that are not among names (the embedded ones).
func newerSchema(ctx context.Context, c *pgx.Conn, names []string) error {
	rows, err := c.Query(ctx, "SELECT version FROM schema_migrations WHERE version <> ALL($1) ORDER BY version", versions(names))
	if err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	unknown, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%w: it has migrations this binary does not know (%s), applied by a newer textbook-rag: run that version or a newer one", ErrNewerSchema, strings.Join(unknown, ", "))
	}
	return nil
}

func versions(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimSuffix(strings.TrimPrefix(n, "migrations/"), ".sql")
	}
	return out
}

// migrate applies, in name order, each embedded migration that
// schema_migrations does not list, each in its own transaction together
// with its schema_migrations row, all under a session advisory lock.
func (h *History) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	return h.pool.with(ctx, func(c *pgx.Conn) error {
		if _, err := c.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
			return fmt.Errorf("migrate: take the migration lock: %w", err)
		}
		defer func() {
			uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := c.Exec(uctx, "SELECT pg_advisory_unlock($1)", migrationLock); err != nil {
				// Ending the session releases the lock.
				c.Close(uctx)
			}
		}()
		if _, err := c.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    TEXT PRIMARY KEY,
	applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if err := newerSchema(ctx, c, names); err != nil {
			return err
		}
		for _, name := range names {
			body, err := migrations.ReadFile(name)
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			version := strings.TrimSuffix(strings.TrimPrefix(name, "migrations/"), ".sql")
			err = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
				var applied bool
				if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)", version).Scan(&applied); err != nil || applied {
					return err
				}
				// No arguments: the simple protocol, which runs every statement.
				if _, err := tx.Exec(ctx, string(body)); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version) VALUES ($1)", version)
				return err
			})
			if err != nil {
				return fmt.Errorf("migrate %s: %w", version, err)
			}
		}
		return nil
	})
}

func (h *History) now() time.Time {
	if h.Now != nil {
		return h.Now().UTC()
	}
	return time.Now().UTC()
}

// lockSession makes sure book has the session its readers call sid,
// locks its row to the transaction's end and returns the row's id: sid
// itself, unless another book's session held that id when this one
// began, then a random one. A session id is thus a key within its book
// only: no book's readers learn which ids another book uses.
func lockSession(ctx context.Context, tx pgx.Tx, sid, book string, started, created time.Time) (string, error) {
	for _, id := range []string{sid, uuid.NewString()} {
		if _, err := tx.Exec(ctx, `INSERT INTO chat_sessions (id, client_id, book, started_at, created_at) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT DO NOTHING`, id, sid, book, started, created); err != nil {
			return "", fmt.Errorf("ensure session: %w", err)
		}
		var row string
		err := tx.QueryRow(ctx, "SELECT id::text FROM chat_sessions WHERE book = $1 AND client_id = $2 FOR UPDATE", book, sid).Scan(&row)
		if err == nil {
			return row, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return "", fmt.Errorf("lock session: %w", err)
		}
	}
	return "", fmt.Errorf("lock session: no row for %s", sid)
}

// rowID returns the row id of the book's session sid; an ENOTFOUND
// *rag.Error when the book has none.
func (h *History) rowID(ctx context.Context, c *pgx.Conn, sid string) (string, error) {
	var row string
	err := c.QueryRow(ctx, "SELECT id::text FROM chat_sessions WHERE book = $1 AND client_id = $2", h.Book, sid).Scan(&row)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", notFound(sid)
	}
	return row, err
}

// UseBook makes the history book's (see Book) and gives book the
// sessions written before sessions had a book: a database that served one
// course keeps its history when its server starts keying by book.
func (h *History) UseBook(ctx context.Context, book string) error {
	h.Book = book
	if book == "" {
		return nil
	}
	err := h.pool.with(ctx, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, `UPDATE chat_sessions AS s SET book = $1 WHERE book = ''
	AND NOT EXISTS (SELECT 1 FROM chat_sessions AS o WHERE o.book = $1 AND o.client_id = s.client_id)`, book)
		return err
	})
	if err != nil {
		return fmt.Errorf("claim the sessions without a book: %w", err)
	}
	return nil
}

// notFound is the error for a session that is not the book's.
func notFound(sid string) error {
	return rag.Errorf(rag.ENOTFOUND, "session %s not found", sid)
}

// AppendExchange writes the question and its answer in one transaction,
// creating the session if needed: both messages or neither. Bad input is
// an EINVALID *rag.Error and writes nothing.
func (h *History) AppendExchange(ctx context.Context, sessionID string, question, answer rag.Message) error {
	sid, rows, err := rag.PrepareExchange(sessionID, question, answer, h.now)
	if err != nil {
		return err
	}
	max := h.MaxSessionMessages
	err = h.pool.with(ctx, func(c *pgx.Conn) error {
		return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
			// A session first seen here started when its first question
			// was asked. Exchanges of one session are written one at a
			// time, under the session's row lock, held to the commit: the
			// places (pos) they take follow the commits, and a reader
			// paging forward never finds a message committed behind its
			// cursor.
			row, err := lockSession(ctx, tx, sid, h.Book, rows[0].CreatedAt, h.now().Truncate(time.Microsecond))
			if err != nil {
				return err
			}
			if max > 0 {
				var n int
				if err := tx.QueryRow(ctx, countSessionSQL, row).Scan(&n); err != nil {
					return fmt.Errorf("count session: %w", err)
				}
				if n+2 > max {
					return rag.SessionFull(max)
				}
			}
			var pos int64
			if err := tx.QueryRow(ctx, `SELECT coalesce(max(pos), 0) FROM chat_messages WHERE session_id = $1`, row).Scan(&pos); err != nil {
				return fmt.Errorf("place in session: %w", err)
			}
			for i, r := range rows {
				if _, err := tx.Exec(ctx, `INSERT INTO chat_messages
	(id, session_id, role, content, sources, was_refusal, refusal_reason, question_id, created_at, pos)
VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, $7, $8, $9, $10)`,
					r.ID, row, r.Role, r.Content, r.Sources, r.WasRefusal, r.RefusalReason, r.QuestionID, r.CreatedAt, pos+1+int64(i)); err != nil {
					return fmt.Errorf("insert %s message %s: %w", r.Role, r.ID, err)
				}
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("append exchange %s: %w", sid, err)
	}
	return nil
}

// Messages returns the session's messages, oldest first; an ENOTFOUND
// *rag.Error when the session does not exist.
func (h *History) Messages(ctx context.Context, sessionID string) ([]rag.Message, error) {
	sid, err := rag.SessionUUID(sessionID)
	if err != nil {
		return nil, err
	}
	var msgs []rag.Message
	err = h.pool.with(ctx, func(c *pgx.Conn) error {
		row, err := h.rowID(ctx, c, sid)
		if err != nil {
			return err
		}
		rows, err := c.Query(ctx, `SELECT `+messageColumns+`
FROM chat_messages WHERE session_id = $1 ORDER BY pos`, row)
		if err != nil {
			return err
		}
		msgs, err = scanMessages(rows, sid, 0)
		return err
	})
	if err != nil {
		if rag.ErrorCode(err) == rag.ENOTFOUND {
			return nil, err
		}
		return nil, fmt.Errorf("messages of session %s: %w", sid, err)
	}
	return msgs, nil
}

// messageColumns are the columns scanMessages reads, in its order.
const messageColumns = `id::text, role, content, sources::text, was_refusal, refusal_reason, question_id::text, created_at`

// scanMessages reads and closes rows of messageColumns.
func scanMessages(rows pgx.Rows, sid string, size int) ([]rag.Message, error) {
	defer rows.Close()
	return rag.ScanMessages(sid, size, rows.Next, rows.Err, func(m *rag.Message) (sources string, reason *string, err error) {
		var qid *string
		if err := rows.Scan(&m.ID, &m.Role, &m.Content, &sources, &m.WasRefusal, &reason, &qid, &m.CreatedAt); err != nil {
			return "", nil, err
		}
		if qid != nil {
			m.QuestionID = *qid
		}
		m.CreatedAt = m.CreatedAt.UTC()
		return sources, reason, nil
	})
}

// MessagesPage reads one page of the session's messages as a range of the
// (session_id, pos) index with a LIMIT: memory and time stay bounded
// however long the session grows. A cursor is a message of the session,
// whose place (pos) is the page's key. Places are given in commit order,
// so a reader paging forward while the session grows sees each message
// once: nothing is committed behind its cursor.
func (h *History) MessagesPage(ctx context.Context, sessionID string, q rag.PageQuery) (rag.MessagePage, error) {
	sid, err := rag.CheckPage(sessionID, q)
	if err != nil {
		return rag.MessagePage{}, err
	}
	var page rag.MessagePage
	err = h.pool.with(ctx, func(c *pgx.Conn) error {
		row, err := h.rowID(ctx, c, sid)
		if err != nil {
			return err
		}
		page, err = messagesPage(ctx, c, row, sid, q)
		return err
	})
	if err != nil {
		return rag.MessagePage{}, rag.StoreError(err, "messages page of session %s", sid)
	}
	return page, nil
}

// messagesPage reads a page of the session whose row id is row and which
// its readers call sid.
func messagesPage(ctx context.Context, c *pgx.Conn, row, sid string, q rag.PageQuery) (rag.MessagePage, error) {
	field, cursor := q.Cursor()
	var (
		rows pgx.Rows
		err  error
	)
	if cursor == "" {
		rows, err = c.Query(ctx, `SELECT `+messageColumns+`
FROM chat_messages WHERE session_id = $1 ORDER BY pos DESC LIMIT $2`, row, q.Limit+1)
	} else {
		id, _ := rag.ParseUUID(cursor)
		var pos int64
		err := c.QueryRow(ctx, "SELECT pos FROM chat_messages WHERE id = $1 AND session_id = $2", id, row).Scan(&pos)
		if errors.Is(err, pgx.ErrNoRows) {
			return rag.MessagePage{}, rag.CursorNotInSession(field, sid)
		}
		if err != nil {
			return rag.MessagePage{}, err
		}
		if q.Before != "" {
			rows, err = c.Query(ctx, `SELECT `+messageColumns+`
FROM chat_messages WHERE session_id = $1 AND pos < $2
ORDER BY pos DESC LIMIT $3`, row, pos, q.Limit+1)
		} else {
			rows, err = c.Query(ctx, `SELECT `+messageColumns+`
FROM chat_messages WHERE session_id = $1 AND pos > $2
ORDER BY pos LIMIT $3`, row, pos, q.Limit+1)
		}
	}
	if err != nil {
		return rag.MessagePage{}, err
	}
	msgs, err := scanMessages(rows, sid, q.Limit+1)
	if err != nil {
		return rag.MessagePage{}, err
	}
	return rag.TrimPage(msgs, q), nil
}

const countSessionSQL = `SELECT count(*) FROM chat_messages WHERE session_id = $1`

// CheckSessionRoom returns an ESESSIONFULL *rag.Error when the session
// has no room for one more exchange under MaxSessionMessages.
func (h *History) CheckSessionRoom(ctx context.Context, sessionID string) error {
	sid, err := rag.SessionUUID(sessionID)
	if err != nil {
		return err
	}
	max := h.MaxSessionMessages
	if max <= 0 {
		return nil
	}
	var n int
	err = h.pool.with(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT count(*) FROM chat_messages AS m
JOIN chat_sessions AS s ON s.id = m.session_id WHERE s.book = $1 AND s.client_id = $2`, h.Book, sid).Scan(&n)
	})
	if err != nil {
		return fmt.Errorf("count session %s: %w", sid, err)
	}
	if n+2 > max {
		return rag.SessionFull(max)
	}
	return nil
}

// pruneBatch bounds the sessions deleted per transaction.
const pruneBatch = 500

var _ rag.HistoryPruner = (*History)(nil)

// DeleteSessionsBefore deletes the book's sessions with no message since before,
// their messages with them (ON DELETE CASCADE), in batches.
func (h *History) DeleteSessionsBefore(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for {
		var n int64
		err := h.pool.with(ctx, func(c *pgx.Conn) error {
			tag, err := c.Exec(ctx, `DELETE FROM chat_sessions WHERE id IN (
	SELECT s.id FROM chat_sessions AS s
	WHERE s.started_at < $1 AND s.book = $3
	  AND NOT EXISTS (SELECT 1 FROM chat_messages AS m WHERE m.session_id = s.id AND m.created_at >= $1)
	LIMIT $2)`, before, pruneBatch, h.Book)
			n = tag.RowsAffected()
			return err
		})
		if err != nil {
			return total, fmt.Errorf("delete sessions before %s: %w", before.UTC().Format(time.RFC3339), err)
		}
		total += int(n)
		if n < pruneBatch {
			return total, nil
		}
	}
}

// Ping checks that the database answers.
func (h *History) Ping(ctx context.Context) error {
	if err := h.pool.with(ctx, func(c *pgx.Conn) error { return c.Ping(ctx) }); err != nil {
		return fmt.Errorf("ping postgres history: %w", err)
	}
	return nil
}

// Close closes the connections.
func (h *History) Close() error {
	h.pool.close()
	return nil
}
