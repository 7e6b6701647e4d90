package main

import (
	"bytes"
	"io"
	"mime"
	"net/mail"
	"testing"
	"time"

	"hindsight/email/smtptest"
	"hindsight/library"
	"hindsight/store"
	"hindsight/store/storetest"
)

// TestParseConfigMail: the email flags and their variables, and the
// combinations that cannot send refused at start-up.
func TestParseConfigMail(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []string
		env    map[string]string
		ok     bool
		digest time.Duration
	}{
		{"Off", nil, nil, true, 7 * 24 * time.Hour},
		{"Flags", []string{"-smtp-addr", "smtp.example.com:587", "-smtp-from", "Hindsight <h@example.com>", "-smtp-user", "h", "-digest-interval", "24h"}, nil, true, 24 * time.Hour},
		{"Env", nil, map[string]string{"HINDSIGHT_SMTP_ADDR": "smtp.example.com:25", "HINDSIGHT_SMTP_FROM": "h@example.com",
			"HINDSIGHT_SMTP_USER": "h", "HINDSIGHT_SMTP_PASSWORD": "pw", "HINDSIGHT_DIGEST_INTERVAL": "0"}, true, 0},
		{"NoFrom", []string{"-smtp-addr", "smtp.example.com:587"}, nil, false, 0},
		{"NoPort", []string{"-smtp-addr", "smtp.example.com", "-smtp-from", "h@example.com"}, nil, false, 0},
		{"BadFrom", []string{"-smtp-addr", "smtp.example.com:587", "-smtp-from", "nobody"}, nil, false, 0},
		{"FromWithoutAddr", []string{"-smtp-from", "h@example.com"}, nil, false, 0},
		{"PasswordWithoutUser", []string{"-smtp-addr", "smtp.example.com:587", "-smtp-from", "h@example.com", "-smtp-password", "pw"}, nil, false, 0},
		{"DigestTooOften", []string{"-digest-interval", "5m"}, nil, false, 0},
		{"DigestEnvUnreadable", nil, map[string]string{"HINDSIGHT_DIGEST_INTERVAL": "weekly"}, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			if tt.ok && c.mail.digestEvery != tt.digest {
				t.Errorf("digest every %v, want %v", c.mail.digestEvery, tt.digest)
			}
		})
	}
}

// TestReminderOnceAcrossKills runs the server binary with email to a real
// SMTP server (on the loopback, AUTH in clear as the loopback allows):
// its scheduler reminds the owner of an overdue item once; killed
// (SIGKILL) and started again, twice, it sends nothing more.
func TestReminderOnceAcrossKills(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the server binary")
	}
	t.Parallel()
	bin := buildServer(t)
	db := dbFrom(t, storetest.Seeded)
	st, err := library.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SeePerson(t.Context(), store.Person{Name: "bob", Email: "bob@example.com"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	due := time.Now().UTC().AddDate(0, 0, -3).Format(time.DateOnly)
	p := store.Postmortem{SavedBy: "ann", Status: store.StatusPublished,
		ActionItems: []store.ActionItem{{Title: "Cap the retries", Owner: "bob", Kind: "prevent", Priority: "P1", Status: "open", DueDate: due}}}
	p.Title, p.Summary = "Retry storm", "Clients retried at once."
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	st.Close()

	srv := smtptest.Start(t, smtptest.Options{NoTLS: true, User: "hs", Password: "pw", RequireAuth: true})
	flags := []string{"-seeds=false", "-smtp-addr", srv.Addr, "-smtp-from", "hindsight@example.com",
		"-smtp-user", "hs", "-smtp-password", "pw", "-digest-interval", "0"}
	start := func() *process {
		t.Helper()
		return startProcess(t, bin, db, flags...)
	}
	proc := start()
	waitFor(t, 20*time.Second, "the reminder", func() bool { return len(srv.Messages()) >= 1 })
	proc.kill(t)
	for range 2 {
		proc = start()
		time.Sleep(1500 * time.Millisecond) // a scheduler pass and a sender pass at start
		proc.kill(t)
	}
	msgs := srv.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != "bob@example.com" || msgs[0].User != "hs" {
		t.Fatalf("messages %+v, want one reminder to bob, authenticated", msgs)
	}
	m, err := mail.ReadMessage(bytes.NewReader(msgs[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if want := "[Hindsight] Overdue since " + due + ": “Cap the retries”"; subject != want {
		t.Errorf("subject %q, want %q", subject, want)
	}
}
