package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Person is someone the sign-in proxy named: their email address and the
// groups they were in when last seen. Notifications go to them by email,
// and only about what those groups let them read.
type Person struct {
	Name   string
	Email  string
	Groups []string
	SeenAt time.Time
}

// CanRead reports whether p may read a postmortem restricted to
// restrictedTo: the same check every read makes for a request from p.
func (p Person) CanRead(restrictedTo []string) bool {
	return CanSee(WithReaderGroups(context.Background(), p.Groups), restrictedTo)
}

// ReaderContext is ctx for reads made on p's behalf: they see what a
// request of p's would see.
func (p Person) ReaderContext(ctx context.Context) context.Context {
	return WithReaderGroups(ctx, p.Groups)
}

// SeePerson records p as seen now, when p is new, their email or groups
// changed, or they were last recorded more than every ago; it reports
// whether it wrote.
func (s *Store) SeePerson(ctx context.Context, p Person, every time.Duration) (bool, error) {
	p.Name, p.Email = strings.TrimSpace(p.Name), strings.TrimSpace(p.Email)
	if p.Name == "" || len(p.Name) > 200 || len(p.Email) > 320 {
		return false, fmt.Errorf("see person %q: %w", p.Name, ErrInvalid)
	}
	now := s.Now().UTC()
	groups := encodeRestriction(p.Groups)
	var written bool
	err := s.inTx(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO people (name, email, groups, seen_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET email = excluded.email, groups = excluded.groups, seen_at = excluded.seen_at
			WHERE email != excluded.email OR groups != excluded.groups OR seen_at < ?`,
			p.Name, p.Email, groups, formatTime(now), formatTime(now.Add(-every)))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		written = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("see person %q: %w", p.Name, err)
	}
	return written, nil
}

const personColumns = `name, email, groups, seen_at`

func scanPerson(row scanner) (Person, error) {
	var p Person
	var groups, seen string
	err := row.Scan(&p.Name, &p.Email, &groups, &seen)
	p.Groups, p.SeenAt = decodeRestriction(groups), parseTime(seen)
	return p, err
}

// GetPerson returns the person named name (any case).
func (s *Store) GetPerson(ctx context.Context, name string) (Person, error) {
	p, err := scanPerson(s.db.QueryRowContext(ctx, `SELECT `+personColumns+` FROM people WHERE name = ?`, strings.TrimSpace(name)))
	if errors.Is(err, sql.ErrNoRows) {
		return Person{}, fmt.Errorf("person %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Person{}, fmt.Errorf("person %q: %w", name, err)
	}
	return p, nil
}

// ListPeople returns everyone recorded with an email address, by name.
func (s *Store) ListPeople(ctx context.Context) ([]Person, error) {
	return queryRows(ctx, s.db, "list people", scanPerson, `SELECT `+personColumns+` FROM people WHERE email != '' ORDER BY name`)
}

// TokenOwner names who made the live API token named name (a request
// with it is signed "token NAME"): notifications for the token go to them.
func (s *Store) TokenOwner(ctx context.Context, name string) (string, error) {
	var by string
	err := s.db.QueryRowContext(ctx, `SELECT created_by FROM api_tokens WHERE name = ? AND revoked_at = '' ORDER BY id DESC LIMIT 1`, name).Scan(&by)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("token %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("token %q: %w", name, err)
	}
	return by, nil
}

// maxOptouts bounds the kinds one person may turn off.
const maxOptouts = 100

// NotificationsOff returns the kinds of notification name turned off.
func (s *Store) NotificationsOff(ctx context.Context, name string) (map[string]bool, error) {
	kinds, err := queryColumn[string](ctx, s.db, `SELECT kind FROM notification_optouts WHERE name = ?`, strings.TrimSpace(name))
	if err != nil {
		return nil, fmt.Errorf("notification settings of %q: %w", name, err)
	}
	off := make(map[string]bool, len(kinds))
	for _, k := range kinds {
		off[k] = true
	}
	return off, nil
}

// SetNotificationsOff makes off the kinds name has turned off, in place of
// those before.
func (s *Store) SetNotificationsOff(ctx context.Context, name string, off []string) error {
	name = strings.TrimSpace(name)
	if name == "" || len(off) > maxOptouts {
		return fmt.Errorf("notification settings of %q: %w", name, ErrInvalid)
	}
	err := s.inTx(ctx, func(tx *writeTx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM notification_optouts WHERE name = ?`, name); err != nil {
			return err
		}
		for _, k := range off {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO notification_optouts (name, kind) VALUES (?, ?)`, name, k); err != nil {
				return err
			}
		}
		tx.audit(auditNote{kind: "notifications.settings", signer: name,
			what: "turned off notifications: " + strings.Join(off, ", ")})
		return nil
	})
	if err != nil {
		return fmt.Errorf("notification settings of %q: %w", name, err)
	}
	return nil
}
