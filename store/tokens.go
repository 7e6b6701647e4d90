package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Token is an API token as listed: never its secret.
type Token struct {
	ID         int64
	Name       string
	Role       string
	CreatedAt  time.Time
	CreatedBy  string
	LastUsedAt time.Time // zero when never used
	RevokedAt  time.Time // zero while it works
}

// Revoked reports whether the token no longer works.
func (t Token) Revoked() bool { return !t.RevokedAt.IsZero() }

// TokenRoles are the roles a token may carry, least first.
var TokenRoles = []string{"viewer", "editor", "admin"}

// tokenPrefix marks Hindsight's secrets, so a leaked one is recognisable
// (secret scanners, logs).
const tokenPrefix = "hst_"

func hashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateToken makes a token named name with role and returns its secret,
// which is stored only as a hash: it cannot be shown again. A live token
// of the same name is a conflict.
func (s *Store) CreateToken(ctx context.Context, name, role, by string) (Token, string, error) {
	name = strings.TrimSpace(name)
	errs := FieldErrors{}
	if name == "" || len(name) > 100 || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' }) {
		errs["name"] = "Give the token a name of 1 to 100 characters."
	}
	if !slices.Contains(TokenRoles, role) {
		errs["role"] = "The role must be viewer, editor or admin."
	}
	if len(errs) > 0 {
		return Token{}, "", fmt.Errorf("create token: %w", errs)
	}
	var t Token
	var secret string
	err := s.inTx(ctx, func(tx *writeTx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM api_tokens WHERE name = ? AND revoked_at = ''`, name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrConflict
		}
		var err error
		t, secret, err = s.insertToken(ctx, tx, name, role, by)
		if err == nil {
			tx.audit(auditNote{kind: "token.create", signer: by, what: fmt.Sprintf("created token %q with role %s", name, role)})
		}
		return err
	})
	if err != nil {
		return Token{}, "", fmt.Errorf("create token %q: %w", name, err)
	}
	return t, secret, nil
}

// insertToken stores a new live token and returns it with its secret.
func (s *Store) insertToken(ctx context.Context, tx *writeTx, name, role, by string) (Token, string, error) {
	raw := make([]byte, 32)
	rand.Read(raw)
	secret := tokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	t := Token{Name: name, Role: role, CreatedBy: by, CreatedAt: s.Now().UTC().Truncate(time.Second)}
	res, err := tx.ExecContext(ctx, `INSERT INTO api_tokens (name, role, hash, created_at, created_by) VALUES (?, ?, ?, ?, ?)`,
		name, role, hashToken(secret), formatTime(t.CreatedAt), by)
	if err != nil {
		return t, "", err
	}
	t.ID, err = res.LastInsertId()
	return t, secret, err
}

// freshToken selects the live token of a name (first argument) that a
// user (second) made since a time (third) and that was never used.
const freshToken = `name = ? AND revoked_at = '' AND created_by = ? AND created_at >= ? AND last_used_at = ''`

// FreshToken returns the live token named name if by made it since `since`
// and it has never been used: the one a form sent twice made first, whose
// secret was on an answer the browser did not show. Otherwise it is
// ErrNotFound.
func (s *Store) FreshToken(ctx context.Context, name, by string, since time.Time) (Token, error) {
	t, err := scanToken(s.db.QueryRowContext(ctx, `SELECT `+tokenFields+` FROM api_tokens WHERE `+freshToken,
		name, by, formatTime(since)))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("fresh token %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("fresh token %q: %w", name, err)
	}
	return t, nil
}

// RemakeFreshToken replaces the live token named name, provided it is
// still fresh (FreshToken), with a new one of the same name and role, and
// returns the new token and its secret: the first stops working. Anything
// else (used since, made by someone else or long ago, revoked) is
// ErrConflict, and nothing changes.
func (s *Store) RemakeFreshToken(ctx context.Context, name, by string, since time.Time) (Token, string, error) {
	var t Token
	var secret string
	err := s.inTx(ctx, func(tx *writeTx) error {
		var id int64
		var role string
		err := tx.QueryRowContext(ctx, `SELECT id, role FROM api_tokens WHERE `+freshToken,
			name, by, formatTime(since)).Scan(&id, &role)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrConflict
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = ? WHERE id = ?`, s.now(), id); err != nil {
			return err
		}
		t, secret, err = s.insertToken(ctx, tx, name, role, by)
		if err == nil {
			tx.audit(auditNote{kind: "token.create", signer: by, what: fmt.Sprintf("made token %q (%s) again: the first, never used, was revoked", name, role)})
		}
		return err
	})
	if err != nil {
		return Token{}, "", fmt.Errorf("remake token %q: %w", name, err)
	}
	return t, secret, nil
}

const tokenFields = `id, name, role, created_at, created_by, last_used_at, revoked_at`

func scanToken(row scanner) (Token, error) {
	var t Token
	var created, used, revoked string
	if err := row.Scan(&t.ID, &t.Name, &t.Role, &created, &t.CreatedBy, &used, &revoked); err != nil {
		return t, err
	}
	t.CreatedAt = parseTime(created)
	if used != "" {
		t.LastUsedAt = parseTime(used)
	}
	if revoked != "" {
		t.RevokedAt = parseTime(revoked)
	}
	return t, nil
}

// ListTokens lists every token, live ones first, newest first.
func (s *Store) ListTokens(ctx context.Context) ([]Token, error) {
	return queryRows(ctx, s.db, "list tokens", scanToken, `SELECT `+tokenFields+` FROM api_tokens ORDER BY revoked_at != '', created_at DESC, id DESC`)
}

// tokenUseEvery is how stale the recorded last use may get: recording
// every request would make each API call a write.
const tokenUseEvery = time.Minute

// UseToken returns the live token whose secret this is, and records its
// use; a revoked or unknown secret is ErrNotFound.
func (s *Store) UseToken(ctx context.Context, secret string) (Token, error) {
	t, err := scanToken(s.db.QueryRowContext(ctx, `SELECT `+tokenFields+` FROM api_tokens WHERE hash = ? AND revoked_at = ''`, hashToken(secret)))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("use token: %w", ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("use token: %w", err)
	}
	now := s.Now().UTC().Truncate(time.Second)
	if now.Sub(t.LastUsedAt) >= tokenUseEvery {
		err := s.inTx(ctx, func(tx *writeTx) error {
			_, err := tx.ExecContext(ctx, `UPDATE api_tokens SET last_used_at = ? WHERE id = ?`, formatTime(now), t.ID)
			return err
		})
		if err != nil {
			return t, fmt.Errorf("use token %q: %w", t.Name, err)
		}
		t.LastUsedAt = now
	}
	return t, nil
}

// RevokeToken stops the live token named name from working.
func (s *Store) RevokeToken(ctx context.Context, name string) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = ? WHERE name = ? AND revoked_at = ''`, s.now(), name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		tx.audit(auditNote{kind: "token.revoke", what: fmt.Sprintf("revoked token %q", name)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("revoke token %q: %w", name, err)
	}
	return nil
}
