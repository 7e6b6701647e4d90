package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
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
			return nil, fmt.Errorf("%q: want origins such as https://grafana.example.com", s)
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	return out, nil
}

// exportAttachments writes the attachments md shows into a folder beside
// the Markdown file mdPath (its name with .files for .md), and returns md
// with their links made relative to it, as import reads them back.
func exportAttachments(ctx context.Context, st *store.Store, md, mdPath string) (string, error) {
	ids := store.AttachmentIDs(md)
	if len(ids) == 0 {
		return md, nil
	}
	folder := strings.TrimSuffix(filepath.Base(mdPath), ".md") + ".files"
	if err := os.MkdirAll(filepath.Join(filepath.Dir(mdPath), folder), 0o755); err != nil {
		return md, err
	}
	used := map[string]bool{}
	for _, id := range ids {
		a, err := st.GetAttachment(ctx, id, "")
		if errors.Is(err, store.ErrNotFound) {
			continue // the link stays as written
		}
		if err != nil {
			return md, err
		}
		name := a.Name
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%d-%s", i, a.Name)
		}
		used[name] = true
		if err := writeAttachment(ctx, st, a, filepath.Join(filepath.Dir(mdPath), folder, name)); err != nil {
			return md, err
		}
		md = strings.ReplaceAll(md, a.URL(), folder+"/"+name)
	}
	return md, nil
}

func writeAttachment(ctx context.Context, st *store.Store, a store.Attachment, dest string) error {
	f, err := os.Create(dest)
	if err != nil {
		return err
	}
	if err := st.WriteAttachment(ctx, a, f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
