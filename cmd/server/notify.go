package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"

	"hindsight/handlers"
	"hindsight/notify"
	"hindsight/store"
)

// notifyConfig is where events are sent (issue 32).
type notifyConfig struct {
	// webhooks are the -webhook specs: a URL, with an optional
	// #events=KIND,KIND filter.
	webhooks      []string
	webhookSecret string
	slackWebhook  string
}

// checkNotify checks the notification settings as the server starts.
func checkNotify(c *config) error {
	_, err := c.notify.channels(c.publicURL)
	return err
}

// channels builds the configured channels; links are made from site.
func (c notifyConfig) channels(site *url.URL) ([]notify.Channel, error) {
	var out []notify.Channel
	for _, spec := range c.webhooks {
		w, err := notify.NewWebhook(spec, c.webhookSecret, site)
		if err != nil {
			return nil, fmt.Errorf("-webhook: %w", err)
		}
		out = append(out, w)
	}
	if c.slackWebhook != "" {
		s, err := notify.NewSlack(c.slackWebhook, site)
		if err != nil {
			return nil, fmt.Errorf("-slack-webhook: %w", err)
		}
		out = append(out, s)
	}
	seen := map[string]bool{}
	for _, ch := range out {
		if seen[ch.Name()] {
			return nil, fmt.Errorf("-webhook: the same URL twice (%s)", ch)
		}
		seen[ch.Name()] = true
	}
	return out, nil
}

// startSender starts delivering the outbox's events to the configured
// channels, and returns the handler options that show them on
// /admin/deliveries and stop, which stops the sender and waits for it.
func startSender(ctx context.Context, cfg config, st *store.Store, log *slog.Logger) (opts []handlers.Option, stop func(), err error) {
	channels, err := cfg.notify.channels(cfg.publicURL)
	if err != nil {
		return nil, nil, err
	}
	mail, mailOpts, err := mailChannels(cfg, st, log)
	if err != nil {
		return nil, nil, err
	}
	channels = append(channels, mail...)
	if len(channels) > 0 && cfg.publicURL == nil {
		log.Warn("notifications carry no links to the postmortems: set -public-url")
	}
	s := notify.NewSender(st, log, channels...)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	names := map[string]string{}
	for _, ch := range channels {
		names[ch.Name()] = notify.Describe(ch)
	}
	stopReminders := func() {}
	if len(channels) > 0 {
		stopReminders = startReminders(ctx, cfg, st, log)
	}
	return append(mailOpts, handlers.NotifyChannels(names)), func() { stopReminders(); cancel(); <-done }, nil
}
