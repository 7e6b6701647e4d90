package classify_test

import (
	"testing"

	"hindsight/classify"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Configuración de la Caché", "configuracion de la cache"},
		{"We didn't see it; keep-alive was ON.", "we didnt see it keep alive was on"},
		{"about 2.5 hrs, 2,5 horas, at 12:30", "about 2.5 hrs 2.5 horas at 12 30"},
		{"max_connections / MaxClients", "max connections maxclients"},
		{"Straße Œuvre naïve", "strasse oeuvre naive"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := classify.Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
