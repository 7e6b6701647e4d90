package listening_test

import (
	"testing"

	"hindsight/internal/listening"
)

func TestURL(t *testing.T) {
	tests := []struct{ log, want string }{
		{"", ""},
		{"time=2026-12-01T07:41:37Z level=INFO msg=seeded patterns=25\n", ""},
		{"level=INFO msg=seeded\nlevel=INFO msg=listening url=http://127.0.0.1:41979 db=h.db max_inflight=64\n", "http://127.0.0.1:41979"},
		{"level=INFO msg=listening url=http://127.0.0.1:", ""}, // half written
		{"level=INFO msg=listening url=http://127.0.0.1:419", ""},
		{`{"time":"2026-12-01T10:48:54Z","level":"INFO","msg":"seeded","patterns":25}` + "\n" +
			`{"time":"2026-12-01T10:48:55Z","level":"INFO","msg":"listening","url":"http://127.0.0.1:34321","db":"h.db"}` + "\n", "http://127.0.0.1:34321"},
		{`{"level":"INFO","msg":"listening","url":"http://127.0.0.1:343`, ""},
	}
	for _, tt := range tests {
		if got := listening.URL([]byte(tt.log)); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.log, got, tt.want)
		}
	}
}
