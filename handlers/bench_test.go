package handlers_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"hindsight/bench/corpus"
	"hindsight/handlers"
	"hindsight/importer"
	"hindsight/library"
	"hindsight/seeds"
	"hindsight/store"
)

// benchApp is the application over the seeds and n generated postmortems,
// imported as a folder import does; it returns the generated documents.
func benchApp(b *testing.B, n int, opts ...handlers.Option) (http.Handler, []corpus.Doc) {
	b.Helper()
	ctx := b.Context()
	st, err := library.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := seeds.Load(ctx, st); err != nil {
		b.Fatal(err)
	}
	_, pats, err := seeds.Catalogue()
	if err != nil {
		b.Fatal(err)
	}
	g := corpus.New(1, pats)
	docs := make([]corpus.Doc, n)
	ps := make([]*store.Postmortem, n)
	for i := range docs {
		docs[i] = g.Doc(i)
		_, p, err := importer.Read(docs[i].Data, docs[i].Name)
		if err != nil {
			b.Fatal(err)
		}
		ps[i] = &p
	}
	errs, err := library.New(st).ImportPostmortems(ctx, ps)
	if err != nil {
		b.Fatal(err)
	}
	for i, err := range errs {
		if err != nil {
			b.Fatalf("%s: %v", docs[i].Name, err)
		}
	}
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...)
	if err != nil {
		b.Fatal(err)
	}
	return h, docs
}

// BenchmarkPages is the server-side cost of the pages the load benchmark
// (bench/run) measures, without the network: rendering, Markdown included,
// and the queries, over 500 postmortems. The whole-collection results the
// store keeps (counts, list pages) are warm after the first call, as on a
// server that is being used.
func BenchmarkPages(b *testing.B) {
	h, docs := benchApp(b, 500)
	longest := docs[0]
	for _, d := range docs {
		if len(d.Data) > len(longest.Data) {
			longest = d
		}
	}
	for _, bb := range []struct{ name, path string }{
		{"postmortem", "/postmortems/" + docs[1].Slug},
		{"postmortem-20kB", "/postmortems/" + longest.Slug},
		{"list", "/postmortems?" + url.Values{"pattern": {docs[1].Patterns[0]}, "year": {docs[1].Year}}.Encode()},
		{"pattern", "/patterns/" + docs[1].Patterns[0]},
		{"search", "/search?q=" + url.QueryEscape("connection pool exhausted")},
		{"home", "/"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			var n int64
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, bb.path, nil))
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: %d", bb.path, rec.Code)
				}
				n = int64(rec.Body.Len())
			}
			b.SetBytes(n)
		})
	}
}

// BenchmarkCachedPageServed serves a kept postmortem page over loopback
// HTTP, next to a bare net/http handler writing the same bytes: what the
// app adds to serving a cached page (router, middleware, cache lookup).
// Client and server share the process, as bench/run shares the machine.
func BenchmarkCachedPageServed(b *testing.B) {
	path, page, compared := appAndBare(b)
	for _, bb := range compared {
		b.Run(bb.name, func(b *testing.B) {
			srv := httptest.NewServer(bb.h)
			defer srv.Close()
			// httptest's server listens on 127.0.0.1, which the app
			// answers for; keep-alive as browsers and bench/run do.
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			defer client.CloseIdleConnections()
			b.SetBytes(int64(len(page)))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Get(srv.URL + path)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("GET %s: %d", path, resp.StatusCode)
						return
					}
				}
			})
		})
	}
}

// BenchmarkCachedPageHit is BenchmarkCachedPageServed without the network:
// the app's handler answering a kept postmortem page, and the bare handler,
// each called directly with a writer that drops the bytes, so that the
// difference is what the app does per hit beyond writing (middleware,
// cache lookup, log line, metrics), without the sockets' noise. As a
// server does, each request gets a new header map.
func BenchmarkCachedPageHit(b *testing.B) {
	path, page, compared := appAndBare(b)
	for _, bb := range compared {
		b.Run(bb.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				w := &droppingWriter{header: http.Header{}}
				bb.h.ServeHTTP(w, req)
				if w.status != http.StatusOK || w.bytes != len(page) {
					b.Fatalf("GET %s: %d, %d bytes", path, w.status, w.bytes)
				}
			}
		})
	}
}

// appAndBare is a postmortem page the app keeps (its path and bytes, once
// it has served it), and the two handlers the cached-page benchmarks
// compare: the app, and a bare net/http handler writing the same bytes.
func appAndBare(b *testing.B) (path string, page []byte, compared []namedHandler) {
	h, docs := benchApp(b, 50)
	path = "/postmortems/" + docs[1].Slug
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s: %d", path, rec.Code)
	}
	page = rec.Body.Bytes()
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
	return path, page, []namedHandler{{"app", h}, {"bare", bare}}
}

type namedHandler struct {
	name string
	h    http.Handler
}

// droppingWriter is a ResponseWriter that keeps the status and counts the
// bytes.
type droppingWriter struct {
	header        http.Header
	status, bytes int
}

func (w *droppingWriter) Header() http.Header { return w.header }

func (w *droppingWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *droppingWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.bytes += len(p)
	return len(p), nil
}

// BenchmarkNew builds the application over an open store, as the server
// does at start-up and every handlers test does.
func BenchmarkNew(b *testing.B) {
	st := openSeeded(b, filepath.Join(b.TempDir(), "bench.db"))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for b.Loop() {
		if _, err := handlers.New(st, log); err != nil {
			b.Fatal(err)
		}
	}
}
