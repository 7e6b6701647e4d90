// Package email sends Hindsight's notifications by SMTP: one message at a
// time, plain text and HTML, over STARTTLS whenever the server offers it.
// It knows nothing of events or people; the notification channel
// (handlers/email_channel.go) decides who gets what.
package email

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strings"
	"time"
)

// Config is how to reach the SMTP server (-smtp-addr and the rest).
type Config struct {
	// Addr is the server's host:port (port 25 or 587 usually).
	Addr string
	// From is the sender's address, "Hindsight <hindsight@example.com>"
	// or a bare address.
	From string
	// User and Password authenticate (PLAIN), only over TLS or to the
	// loopback: a password is never sent in clear over a network.
	User, Password string
	// TLS, when set, is the configuration STARTTLS uses (tests trust
	// their own certificate); by default the system's roots and the
	// server's host name.
	TLS *tls.Config
	// Timeout bounds one message's whole conversation; 30 s when 0.
	Timeout time.Duration
	// HelloName is the name given in EHLO; "localhost" when empty.
	HelloName string
}

// Sender sends messages with a Config.
type Sender struct {
	cfg  Config
	from *mail.Address
}

// NewSender checks cfg: an address with a port and a valid From.
func NewSender(cfg Config) (*Sender, error) {
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil || host == "" || port == "" {
		return nil, fmt.Errorf("-smtp-addr %q: want host:port, such as smtp.example.com:587", cfg.Addr)
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("-smtp-from %q: %v", cfg.From, err)
	}
	if cfg.Password != "" && cfg.User == "" {
		return nil, errors.New("-smtp-password needs -smtp-user")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.HelloName == "" {
		cfg.HelloName = "localhost"
	}
	return &Sender{cfg: cfg, from: from}, nil
}

// From is the sender's address.
func (s *Sender) From() *mail.Address { return s.from }

// PermanentError is a refusal the server says will not change on a retry
// (a 5xx reply: no such mailbox, message refused, authentication failed).
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// classify marks the server's 5xx replies permanent; anything else (4xx,
// a network fault, a timeout) is worth retrying.
func classify(err error) error {
	var tp *textproto.Error
	if errors.As(err, &tp) && tp.Code >= 500 {
		return &PermanentError{err}
	}
	return err
}

// authAllowed says whether credentials may be sent: over TLS, or to the
// loopback where no network sees them (the names net/smtp's PLAIN accepts
// in clear).
func authAllowed(tlsOn bool, host string) bool {
	return tlsOn || host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// Send delivers one message (built by Message.Bytes) to one recipient.
// It upgrades to TLS with STARTTLS when the server offers it, and refuses
// to authenticate without TLS except to the loopback.
func (s *Sender) Send(ctx context.Context, to string, msg []byte) (err error) {
	rcpt, err := mail.ParseAddress(to)
	if err != nil {
		return &PermanentError{fmt.Errorf("recipient %q: %v", to, err)}
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("smtp dial %s: %w", s.cfg.Addr, err)
	}
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	// Cancelling the context closes the connection, so a stuck server
	// frees the sender at shutdown too.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	host, _, _ := net.SplitHostPort(s.cfg.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp %s: %w", s.cfg.Addr, classify(err))
	}
	defer c.Close()
	if err := s.converse(c, host, rcpt.Address, msg); err != nil {
		return fmt.Errorf("smtp %s: %w", s.cfg.Addr, classify(err))
	}
	return nil
}

func (s *Sender) converse(c *smtp.Client, host, rcpt string, msg []byte) error {
	if err := c.Hello(s.cfg.HelloName); err != nil {
		return err
	}
	tlsOn := false
	if ok, _ := c.Extension("STARTTLS"); ok {
		cfg := s.cfg.TLS.Clone()
		if cfg == nil {
			cfg = &tls.Config{}
		}
		if cfg.ServerName == "" {
			cfg.ServerName = host
		}
		cfg.MinVersion = max(cfg.MinVersion, tls.VersionTLS12)
		if err := c.StartTLS(cfg); err != nil {
			return fmt.Errorf("starttls: %w", err)
		}
		tlsOn = true
	}
	if s.cfg.User != "" {
		if !authAllowed(tlsOn, host) {
			return &PermanentError{fmt.Errorf("the server does not offer STARTTLS: the password is not sent in clear to %s", host)}
		}
		if ok, _ := c.Extension("AUTH"); !ok {
			return &PermanentError{errors.New("the server offers no AUTH, but -smtp-user is set")}
		}
		if err := c.Auth(smtp.PlainAuth("", s.cfg.User, s.cfg.Password, host)); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
	}
	if err := c.Mail(s.from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(rcpt); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// cleanHeader puts a header's text on one line: no CR, LF or other
// control character can start a header of its own.
func cleanHeader(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
