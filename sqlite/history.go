// Package sqlite stores chat history in a SQLite file with the pure Go
// driver modernc.org/sqlite: WAL journal, foreign keys on, a busy timeout,
// write transactions that take the write lock at BEGIN, and embedded
// migrations applied at Open.
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/textbook-rag/rag"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrations embed.FS

// busyTimeout is how long a connection waits for another's lock.
const busyTimeout = 10 * time.Second

// timeFormat stores UTC times as fixed-width text, so that text order is
// time order.
const timeFormat = "2006-01-02T15:04:05.000000Z"

// History is a rag.History in a SQLite database file.
//
// SQLite has one writer at a time, and each commit costs a write to the
// log, so exchanges are written by one goroutine that commits all the
// exchanges waiting at that moment in a single transaction (group
// commit). An exchange is still written whole or not at all, and a bad
// one does not take its neighbours down (see commit).
type History struct {
	db   *sql.DB
	path string
	// Now is the clock for times the caller leaves out; time.Now when nil.
	// Set it before use. Times are stored in UTC to the microsecond.
	Now func() time.Time
	// MaxSessionMessages caps a session's length (0: no cap); set it
	// before use. The writer checks it in the transaction that would add
	// the exchange, and there is one writer, so concurrent requests never
	// take a session past it.
	MaxSessionMessages int

	// The writer's statements, prepared once.
	insertSession, countSession, lastPos, insertExchange *sql.Stmt

	writes    chan *writeReq
	stop      chan struct{}
	stopped   chan struct{}
	closeOnce sync.Once
	closed    atomic.Bool
}

// writeReq is one exchange waiting for the writer.
type writeReq struct {
	sid  string
	rows [2]rag.StoredMessage
	max  int        // the session's cap when the exchange was queued
	done chan error // buffered: the writer never waits for the caller
	// full is the ESESSIONFULL error when the session had no room in the
	// last transaction that tried the exchange.
	full error
	// state moves from queued to taken (by the writer, once its
	// transaction holds the write lock) or to abandoned (by a caller whose
	// context ended first), never both: an abandoned exchange is never
	// written.
	state atomic.Int32
}

const (
	queued int32 = iota
	taken
	abandoned
)

// maxBatch bounds the exchanges committed together.
const maxBatch = 64

// errClosed is returned after Close.
var errClosed = errors.New("sqlite history is closed")

var _ rag.History = (*History)(nil)

// Open opens (creating if needed) the database file at path and applies
// the migrations it has not seen yet.
func Open(ctx context.Context, path string) (*History, error) {
	if path == "" || strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("open sqlite history: invalid path %q", path)
	}
	// SQLite's own message for these is "unable to open database file".
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		what := "not a regular file"
		if fi.IsDir() {
			what = "a directory"
		}
		return nil, fmt.Errorf("open sqlite history %s: the path is %s", path, what)
	}
	// temp_store(memory): the statement journal that lets a two-row
	// insert roll back alone lives in memory, not in a temporary file
	// written on every exchange; a crash needs only the WAL.
	dsn := path + "?_busy_timeout=" + fmt.Sprint(busyTimeout.Milliseconds()) +
		"&_foreign_keys=1&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate&_pragma=temp_store(memory)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite history %s: %w", path, err)
	}
	h := &History{db: db, path: path, writes: make(chan *writeReq, maxBatch), stop: make(chan struct{}), stopped: make(chan struct{})}
	// Switching a new file to WAL needs an exclusive lock, and SQLite
	// answers BUSY there without waiting: processes opening the same file
	// at once retry.
	err = h.init(ctx)
	for try := 1; isBusy(err) && try <= 5; try++ {
		select {
		case <-time.After(time.Duration(try*20) * time.Millisecond):
		case <-ctx.Done():
		}
		err = h.init(ctx)
	}
	if err == nil {
		h.insertSession, err = db.PrepareContext(ctx, insertSessionSQL)
	}
	if err == nil {
		h.insertExchange, err = db.PrepareContext(ctx, insertExchangeSQL)
	}
	if err == nil {
		h.countSession, err = db.PrepareContext(ctx, countSessionSQL)
	}
	if err == nil {
		h.lastPos, err = db.PrepareContext(ctx, lastPosSQL)
	}
	if err != nil {
		db.Close()
		if diskFull(path, err) {
			return nil, fmt.Errorf("open sqlite history %s: the disk is full; free some space and start again: %w", path, err)
		}
		return nil, fmt.Errorf("open sqlite history %s: %w", path, err)
	}
	go h.writer()
	return h, nil
}

// isBusy reports SQLite's SQLITE_BUSY (also its extended codes).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// writer commits waiting exchanges in batches until Close, then drains
// what is still queued.
func (h *History) writer() {
	defer close(h.stopped)
	for {
		select {
		case r := <-h.writes:
			h.commit(h.batch(r))
		case <-h.stop:
			for {
				select {
				case r := <-h.writes:
					h.commit(h.batch(r))
				default:
					return
				}
			}
		}
	}
}

// linger is how long the writer waits for more exchanges once it has
// seen two at once: under load, a commit costs about as much as the
// inserts of several exchanges, so fewer, larger commits serve more
// readers. A lone exchange is written at once.
const linger = 300 * time.Microsecond

// batch collects the exchanges queued with first, up to maxBatch. Before
// it looks, the writer lets the other runnable goroutines run: on
// a busy core, the handlers about to queue an exchange get to queue it,
// so one commit takes ten exchanges where it took one or two (measured on
// one CPU, 16 requests in flight). With nothing else to run it goes on at
// once, so a lone exchange does not wait.
func (h *History) batch(first *writeReq) []*writeReq {
	runtime.Gosched()
	batch := []*writeReq{first}
	var wait <-chan time.Time
	for len(batch) < maxBatch {
		select {
		case r := <-h.writes:
			batch = append(batch, r)
			continue
		default:
		}
		if len(batch) < 2 {
			return batch
		}
		if wait == nil {
			wait = time.After(linger)
		}
		select {
		case r := <-h.writes:
			batch = append(batch, r)
		case <-wait:
			return batch
		}
	}
	return batch
}

// commit writes a batch in one transaction. Exchanges are checked before
// they are queued, so a batch nearly always goes in whole; when an insert
// fails anyway (a reused message id), the batch is rolled back and each
// exchange is written in a transaction of its own, so that a bad one does
// not take its neighbours down. Exchanges are taken only once the
// transaction holds SQLite's write lock, which may mean waiting for
// another process: one whose caller gave up by then is not written.
func (h *History) commit(batch []*writeReq) {
	ctx := context.Background()
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		for _, r := range batch {
			r.done <- err
		}
		return
	}
	var live []*writeReq
	for _, r := range batch {
		if r.state.CompareAndSwap(queued, taken) {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		tx.Rollback()
		return
	}
	err = h.insert(ctx, tx, live)
	if err == nil || len(live) == 1 {
		for _, r := range live {
			r.done <- cmp.Or(err, r.full)
		}
		return
	}
	for _, r := range live {
		tx, err := h.db.BeginTx(ctx, nil)
		if err == nil {
			err = h.insert(ctx, tx, []*writeReq{r})
		}
		r.done <- cmp.Or(err, r.full)
	}
}

// insert writes the exchanges in tx and commits: all or none.
func (h *History) insert(ctx context.Context, tx *sql.Tx, reqs []*writeReq) error {
	defer tx.Rollback()
	session := tx.StmtContext(ctx, h.insertSession)
	exchange := tx.StmtContext(ctx, h.insertExchange)
	counter := tx.StmtContext(ctx, h.countSession)
	last := tx.StmtContext(ctx, h.lastPos)
	for _, r := range reqs {
		r.full = nil
		if r.max > 0 && r.max < 2 {
			r.full = rag.SessionFull(r.max) // not even one exchange fits
			continue
		}
		// A session first seen here started when its first question was asked.
		res, err := session.ExecContext(ctx, r.sid, formatTime(r.rows[0].CreatedAt), formatTime(h.now()))
		if err != nil {
			return fmt.Errorf("ensure session: %w", err)
		}
		// A session this transaction created holds no message yet: it has
		// room, and its last place is 0, without asking.
		var pos int64
		if created, err := res.RowsAffected(); err != nil || created != 1 {
			if r.max > 0 {
				var n int
				if err := counter.QueryRowContext(ctx, r.sid).Scan(&n); err != nil {
					return fmt.Errorf("count session %s: %w", r.sid, err)
				}
				if n+2 > r.max {
					// Refused alone: the batch's other exchanges go on.
					r.full = rag.SessionFull(r.max)
					continue
				}
			}
			if err := last.QueryRowContext(ctx, r.sid).Scan(&pos); err != nil {
				return fmt.Errorf("place in session: %w", err)
			}
		}
		if err := h.appendRows(ctx, exchange, r.sid, r.rows, pos); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (h *History) init(ctx context.Context) error {
	// One connection: a new file's auto_vacuum is set on the connection
	// that creates its first table.
	conn, err := h.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, not wal", mode)
	}
	var fk int
	if err := conn.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return err
	}
	if fk != 1 {
		return errors.New("foreign keys are off")
	}
	// Only a file without tables takes auto_vacuum (an existing one needs
	// a VACUUM, see the README); it lets retention give deleted rows'
	// space back. Not in the DSN: setting it on every new connection
	// needs the write lock, which another process may hold.
	var tables int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
		return err
	}
	if tables == 0 {
		// The WAL switch has written the file's first page already: the
		// VACUUM (of an empty file) is what applies the setting.
		if _, err := conn.ExecContext(ctx, "PRAGMA auto_vacuum = INCREMENTAL"); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, "VACUUM"); err != nil {
			return err
		}
	}
	return migrate(ctx, conn)
}

// dbConn is what migrations need of a connection or a pool.
type dbConn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// migrate applies, in name order, each embedded migration that
// schema_migrations does not list, each in its own transaction together
// with its schema_migrations row. A write transaction holds SQLite's
// write lock from BEGIN, so two processes opening the file at once apply
// each migration once.
func migrate(ctx context.Context, db dbConn) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    TEXT PRIMARY KEY,
	applied_at TEXT NOT NULL
)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	if err := newerSchema(ctx, db, names); err != nil {
		return err
	}
	for _, name := range names {
		body, err := migrations.ReadFile(name)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		version := strings.TrimSuffix(strings.TrimPrefix(name, "migrations/"), ".sql")
		if err := applyMigration(ctx, db, version, string(body)); err != nil {
			return fmt.Errorf("migrate %s: %w", version, err)
		}
	}
	return nil
}

// ErrNewerSchema is Open's refusal of a history file that a newer binary
// has migrated: this one would open it, then fail on every write to a
// table it does not know the shape of.
var ErrNewerSchema = errors.New("the history file's schema is newer than this binary")

// newerSchema returns ErrNewerSchema, naming them, when schema_migrations
// lists migrations that are not among names (the embedded ones).
func newerSchema(ctx context.Context, db dbConn, names []string) error {
	known := map[string]bool{}
	for _, n := range names {
		known[strings.TrimSuffix(strings.TrimPrefix(n, "migrations/"), ".sql")] = true
	}
	rows, err := db.QueryContext(ctx, "SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	var unknown []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		if !known[v] {
			unknown = append(unknown, v)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%w: it has migrations this binary does not know (%s), applied by a newer textbook-rag: run that version or a newer one", ErrNewerSchema, strings.Join(unknown, ", "))
	}
	return nil
}

func applyMigration(ctx context.Context, db dbConn, version, body string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
		version, time.Now().UTC().Format(timeFormat)); err != nil {
		return err
	}
	return tx.Commit()
}

func (h *History) now() time.Time {
	if h.Now != nil {
		return h.Now().UTC()
	}
	return time.Now().UTC()
}

func formatTime(t time.Time) string {
	return t.UTC().Truncate(time.Microsecond).Format(timeFormat)
}

// AppendExchange writes the question and its answer in one transaction,
// creating the session if needed: both messages or neither. Bad input is
// an EINVALID *rag.Error and writes nothing.
func (h *History) AppendExchange(ctx context.Context, sessionID string, question, answer rag.Message) error {
	sid, rows, err := rag.PrepareExchange(sessionID, question, answer, h.now)
	if err != nil {
		return err
	}
	if h.closed.Load() {
		return fmt.Errorf("append exchange %s: %w", sid, errClosed)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append exchange %s: %w", sid, err)
	}
	req := &writeReq{sid: sid, rows: rows, max: h.MaxSessionMessages, done: make(chan error, 1)}
	select {
	case h.writes <- req:
	case <-ctx.Done():
		return fmt.Errorf("append exchange %s: %w", sid, ctx.Err())
	case <-h.stopped:
		return fmt.Errorf("append exchange %s: %w", sid, errClosed)
	}
	// When ctx ends first (a deadline, a client gone), the exchange is
	// abandoned if the writer has not taken it: it will not be written.
	// If it was taken, it is written whole or not at all, and the caller
	// still learns only that it gave up.
	select {
	case err = <-req.done:
	case <-ctx.Done():
		select {
		case err = <-req.done:
		default:
			if req.state.CompareAndSwap(queued, abandoned) {
				err = fmt.Errorf("%w (not written)", ctx.Err())
			} else {
				err = fmt.Errorf("%w (its write had begun)", ctx.Err())
			}
		}
	case <-h.stopped:
		// Close raced with this request: it was written or it never will be.
		select {
		case err = <-req.done:
		default:
			err = errClosed
		}
	}
	if err != nil {
		return fmt.Errorf("append exchange %s: %w", sid, h.noSpace(err))
	}
	return nil
}

const (
	countSessionSQL  = `SELECT count(*) FROM chat_messages WHERE session_id = ?`
	insertSessionSQL = `INSERT INTO chat_sessions (id, started_at, created_at) VALUES (?, ?, ?)
ON CONFLICT (id) DO NOTHING`
	// The session's last place (0 when it has none); read in the write
	// transaction, which holds SQLite's one write lock, so the places
	// follow the commits.
	lastPosSQL = `SELECT coalesce(max(pos), 0) FROM chat_messages WHERE session_id = ?`
	// Both messages of an exchange in one statement, question first.
	insertExchangeSQL = `INSERT INTO chat_messages
	(id, session_id, role, content, sources, was_refusal, refusal_reason, question_id, created_at, pos)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// appendRows writes an exchange in the write transaction of its
// statement: the question and the answer take the places after pos, the
// session's last.
func (h *History) appendRows(ctx context.Context, exchange *sql.Stmt, sid string, rows [2]rag.StoredMessage, pos int64) error {
	args := make([]any, 0, 20)
	for i, r := range rows {
		args = append(args, r.ID, sid, r.Role, r.Content, r.Sources, r.WasRefusal, r.RefusalReason, r.QuestionID, formatTime(r.CreatedAt), pos+1+int64(i))
	}
	if _, err := exchange.ExecContext(ctx, args...); err != nil {
		return fmt.Errorf("insert messages %s, %s: %w", rows[0].ID, rows[1].ID, err)
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
	msgs, err := h.messages(ctx, sid)
	if err != nil {
		return nil, fmt.Errorf("messages of session %s: %w", sid, err)
	}
	if len(msgs) > 0 {
		return msgs, nil
	}
	var n int
	if err := h.db.QueryRowContext(ctx, "SELECT count(*) FROM chat_sessions WHERE id = ?", sid).Scan(&n); err != nil {
		return nil, fmt.Errorf("messages of session %s: %w", sid, err)
	}
	if n == 0 {
		return nil, rag.Errorf(rag.ENOTFOUND, "session %s not found", sid)
	}
	return msgs, nil
}

func (h *History) messages(ctx context.Context, sid string) ([]rag.Message, error) {
	rows, err := h.db.QueryContext(ctx, `SELECT `+messageColumns+`
FROM chat_messages WHERE session_id = ? ORDER BY pos`, sid)
	if err != nil {
		return nil, err
	}
	return scanMessages(rows, sid, 0)
}

// messageColumns are the columns scanMessages reads, in its order.
const messageColumns = `id, role, content, sources, was_refusal, refusal_reason, question_id, created_at`

// scanMessages reads and closes rows of messageColumns.
func scanMessages(rows *sql.Rows, sid string, size int) ([]rag.Message, error) {
	defer rows.Close()
	return rag.ScanMessages(sid, size, rows.Next, rows.Err, func(m *rag.Message) (sources string, reason *string, err error) {
		var refusal, qid sql.NullString
		var created string
		if err := rows.Scan(&m.ID, &m.Role, &m.Content, &sources, &m.WasRefusal, &refusal, &qid, &created); err != nil {
			return "", nil, err
		}
		m.QuestionID = qid.String
		if refusal.Valid {
			reason = &refusal.String
		}
		if m.CreatedAt, err = time.Parse(time.RFC3339Nano, created); err != nil {
			return "", nil, fmt.Errorf("message %s created_at: %w", m.ID, err)
		}
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
	page, err := h.messagesPage(ctx, sid, q)
	if err != nil {
		return rag.MessagePage{}, rag.StoreError(err, "messages page of session %s", sid)
	}
	return page, nil
}

func (h *History) messagesPage(ctx context.Context, sid string, q rag.PageQuery) (rag.MessagePage, error) {
	field, cursor := q.Cursor()
	var (
		rows *sql.Rows
		err  error
	)
	if cursor == "" {
		rows, err = h.db.QueryContext(ctx, `SELECT `+messageColumns+`
FROM chat_messages WHERE session_id = ? ORDER BY pos DESC LIMIT ?`, sid, q.Limit+1)
	} else {
		id, _ := rag.ParseUUID(cursor)
		var pos int64
		err := h.db.QueryRowContext(ctx, "SELECT pos FROM chat_messages WHERE id = ? AND session_id = ?", id, sid).Scan(&pos)
		if errors.Is(err, sql.ErrNoRows) {
			if err := h.sessionExists(ctx, sid); err != nil {
				return rag.MessagePage{}, err
			}
			return rag.MessagePage{}, rag.CursorNotInSession(field, sid)
		}
		if err != nil {
			return rag.MessagePage{}, err
		}
		if q.Before != "" {
			rows, err = h.db.QueryContext(ctx, `SELECT `+messageColumns+`
FROM chat_messages WHERE session_id = ? AND pos < ?
ORDER BY pos DESC LIMIT ?`, sid, pos, q.Limit+1)
		} else {
			rows, err = h.db.QueryContext(ctx, `SELECT `+messageColumns+`
FROM chat_messages WHERE session_id = ? AND pos > ?
ORDER BY pos LIMIT ?`, sid, pos, q.Limit+1)
		}
	}
	if err != nil {
		return rag.MessagePage{}, err
	}
	msgs, err := scanMessages(rows, sid, q.Limit+1)
	if err != nil {
		return rag.MessagePage{}, err
	}
	if cursor == "" && len(msgs) == 0 {
		if err := h.sessionExists(ctx, sid); err != nil {
			return rag.MessagePage{}, err
		}
	}
	return rag.TrimPage(msgs, q), nil
}

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
	if err := h.countSession.QueryRowContext(ctx, sid).Scan(&n); err != nil {
		return fmt.Errorf("count session %s: %w", sid, err)
	}
	if n+2 > max {
		return rag.SessionFull(max)
	}
	return nil
}

// sessionExists returns an ENOTFOUND *rag.Error when the session does not exist.
func (h *History) sessionExists(ctx context.Context, sid string) error {
	var n int
	if err := h.db.QueryRowContext(ctx, "SELECT count(*) FROM chat_sessions WHERE id = ?", sid).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return rag.Errorf(rag.ENOTFOUND, "session %s not found", sid)
	}
	return nil
}

// pruneBatch bounds the sessions deleted per transaction, so that a first
// prune of a large history does not hold the write lock for long.
const pruneBatch = 500

var _ rag.HistoryPruner = (*History)(nil)

// DeleteSessionsBefore deletes the sessions with no message since before,
// their messages with them (ON DELETE CASCADE), in batches.
func (h *History) DeleteSessionsBefore(ctx context.Context, before time.Time) (int, error) {
	cutoff := formatTime(before)
	total := 0
	for {
		res, err := h.db.ExecContext(ctx, `DELETE FROM chat_sessions WHERE id IN (
	SELECT s.id FROM chat_sessions AS s
	WHERE s.started_at < ?
	  AND NOT EXISTS (SELECT 1 FROM chat_messages AS m WHERE m.session_id = s.id AND m.created_at >= ?)
	LIMIT ?)`, cutoff, cutoff, pruneBatch)
		if err != nil {
			return total, fmt.Errorf("delete sessions before %s: %w", cutoff, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, fmt.Errorf("delete sessions before %s: %w", cutoff, err)
		}
		total += int(n)
		if n < pruneBatch {
			break
		}
	}
	if total == 0 {
		return 0, nil
	}
	if err := h.reclaim(ctx); err != nil {
		return total, fmt.Errorf("delete sessions before %s: reclaim space: %w", cutoff, err)
	}
	return total, nil
}

// vacuumStep bounds the pages (4 kB each) one incremental vacuum frees,
// so that each step is a short write transaction and chat writes go on
// between steps.
const vacuumStep = 2048

// reclaim gives the file's free pages back to the file system: deleted
// rows otherwise leave the file at its largest size for ever. It needs
// auto_vacuum=INCREMENTAL, which a file created before it has only after
// a one-time VACUUM (see the README); such a file is left as it is. The
// final checkpoint copies the shrunk file out of the WAL and truncates
// the WAL, which the vacuum had grown.
func (h *History) reclaim(ctx context.Context) error {
	var mode int
	if err := h.db.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil {
		return err
	}
	if mode != 2 {
		return nil
	}
	for last := -1; ; {
		var free int
		if err := h.db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
			return err
		}
		if free == 0 || free == last {
			break
		}
		last = free
		// Stepped to the end: a single step frees a single page.
		rows, err := h.db.QueryContext(ctx, fmt.Sprintf("PRAGMA incremental_vacuum(%d)", vacuumStep))
		if err != nil {
			return err
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	rows, err := h.db.QueryContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}

// applicationID marks the file as a textbook-rag history ("TBRG").
const applicationID = 0x54425247

// Ping checks that the database can be written, not only read: on a full
// disk every chat fails, and the health check must say so. Writing the
// file's application id is a real commit (one WAL frame) that touches no
// data.
func (h *History) Ping(ctx context.Context) error {
	if _, err := h.db.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return fmt.Errorf("ping sqlite history: %w", h.noSpace(err))
	}
	return nil
}

// Close closes the database.
func (h *History) Close() error {
	h.closeOnce.Do(func() {
		h.closed.Store(true)
		close(h.stop)
		<-h.stopped
	})
	return h.db.Close()
}
