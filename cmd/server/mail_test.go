package main

import (
	"io"
	"testing"
	"time"
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
