package email_test

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
	"time"

	"hindsight/email"
	"hindsight/email/smtptest"
)

func message(t *testing.T, to string) []byte {
	t.Helper()
	b, err := email.Message{
		From:    &mail.Address{Name: "Hindsight", Address: "hindsight@example.com"},
		To:      &mail.Address{Name: "Ann", Address: to},
		Subject: "Review “DB outage”\r\nBcc: evil@example.com",
		Text:    "Please review.\nLine two: <b>not bold</b>",
		HTML:    "<p>Please review.</p>",
		Date:    time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC),
		ID:      "42.ann@hindsight",
	}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSendSTARTTLSAndAuth: the server offers STARTTLS and AUTH; the sender
// upgrades, authenticates over TLS and delivers a multipart/alternative
// message with both parts intact and no header injected.
func TestSendSTARTTLSAndAuth(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{User: "hs", Password: "s3cret", RequireAuth: true})
	s, err := email.NewSender(email.Config{Addr: srv.Addr, From: "Hindsight <hindsight@example.com>",
		User: "hs", Password: "s3cret", TLS: &tls.Config{RootCAs: srv.RootCAs}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(t.Context(), "ann@example.com", message(t, "ann@example.com")); err != nil {
		t.Fatal(err)
	}
	got := srv.Messages()
	if len(got) != 1 {
		t.Fatalf("messages = %d, want 1", len(got))
	}
	m := got[0]
	if !m.TLS || m.User != "hs" || m.From != "hindsight@example.com" || len(m.To) != 1 || m.To[0] != "ann@example.com" {
		t.Errorf("session: TLS=%v user=%q from=%q to=%v; want TLS, hs, hindsight@example.com, [ann@example.com]", m.TLS, m.User, m.From, m.To)
	}
	parsed, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Header.Get("Bcc") != "" {
		t.Errorf("a CRLF in the subject made a Bcc header")
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
	if !strings.HasPrefix(subject, "Review “DB outage”") {
		t.Errorf("Subject = %q", subject)
	}
	if got := parsed.Header.Get("Message-ID"); got != "<42.ann@hindsight>" {
		t.Errorf("Message-ID = %q", got)
	}
	typ, params, err := mime.ParseMediaType(parsed.Header.Get("Content-Type"))
	if err != nil || typ != "multipart/alternative" {
		t.Fatalf("Content-Type = %q, %v", parsed.Header.Get("Content-Type"), err)
	}
	mr := multipart.NewReader(parsed.Body, params["boundary"])
	var types, bodies []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p) // the reader decodes quoted-printable
		types = append(types, p.Header.Get("Content-Type"))
		bodies = append(bodies, string(b))
	}
	if len(types) != 2 || types[0] != "text/plain; charset=utf-8" || types[1] != "text/html; charset=utf-8" {
		t.Fatalf("parts = %v", types)
	}
	if !strings.Contains(bodies[0], "Line two: <b>not bold</b>") || bodies[1] != "<p>Please review.</p>" {
		t.Errorf("bodies = %q", bodies)
	}
}

// TestSendWrongPassword: a refused AUTH is a permanent error (retrying
// will not help) and no message is sent.
func TestSendWrongPassword(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{User: "hs", Password: "s3cret", RequireAuth: true})
	s, err := email.NewSender(email.Config{Addr: srv.Addr, From: "hindsight@example.com",
		User: "hs", Password: "wrong", TLS: &tls.Config{RootCAs: srv.RootCAs}})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(t.Context(), "ann@example.com", message(t, "ann@example.com"))
	var perm *email.PermanentError
	if !errors.As(err, &perm) {
		t.Fatalf("err = %v, want a PermanentError", err)
	}
	if n := len(srv.Messages()); n != 0 || srv.AuthAttempts() != 1 {
		t.Errorf("messages = %d, auth attempts = %d; want 0, 1", n, srv.AuthAttempts())
	}
}

// TestSendUntrustedCertificate: STARTTLS offered with a certificate the
// sender does not trust fails (no silent fallback to clear text).
func TestSendUntrustedCertificate(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{User: "hs", Password: "s3cret"})
	s, err := email.NewSender(email.Config{Addr: srv.Addr, From: "hindsight@example.com", User: "hs", Password: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(t.Context(), "ann@example.com", message(t, "ann@example.com")); err == nil || !strings.Contains(err.Error(), "starttls") {
		t.Fatalf("err = %v, want a STARTTLS failure", err)
	}
	if n := len(srv.Messages()); n != 0 || srv.AuthAttempts() != 0 {
		t.Errorf("messages = %d, auth attempts = %d; want 0, 0", n, srv.AuthAttempts())
	}
}

// TestSendNoTLSLoopback: a server without STARTTLS on the loopback gets
// the message, and the credentials (nothing on the network sees them).
func TestSendNoTLSLoopback(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{NoTLS: true, User: "hs", Password: "s3cret"})
	s, err := email.NewSender(email.Config{Addr: srv.Addr, From: "hindsight@example.com", User: "hs", Password: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(t.Context(), "ann@example.com", message(t, "ann@example.com")); err != nil {
		t.Fatal(err)
	}
	if m := srv.Messages(); len(m) != 1 || m[0].TLS || m[0].User != "hs" {
		t.Fatalf("messages = %+v, want one, in clear, authenticated", m)
	}
}

// TestSendRefusedRecipient: a 550 for the recipient is permanent.
func TestSendRefusedRecipient(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Refuse: map[string]bool{"gone@example.com": true}})
	s, err := email.NewSender(email.Config{Addr: srv.Addr, From: "hindsight@example.com", TLS: &tls.Config{RootCAs: srv.RootCAs}})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(t.Context(), "gone@example.com", message(t, "gone@example.com"))
	var perm *email.PermanentError
	if !errors.As(err, &perm) {
		t.Fatalf("err = %v, want a PermanentError", err)
	}
}

func TestNewSenderChecksConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  email.Config
	}{
		{"NoPort", email.Config{Addr: "smtp.example.com", From: "a@example.com"}},
		{"BadFrom", email.Config{Addr: "smtp.example.com:587", From: "not an address"}},
		{"PasswordWithoutUser", email.Config{Addr: "smtp.example.com:587", From: "a@example.com", Password: "x"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := email.NewSender(c.cfg); err == nil {
				t.Error("accepted")
			}
		})
	}
}
