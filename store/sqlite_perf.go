package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"hindsight/search"
)

// The code here is for speed alone; the rest of the store reads as plain
// database/sql. It holds, each with the measurement that justified it:
//   - the statement cache: reads (database) and write transactions
//     (stmtTx) run statements prepared once per connection;
//   - the search table's loader: SQLite concatenates the rows into one
//     hex-encoded text value, parsed here (loadTableRows, fieldReader);
//   - the ranked-match loop that reads rows from the driver itself
//     (eachRanked).
// Each keeps database/sql's meaning: callers see *sql.Rows, *sql.Row and
// sql.Result as from *sql.DB and *sql.Tx.

// stmtTx is a transaction that prepares each statement once: a batch
// import runs the same few statements for thousands of postmortems, and
// preparing one costs about as much as running it. Its statements come from
// the store's stmtCache, so a connection compiles a statement once, not once
// per transaction (a save runs some thirty, a postmortem page's read six).
type stmtTx struct {
	*sql.Tx
	db    *database
	stmts map[string]*sql.Stmt
}

func (tx *stmtTx) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := tx.stmts[query]; ok {
		return st, nil
	}
	var st *sql.Stmt
	if shared := tx.db.stmts.get(ctx, tx.db.DB, query); shared != nil {
		// Prepared on this transaction's connection the first time only;
		// closing st with the transaction leaves shared prepared.
		st = tx.Tx.StmtContext(ctx, shared)
	} else {
		var err error
		if st, err = tx.Tx.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
	}
	tx.stmts[query] = st
	return st, nil
}

// database is the store's *sql.DB whose reads, like transactions' statements
// (stmtTx), run statements prepared once and kept in stmts: parsing the SQL
// was about a third of the CPU time of the reads behind /insights and the
// follow-ups list.
type database struct {
	*sql.DB
	stmts stmtCache
}

func (db *database) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := db.stmts.get(ctx, db.DB, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return db.DB.QueryContext(ctx, query, args...)
}

func (db *database) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := db.stmts.get(ctx, db.DB, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return db.DB.QueryRowContext(ctx, query, args...)
}

// stmtCache holds statements prepared on the database, by query, for every
// read and transaction. It keeps at most maxCachedStmts: beyond them
// (queries built for a number of values) a query is prepared each time.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

const maxCachedStmts = 1024

// get returns the statement for query, prepared on db, or nil when the
// cache is full or query does not prepare (the unprepared query then
// reports why). It prepares outside the lock: preparing waits for a free
// connection, and every read looks here first.
func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) *sql.Stmt {
	c.mu.Lock()
	st, ok := c.m[query]
	full := len(c.m) >= maxCachedStmts
	c.mu.Unlock()
	if ok || full {
		return st
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if kept, ok := c.m[query]; ok || len(c.m) >= maxCachedStmts {
		st.Close() // prepared meanwhile by another caller, or no room left
		return kept
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = st
	return st
}

func (tx *stmtTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := tx.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (tx *stmtTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := tx.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (tx *stmtTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := tx.prepared(ctx, query)
	if err != nil {
		// *sql.Row carries no error of its own making: the unprepared
		// query reports the same error from Scan.
		return tx.Tx.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// loadTableRows reads the live postmortems from the covering index search
// joined before, with their group's canonical member; the join drops
// postmortems without a group, as search always has. SQLite concatenates
// them into one text value: passing 100,000 rows of seven columns one by
// one through database/sql and the driver took twice as long. Texts are
// hex-encoded, so that none can contain the separator; the table decodes
// each distinct one once.
func loadTableRows(ctx context.Context, tx *sql.Tx) (*search.TableBuilder, error) {
	var all string
	err := tx.QueryRowContext(ctx, `SELECT coalesce(group_concat(concat_ws(' ', m.id, m.group_id,
			coalesce(g.canonical_id = m.id, 0), hex(m.organization), hex(m.incident_date), hex(m.language), hex(m.severity),
			hex(m.restricted_to)), ' '), '')
		FROM postmortems m INDEXED BY postmortems_search JOIN variant_groups g ON g.id = m.group_id
		WHERE m.archived_at = ''`).Scan(&all)
	if err != nil {
		return nil, err
	}
	return parseTableRows(all)
}

// parseTableRows reads the rows loadTableRows read: eight fields each.
func parseTableRows(all string) (*search.TableBuilder, error) {
	b := search.NewTableBuilder(strings.Count(all, " ")/8 + 1)
	in := fieldReader{rest: all, more: all != ""}
	for in.more {
		id, group, canonical := in.int(), in.int(), in.int()
		b.Add(search.TableRow{ID: id, Group: group, Canonical: canonical == 1,
			Org: in.next(), Date: in.next(), Lang: in.next(), Sev: in.next(), Restriction: in.next()})
	}
	return b, in.err
}

// fieldReader reads space-separated fields; an empty field is "".
type fieldReader struct {
	rest string
	more bool // whether a field is left, perhaps an empty one
	err  error
}

func (f *fieldReader) next() string {
	field, rest, found := strings.Cut(f.rest, " ")
	f.rest, f.more = rest, found
	return field
}

func (f *fieldReader) int() int64 {
	n, err := strconv.ParseInt(f.next(), 10, 64)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n
}

func decodeHex(h string) (string, error) {
	b, err := hex.DecodeString(h)
	return string(b), err
}

// eachRanked runs query, which selects an id and a rank, and calls fn with
// each row until fn returns false. It reads the rows from the driver
// itself: a broad query returns tens of thousands, and database/sql's
// locking and conversions cost 0.4 µs each on top (measured with modernc
// at 100,000 postmortems: "timeout*", 79,000 rows, took 266 ms instead of
// 236 ms; computing the same bm25 values without returning them, 204 ms).
func (s *Store) eachRanked(ctx context.Context, query string, args []any, fn func(id int64, rank float64) bool) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		q, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("driver %T cannot query", dc)
		}
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := q.QueryContext(ctx, query, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		row := make([]driver.Value, 2)
		for {
			if err := rows.Next(row); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			id, ok1 := row[0].(int64)
			rank, ok2 := row[1].(float64)
			if !ok1 || !ok2 {
				return fmt.Errorf("ranked row (%T, %T), want (int64, float64)", row[0], row[1])
			}
			if !fn(id, rank) {
				return nil
			}
		}
	})
}
