package store_test

import (
	"errors"
	"testing"
	"time"

	"hindsight/store"
)

// TestSeePerson: a person is written when new, when their email or
// groups change, and otherwise at most once per interval.
func TestSeePerson(t *testing.T) {
	t.Parallel()
	st, _ := newEmptyStore(t)
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	st.Now = func() time.Time { return now }
	ann := store.Person{Name: "ann", Email: "ann@example.com", Groups: []string{"sre", "security"}}
	for _, step := range []struct {
		name  string
		p     store.Person
		after time.Duration
		want  bool
	}{
		{"New", ann, 0, true},
		{"Unchanged", ann, time.Minute, false},
		{"OtherCase", store.Person{Name: "ANN", Email: "ann@example.com", Groups: []string{"security", "sre"}}, time.Minute, false},
		{"NewEmail", store.Person{Name: "ann", Email: "ann@corp.example", Groups: ann.Groups}, time.Minute, true},
		{"NewGroups", store.Person{Name: "ann", Email: "ann@corp.example", Groups: []string{"sre"}}, time.Minute, true},
		{"IntervalPassed", store.Person{Name: "ann", Email: "ann@corp.example", Groups: []string{"sre"}}, 2 * time.Hour, true},
	} {
		now = now.Add(step.after)
		got, err := st.SeePerson(t.Context(), step.p, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if got != step.want {
			t.Errorf("%s: written = %v, want %v", step.name, got, step.want)
		}
	}
	p, err := st.GetPerson(t.Context(), "Ann")
	if err != nil {
		t.Fatal(err)
	}
	if p.Email != "ann@corp.example" || len(p.Groups) != 1 || p.Groups[0] != "sre" {
		t.Errorf("person = %+v", p)
	}
	if !p.CanRead(nil) || !p.CanRead([]string{"sre", "other"}) || p.CanRead([]string{"security"}) {
		t.Errorf("CanRead: a member of sre reads unrestricted and sre postmortems only")
	}
	if _, err := st.GetPerson(t.Context(), "bob"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetPerson(bob) = %v, want ErrNotFound", err)
	}
}

func TestNotificationSettings(t *testing.T) {
	t.Parallel()
	st, _ := newEmptyStore(t)
	ctx := t.Context()
	if err := st.SetNotificationsOff(ctx, "ann", []string{"digest", "comment.created"}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetNotificationsOff(ctx, "Ann", []string{"digest"}); err != nil {
		t.Fatal(err)
	}
	off, err := st.NotificationsOff(ctx, "ANN")
	if err != nil {
		t.Fatal(err)
	}
	if len(off) != 1 || !off["digest"] {
		t.Errorf("off = %v, want only digest", off)
	}
}
