package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// VariantText is the part of a postmortem that variant detection
// compares: the write-up without its title (reposts carry bait titles).
func (p *Postmortem) VariantText() string {
	var parts []string
	for _, s := range append([]string{p.Summary}, p.writeUp()...) {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Print is what variant detection keeps of a text, as a Printer computes
// it; the store keeps it and looks texts up by it without reading it.
type Print struct {
	Signature []byte   // kept as it is, and given back by PrintsSharingBands
	Bands     []int64  // the keys the signature is looked up by
	Facts     []string // the numbers and names the text mentions, kept as a list
	Lookup    []string // the facts (of Facts) the text is looked up by
}

// A Printer computes the Print of a text. The store fingerprints every
// postmortem it writes with its printer (WithPrinter).
type Printer interface {
	Print(text string) Print
	// Bands gives the Bands of a Signature it computed; ok is false for
	// one written by another version of the printer.
	Bands(signature []byte) (bands []int64, ok bool)
}

// saveFingerprint replaces the signature, LSH bands and facts of p with
// those of its current text; the caller's transaction also writes p, so
// they never disagree.
func saveFingerprint(ctx context.Context, tx *writeTx, p *Postmortem) error {
	if tx.printer == nil {
		return nil
	}
	if err := deletePrint(ctx, tx, p.ID); err != nil {
		return err
	}
	pr := tx.printer.Print(p.VariantText())
	p.Print = &pr
	return insertPrints(ctx, tx, p)
}

// deletePrint removes the fingerprint of postmortem id, if any. Its bands
// and facts are found by their lookup keys: the bands follow from the
// signature, the facts are listed beside it.
func deletePrint(ctx context.Context, tx *writeTx, id int64) error {
	var blob []byte
	var facts string
	err := tx.QueryRowContext(ctx, `SELECT signature, facts FROM postmortem_fingerprints WHERE postmortem_id = ?`, id).Scan(&blob, &facts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("replace fingerprint: %w", err)
	}
	deleteBands := `DELETE FROM fingerprint_bands WHERE postmortem_id = ?1 AND band IN (SELECT value FROM json_each(?2))`
	var bands []byte
	if keys, ok := tx.printer.Bands(blob); ok {
		if bands, err = json.Marshal(keys); err != nil {
			return err
		}
	} else {
		// Written by another version of the shingling: its bands cannot be
		// worked out, so look for them in every row (slow, and only once).
		deleteBands = `DELETE FROM fingerprint_bands WHERE postmortem_id = ?1`
	}
	for _, q := range []struct {
		sql  string
		keys any
	}{
		{deleteBands, string(bands)},
		{`DELETE FROM postmortem_facts WHERE postmortem_id = ?1 AND fact IN (SELECT value FROM json_each(?2))`, facts},
		{`DELETE FROM postmortem_fingerprints WHERE postmortem_id = ?1`, nil},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, id, q.keys); err != nil {
			return fmt.Errorf("replace fingerprint: %w", err)
		}
	}
	return nil
}

// insertPrints writes the fingerprints of postmortems that have none: each
// one's signature and facts (computed ahead, or now by the store's
// printer; none without one), and
// the rows to look them up by. The lookup rows of all of them go in at
// once, in key order: a batch import adds rows all over these large
// indexes, and in key order each page is changed once, not once per
// postmortem.
func insertPrints(ctx context.Context, tx *writeTx, ps ...*Postmortem) error {
	type bandRow struct{ band, id int64 }
	type factRow struct {
		fact string
		id   int64
	}
	var bands []bandRow
	var facts []factRow
	for _, p := range ps {
		if p.Print == nil {
			if tx.printer == nil {
				continue
			}
			pr := tx.printer.Print(p.VariantText())
			p.Print = &pr
		}
		keys := p.Print.Facts
		if keys == nil {
			keys = []string{} // stored as [], not null
		}
		list, err := json.Marshal(keys)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO postmortem_fingerprints (postmortem_id, signature, facts) VALUES (?, ?, ?)`,
			p.ID, p.Print.Signature, string(list)); err != nil {
			return fmt.Errorf("save fingerprint: %w", err)
		}
		for _, b := range p.Print.Bands {
			bands = append(bands, bandRow{b, p.ID})
		}
		// Only the Lookup facts are looked up (TranslationCandidates): the
		// others, such as small numbers, are kept in the list alone.
		for _, k := range p.Print.Lookup {
			facts = append(facts, factRow{k, p.ID})
		}
	}
	slices.SortFunc(bands, func(a, b bandRow) int { return cmp.Or(cmp.Compare(a.band, b.band), cmp.Compare(a.id, b.id)) })
	slices.SortFunc(facts, func(a, b factRow) int { return cmp.Or(strings.Compare(a.fact, b.fact), cmp.Compare(a.id, b.id)) })
	bandRows := make([][2]any, len(bands))
	for i, r := range bands {
		bandRows[i] = [2]any{r.band, r.id}
	}
	factRows := make([][2]any, len(facts))
	for i, r := range facts {
		factRows[i] = [2]any{r.fact, r.id}
	}
	if err := insertPairs(ctx, tx, `INSERT OR IGNORE INTO fingerprint_bands (band, postmortem_id) VALUES `, bandRows); err != nil {
		return fmt.Errorf("save fingerprint bands: %w", err)
	}
	if err := insertPairs(ctx, tx, `INSERT OR IGNORE INTO postmortem_facts (fact, postmortem_id) VALUES `, factRows); err != nil {
		return fmt.Errorf("save facts: %w", err)
	}
	return nil
}

// insertPairs runs insert, which ends in VALUES, for rows of two columns,
// up to 500 rows a statement: one statement per row costs more in calls
// than in writes, and bound values cost less than a JSON array to unpack.
func insertPairs(ctx context.Context, tx *writeTx, insert string, rows [][2]any) error {
	const perStatement = 500
	args := make([]any, 0, 2*perStatement)
	for start := 0; start < len(rows); start += perStatement {
		part := rows[start:min(start+perStatement, len(rows))]
		args = args[:0]
		for _, r := range part {
			args = append(args, r[0], r[1])
		}
		if _, err := tx.ExecContext(ctx, insert+strings.Repeat("(?, ?), ", len(part)-1)+"(?, ?)", args...); err != nil {
			return err
		}
	}
	return nil
}

// fingerprintMissing fingerprints the postmortems written before
// fingerprints existed (a database created before migration 0031). Every
// write fingerprints what it writes, so Open runs it once (runOnce), not
// reading every postmortem on each start.
func (s *Store) fingerprintMissing(ctx context.Context) error {
	return s.refingerprint(ctx, `SELECT p.slug FROM postmortems p
		WHERE NOT EXISTS (SELECT 1 FROM postmortem_fingerprints f WHERE f.postmortem_id = p.id)`)
}

// refingerprintCJK fingerprints again the Korean, Chinese and Japanese
// postmortems: their facts were read before the particles written onto
// numbers and names ("2009년", "Gmail에") were shed, so their translations
// could not find them. Open runs it once (runOnce).
func (s *Store) refingerprintCJK(ctx context.Context) error {
	return s.refingerprint(ctx, `SELECT slug FROM postmortems WHERE language IN ('ko', 'zh', 'ja')`)
}

// refingerprint saves again the fingerprints of the postmortems whose
// slugs query lists, one transaction each.
func (s *Store) refingerprint(ctx context.Context, query string) error {
	slugs, err := queryColumn[string](ctx, s.db, query)
	if err != nil {
		return err
	}
	for _, slug := range slugs {
		p, err := scanPostmortem(s.db.QueryRowContext(ctx, `SELECT `+postmortemColumns+`
			FROM postmortems p JOIN variant_groups g ON g.id = p.group_id WHERE p.slug = ?`, slug))
		if err != nil {
			return fmt.Errorf("postmortem %q: %w", slug, err)
		}
		if err := s.inTx(ctx, func(tx *writeTx) error {
			return saveFingerprint(ctx, tx, &p)
		}); err != nil {
			return fmt.Errorf("postmortem %q: %w", slug, err)
		}
	}
	return nil
}

// Similar is a stored postmortem that may be another version of a text.
type Similar struct {
	Slug     string
	Title    string
	Language string
	Score    float64
	Kind     string // postmortem.KindRewrite (same write-up, reworded or copied) or postmortem.KindTranslation
}

// StoredPrint is the kept signature of a postmortem's text.
type StoredPrint struct {
	PostmortemID int64
	Signature    []byte
}

// PrintsSharingBands returns the kept signatures of the postmortems whose
// texts share one of bands (Print.Bands) with a text: the candidates for
// a copy or a rewrite of it.
func (s *Store) PrintsSharingBands(ctx context.Context, bands []int64) ([]StoredPrint, error) {
	if len(bands) == 0 {
		return nil, nil
	}
	var out []StoredPrint
	err := scanRows(ctx, s.db, `SELECT postmortem_id, signature FROM postmortem_fingerprints
		WHERE postmortem_id IN (SELECT postmortem_id FROM fingerprint_bands WHERE band IN (`+placeholders(len(bands))+`))`, anys(bands),
		func(rows *sql.Rows) error {
			var p StoredPrint
			err := rows.Scan(&p.PostmortemID, &p.Signature)
			out = append(out, p)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("find similar: %w", err)
	}
	return out, nil
}

// translationCandidates bounds how many postmortems sharing facts with a
// text are scored: a name like "AWS" can be in thousands of them.
const translationCandidates = 200

// TranslationQuery is what is known of a text whose translations are
// looked for.
type TranslationQuery struct {
	Lookup       []string // its facts to look up (Print.Lookup)
	Language     string   // its language: postmortems in it are left out
	Organization string
	IncidentDate string // YYYY-MM-DD
	// Skip leaves out postmortems already found otherwise (nil: none).
	Skip func(postmortemID int64) bool
}

// FactsCandidate is a postmortem that may be a translation of a text: what
// is known of it, and the facts its text mentions (Print.Facts).
type FactsCandidate struct {
	PostmortemID                         int64
	Language, Organization, IncidentDate string
	Facts                                []string
}

// TranslationCandidates returns the postmortems in another language than
// q's that may be translations of its text: those sharing the most of its
// facts (at most translationCandidates), then those of the same
// organization and incident date.
func (s *Store) TranslationCandidates(ctx context.Context, q TranslationQuery) ([]FactsCandidate, error) {
	var ids []int64
	if len(q.Lookup) > 0 {
		got, err := queryColumn[int64](ctx, s.db, `SELECT postmortem_id FROM postmortem_facts WHERE fact IN (`+placeholders(len(q.Lookup))+`)
			GROUP BY postmortem_id ORDER BY count(*) DESC, postmortem_id LIMIT `+fmt.Sprint(translationCandidates), anys(q.Lookup)...)
		if err != nil {
			return nil, fmt.Errorf("find translations: %w", err)
		}
		ids = append(ids, got...)
	}
	if q.Organization != "" && q.IncidentDate != "" {
		got, err := queryColumn[int64](ctx, s.db, `SELECT id FROM postmortems WHERE organization = ? COLLATE NOCASE AND incident_date = ?`,
			q.Organization, q.IncidentDate)
		if err != nil {
			return nil, fmt.Errorf("find translations: %w", err)
		}
		ids = append(ids, got...)
	}
	var out []FactsCandidate
	seen := map[int64]bool{}
	for _, id := range ids {
		if seen[id] || q.Skip != nil && q.Skip(id) {
			continue
		}
		seen[id] = true
		c := FactsCandidate{PostmortemID: id}
		err := s.db.QueryRowContext(ctx, `SELECT language, organization, incident_date FROM postmortems WHERE id = ?`, id).
			Scan(&c.Language, &c.Organization, &c.IncidentDate)
		if err != nil {
			return nil, fmt.Errorf("find translations: %w", err)
		}
		if c.Language == q.Language {
			continue
		}
		if c.Facts, err = queryColumn[string](ctx, s.db, `SELECT value FROM postmortem_fingerprints, json_each(facts) WHERE postmortem_id = ? ORDER BY value`, id); err != nil {
			return nil, fmt.Errorf("find translations: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// DescribeSimilar fills in the slugs, titles and languages of the
// postmortems found (by ID), drops the archived ones, those ctx's reader
// may not read and those in the variant group of the postmortem at
// exclude (when not ""), and returns the best limit of them (10 when 0),
// best first.
func (s *Store) DescribeSimilar(ctx context.Context, found map[int64]Similar, exclude string, limit int) ([]Similar, error) {
	excludeGroup := int64(-1)
	if exclude != "" {
		err := s.db.QueryRowContext(ctx, `SELECT group_id FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"), exclude).Scan(&excludeGroup)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("find similar: %w", err)
		}
	}
	out := []Similar{}
	for id, sim := range found {
		var group int64
		var archived string
		err := s.db.QueryRowContext(ctx, `SELECT slug, title, language, group_id, archived_at FROM postmortems WHERE id = ? AND `+
			visibleSQL(ctx, "postmortems"), id).Scan(&sim.Slug, &sim.Title, &sim.Language, &group, &archived)
		if errors.Is(err, sql.ErrNoRows) {
			continue // restricted to groups the reader is not in
		}
		if err != nil {
			return nil, fmt.Errorf("find similar: %w", err)
		}
		if archived != "" || group == excludeGroup {
			continue
		}
		out = append(out, sim)
	}
	slices.SortFunc(out, func(a, b Similar) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	if limit <= 0 {
		limit = 10
	}
	return out[:min(len(out), limit)], nil
}

// Rejection is a pattern suggestion that a writer turned down.
type Rejection struct {
	PostmortemSlug string // "" for a draft that was not saved
	Title          string
	PatternSlug    string
	Phrases        []string // the phrases that triggered the suggestion
	Score          float64
	RejectedAt     string // RFC 3339, set by RecordRejection
	// RestrictedTo is the groups a draft (no PostmortemSlug) was
	// restricted to: only their members see its rejections listed.
	RestrictedTo []string
	// Evidence is the sentences that showed it, as a reader sees them
	// (see EvidenceSentence).
	Evidence []string
}

// RecordRejection keeps a rejected suggestion so that the detection phrases
// behind it can be tuned.
func (s *Store) RecordRejection(ctx context.Context, r Rejection) error {
	var pmID any
	if r.PostmortemSlug != "" {
		var id int64
		err := s.db.QueryRowContext(ctx, `SELECT id FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"), r.PostmortemSlug).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("record rejection: postmortem %q: %w", r.PostmortemSlug, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("record rejection: %w", err)
		}
		pmID = id
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM patterns WHERE slug = ?`, r.PatternSlug).Scan(&n); err != nil {
		return fmt.Errorf("record rejection: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("record rejection: pattern %q: %w", r.PatternSlug, ErrInvalid)
	}
	var restricted string
	what := "rejected the suggested pattern " + r.PatternSlug + " for “" + r.Title + "”"
	if pmID == nil {
		// A saved postmortem's rejections follow its own restriction.
		restricted = encodeRestriction(r.RestrictedTo)
		if restricted != "" {
			// The trail is read by admins outside the groups too.
			what = "rejected the suggested pattern " + r.PatternSlug + " for a restricted draft"
		}
	}
	err := s.inTx(ctx, func(tx *writeTx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO rejected_suggestions (postmortem_id, title, pattern_slug, phrases, score, rejected_at, restricted_to, evidence)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, pmID, r.Title, r.PatternSlug, strings.Join(r.Phrases, "\n"), r.Score, s.now(), restricted, evidenceLines(r.Evidence))
		tx.audit(auditNote{kind: "tags.reject", postmortem: r.PostmortemSlug, what: what})
		return err
	})
	if err != nil {
		return fmt.Errorf("record rejection: %w", err)
	}
	return nil
}

// ListRejections returns the latest limit rejected suggestions of a
// pattern (all patterns when slug is ""; all of them when limit is 0),
// newest first: the material for tuning phrases.
func (s *Store) ListRejections(ctx context.Context, slug string, limit int) ([]Rejection, error) {
	if limit <= 0 {
		limit = -1 // no limit, for SQLite
	}
	rows, err := s.db.QueryContext(ctx, `SELECT coalesce(p.slug, ''), r.title, r.pattern_slug, r.phrases, r.score, r.rejected_at, r.restricted_to
		FROM rejected_suggestions r LEFT JOIN postmortems p ON p.id = r.postmortem_id
		WHERE (? = '' OR r.pattern_slug = ?) AND (p.id IS NULL AND `+visibleSQL(ctx, "r")+` OR `+visibleSQL(ctx, "p")+`)
		ORDER BY r.rejected_at DESC, r.id DESC LIMIT ?`, slug, slug, limit)
	if err != nil {
		return nil, fmt.Errorf("list rejections: %w", err)
	}
	defer rows.Close()
	var out []Rejection
	for rows.Next() {
		var r Rejection
		var phrases, restricted string
		if err := rows.Scan(&r.PostmortemSlug, &r.Title, &r.PatternSlug, &phrases, &r.Score, &r.RejectedAt, &restricted); err != nil {
			return nil, fmt.Errorf("list rejections: %w", err)
		}
		r.RestrictedTo = decodeRestriction(restricted)
		if phrases != "" {
			r.Phrases = strings.Split(phrases, "\n")
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
