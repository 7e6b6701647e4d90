package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"hindsight/search"
)

// Restricted postmortems are ranked by the statistics of the postmortems
// open to everyone, as if each were open: its own phrase frequencies and
// length, the open table's row count, average length and phrase document
// counts. Ranked by the restricted table's own statistics instead, a
// member's scores would move when another group adds postmortems it cannot read (issue 33,
// F5), telling them that hidden postmortems hold the words; the open ones'
// scores come from search_index, so nothing a reader may not read weighs on
// any score they see, and every hit is on one scale.
//
// FTS5's bm25 for a row, with k1 = 1.2 and b = 0.75, sums over the
// expression's phrases p
//
//	idf(p) · f(p)·(k1+1) / (f(p) + k1·(1 - b + b·D/avgdl))
//
// where f(p) is the row's instances of p weighted by column, D its tokens,
// and idf(p) = log((N - n(p) + 0.5)/(n(p) + 0.5)) (at least 1e-6) and avgdl
// come from the table: N rows, n(p) of them with p. f(p) is read back from
// search_index_restricted: bm25 of the phrase alone with the weights and with
// them doubled gives, by their ratio r, f = c·(2-r)/(2·(r-1)) with
// c = k1·(1 - b + b·D/avgdl_r), avgdl_r that table's, whatever its idf. The cost is two
// passes over each phrase's postings per search that has restricted hits
// the reader may read; none for anyone else.

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25WeightList is bm25Weights as numbers. They are whole, so f(p) is, and
// rounding it removes the error of reading it back.
var bm25WeightList = func() []float64 {
	var ws []float64
	for w := range strings.SplitSeq(bm25Weights, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err != nil || f != math.Trunc(f) || f <= 0 {
			panic("bm25Weights: " + w + " is not a whole positive number")
		}
		ws = append(ws, f)
	}
	return ws
}()

// doubledBM25Weights is bm25Weights, each doubled.
var doubledBM25Weights = func() string {
	parts := make([]string, len(bm25WeightList))
	for i, w := range bm25WeightList {
		parts[i] = strconv.FormatFloat(2*w, 'f', 1, 64)
	}
	return strings.Join(parts, ", ")
}()

// ranked is a match and its bm25 rank (lower is better).
type ranked struct {
	id   int64
	rank float64
}

// restrictedRanks returns the restricted postmortems among ids (ascending)
// that expr matches, in id order, each ranked as described above.
func (s *Store) restrictedRanks(ctx context.Context, ids []int64, expr string) ([]ranked, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	// The + keeps the id list from FTS5, which would run the match once per
	// id; the list is checked on each match instead.
	matched, err := queryColumn[int64](ctx, tx, `SELECT rowid FROM search_index_restricted
		WHERE search_index_restricted MATCH ? AND +rowid IN (SELECT value FROM json_each(?)) ORDER BY rowid`, expr, string(list))
	if err != nil || len(matched) == 0 {
		return nil, err
	}
	if list, err = json.Marshal(matched); err != nil {
		return nil, err
	}
	openRows, openTokens, err := ftsTotals(ctx, tx, "search_index")
	if err != nil {
		return nil, err
	}
	allRows, allTokens, err := ftsTotals(ctx, tx, "search_index_restricted")
	if err != nil {
		return nil, err
	}
	sizes := make(map[int64]float64, len(matched)) // D, by id
	err = scanRows(ctx, tx, `SELECT id, sz FROM search_index_restricted_docsize WHERE id IN (SELECT value FROM json_each(?))`, []any{string(list)}, func(rows *sql.Rows) error {
		var id int64
		var sz []byte
		if err := rows.Scan(&id, &sz); err != nil {
			return err
		}
		var d uint64
		for len(sz) > 0 {
			v, n := sqliteVarint(sz)
			if n == 0 {
				return errors.New("bad docsize record")
			}
			d += v
			sz = sz[n:]
		}
		sizes[id] = float64(d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	avgdl := func(rows, tokens int64, d float64) float64 {
		if rows == 0 {
			return d // no rows to average: the row's own length
		}
		return float64(tokens) / float64(rows)
	}

	scores := make(map[int64]float64, len(matched))
	phrases := search.Phrases(expr)
	done := map[string]bool{}
	for _, p := range phrases {
		if done[p] {
			continue
		}
		repeats := 0
		for _, q := range phrases {
			if q == p {
				repeats++
			}
		}
		done[p] = true
		var hits int64
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM search_index WHERE search_index MATCH ?`, p).Scan(&hits); err != nil {
			return nil, fmt.Errorf("phrase %s: %w", p, err)
		}
		idf := math.Log((float64(openRows-hits) + 0.5) / (float64(hits) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		err := scanRows(ctx, tx, `SELECT rowid, bm25(search_index_restricted, `+bm25Weights+`), bm25(search_index_restricted, `+doubledBM25Weights+`)
			FROM search_index_restricted WHERE search_index_restricted MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`, []any{p, string(list)}, func(rows *sql.Rows) error {
			var id int64
			var s1, s2 float64
			if err := rows.Scan(&id, &s1, &s2); err != nil {
				return err
			}
			d := sizes[id]
			f := phraseFrequency(-s1, -s2, bm25K1*(1-bm25B+bm25B*d/avgdl(allRows, allTokens, d)))
			k := bm25K1 * (1 - bm25B + bm25B*d/avgdl(openRows, openTokens, d))
			if !math.IsInf(f, 1) {
				scores[id] += float64(repeats) * idf * f * (bm25K1 + 1) / (f + k)
			} else {
				scores[id] += float64(repeats) * idf * (bm25K1 + 1)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("phrase %s: %w", p, err)
		}
	}
	out := make([]ranked, len(matched))
	for i, id := range matched {
		out[i] = ranked{id: id, rank: -scores[id]}
	}
	return out, nil
}

// phraseFrequency is f(p), from the row's bm25 scores (positive) of the
// phrase alone with the weights (s1) and with them doubled (s2), and
// c = k1·(1 - b + b·D/avgdl) of the table they were computed in.
func phraseFrequency(s1, s2, c float64) float64 {
	if s1 <= 0 {
		return 0
	}
	r := s2 / s1 // 2(f+c)/(2f+c): 2 for f → 0, 1 for f → ∞
	if r <= 1 {
		return math.Inf(1)
	}
	return math.Round(c * (2 - r) / (2 * (r - 1)))
}

// ftsTotals reads an FTS5 table's row count and token count (every column),
// as bm25 does, from its averages record (the %_data row 1: varints, the
// rows, then each column's tokens).
func ftsTotals(ctx context.Context, tx *sql.Tx, table string) (rows, tokens int64, err error) {
	var rec []byte
	err = tx.QueryRowContext(ctx, `SELECT block FROM `+table+`_data WHERE id = 1`).Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read %s totals: %w", table, err)
	}
	for i := 0; len(rec) > 0; i++ {
		v, n := sqliteVarint(rec)
		if n == 0 {
			return 0, 0, fmt.Errorf("read %s totals: bad record", table)
		}
		if i == 0 {
			rows = int64(v)
		} else {
			tokens += int64(v)
		}
		rec = rec[n:]
	}
	return rows, tokens, nil
}

// sqliteVarint decodes SQLite's variable-length integer (big-endian, seven
// bits a byte, the ninth byte whole) at the start of b; n is 0 when b ends
// first.
func sqliteVarint(b []byte) (v uint64, n int) {
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// mergeRanked calls add with the matches of two id-ordered lists, in id
// order, until add returns false.
func mergeRanked(a []ranked, each func(fn func(id int64, rank float64) bool) error, add func(id int64, rank float64) bool) error {
	next := 0
	stopped := false
	err := each(func(id int64, rank float64) bool {
		for ; next < len(a) && a[next].id < id; next++ {
			if !add(a[next].id, a[next].rank) {
				stopped = true
				return false
			}
		}
		if !add(id, rank) {
			stopped = true
			return false
		}
		return true
	})
	if err != nil || stopped {
		return err
	}
	for _, r := range a[next:] {
		if !add(r.id, r.rank) {
			break
		}
	}
	return nil
}
