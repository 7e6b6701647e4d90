package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"hindsight/email"
	"hindsight/handlers"
	"hindsight/notify"
	"hindsight/store"
)

// mailConfig is the email channel's and the reminders' configuration
// (issue 32).
type mailConfig struct {
	addr, from, user, password string
	// digestEvery is the digest's period; 0 sends no digest.
	digestEvery time.Duration
}

// check refuses a configuration that cannot send.
func (c mailConfig) check() error {
	if c.digestEvery != 0 && c.digestEvery < time.Hour {
		return errors.New("-digest-interval: want 0 (no digest) or at least 1h")
	}
	if c.addr == "" {
		if c.from != "" || c.user != "" || c.password != "" {
			return errors.New("-smtp-from, -smtp-user and -smtp-password need -smtp-addr")
		}
		return nil
	}
	if c.from == "" {
		return errors.New("-smtp-addr needs -smtp-from, the address the emails come from")
	}
	_, err := c.sender()
	return err
}

func (c mailConfig) sender() (*email.Sender, error) {
	return email.NewSender(email.Config{Addr: c.addr, From: c.from, User: c.user, Password: c.password})
}

// mailChannels is the email channel when -smtp-addr is set, and the
// handler options that go with it.
func mailChannels(cfg config, st *store.Store, log *slog.Logger) ([]notify.Channel, []handlers.Option, error) {
	if cfg.mail.addr == "" {
		return nil, nil, nil
	}
	s, err := cfg.mail.sender()
	if err != nil {
		return nil, nil, err
	}
	ch, err := notify.NewEmail(st, s, notify.EmailOptions{Site: cfg.publicURL, ReviewDue: handlers.ReviewDueFunc(cfg.reviewDueDays),
		DigestEvery: cfg.mail.digestEvery, Log: log})
	if err != nil {
		return nil, nil, fmt.Errorf("email: %w", err)
	}
	if cfg.publicURL == nil {
		log.Warn("emails carry paths, not links: set -public-url")
	}
	if cfg.auth.Mode != "proxy" {
		log.Warn("email goes to people as the sign-in proxy names them, at the address it gives: with -auth none nobody has one, and no email is sent")
	}
	return []notify.Channel{ch}, []handlers.Option{handlers.MailOn()}, nil
}

// startReminders runs the reminder scheduler (action items due and
// overdue, postmortems overdue, the digest) until the returned stop is
// called, which waits for it.
func startReminders(ctx context.Context, cfg config, st *store.Store, log *slog.Logger) (stop func()) {
	sch := &notify.Scheduler{Store: st, Log: log, ReviewDue: handlers.ReviewDueFunc(cfg.reviewDueDays), Now: time.Now}
	if cfg.mail.addr != "" {
		// The digest is written for each person: without email there
		// is no one to write it for.
		sch.DigestEvery = cfg.mail.digestEvery
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sch.Run(ctx)
	}()
	return func() { cancel(); <-done }
}
