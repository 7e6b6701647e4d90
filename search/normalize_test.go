package search_test

import (
	"slices"
	"testing"

	"hindsight/search"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Keep-alive connections (HTTP/1.1)", []string{"keep", "alive", "connections", "http", "1", "1"}},
		{"  ¿Qué pasó?  ", []string{"que", "paso"}},
		{"don't", []string{"don", "t"}},
		{"!!!", nil},
	}
	for _, tt := range tests {
		if got := search.Words(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIndexText(t *testing.T) {
	tests := []struct {
		text, lang, want string
	}{
		{"Clients retried; the retries caused a retry storm.", "en", "client retri the retri caus a retri storm"},
		{"Health checks were failing", "en", "health check were fail"},
		{"Los clientes seguían reintentando", "es", "los client segui reintent"},
		{"agotamiento de conexiones", "es", "agot de conexion"},
		{"Bucle de realimentación", "es", "bucl de realiment"},
		{"Bucle de realimentacion", "es", "bucl de realiment"},
		{"Configuraciones y configuración", "es", "configur y configur"},
		{"tecnologías", "es", "tecnolog"},
		{"Distribución y distribucion", "es", "distribu y distribu"},
		{"Retries", "de", "retries"},
		{"Retries", "", "retries"},
		{"", "en", ""},
	}
	for _, tt := range tests {
		if got := search.IndexText(tt.text, tt.lang); got != tt.want {
			t.Errorf("IndexText(%q, %q) = %q, want %q", tt.text, tt.lang, got, tt.want)
		}
	}
}
