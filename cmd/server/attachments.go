package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"hindsight/store"
)

// attachmentGrace is how long an attachment no saved version references
// is kept: a writer uploads, then saves, often much later.
const attachmentGrace = 7 * 24 * time.Hour

// collectAttachments removes, every interval until ctx ends, the
// attachments no saved version has referenced for grace; each removal is
// in the audit trail, as the server's.
func collectAttachments(ctx context.Context, st *store.Store, log *slog.Logger, interval, grace time.Duration) {
	actor := store.WithActor(ctx, store.Actor{Name: "hindsight", Via: "job"})
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		n, err := st.CollectAttachments(actor, time.Now(), grace)
		if err != nil {
			log.Error("collect attachments", "err", err)
		} else if n > 0 {
			log.Info("collected attachments", "removed", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// parseImgSrc reads -img-src: comma-separated http or https origins (a
// host may start with *. for its subdomains), each a CSP source.
func parseImgSrc(v string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
			u.RawQuery != "" || u.Fragment != "" || u.User != nil || strings.ContainsAny(s, " ;'\"") {
			return nil, fmt.Errorf("-img-src %q: want origins such as https://grafana.example.com", s)
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	return out, nil
}
