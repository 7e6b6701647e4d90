package store_test

import (
	"testing"

	"hindsight/store"
)

// URLs are contracts: the seeds keep their slugs, and the titles of the
// seeds (one of them Spanish) slug as they did before folding moved to
// textnorm (checked then against the old code on every line of the corpus
// and the seed documents).
func TestSlugsStay(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	for _, slug := range []string{"facebook-2010-09-23-outage", "facebook-2010-09-23-outage-rewrite",
		"facebook-2010-09-23-outage-es", "dreamwidth-2020-05-25-site-interruptions", "gmail-2009-09-01-request-router-overload"} {
		if _, err := st.GetPostmortem(t.Context(), slug); err != nil {
			t.Errorf("seed %s: %v", slug, err)
		}
	}
	for _, tt := range []struct{ title, want string }{
		{"More Details on Today's Outage", "more-details-on-today-s-outage"},
		{"Más detalles sobre la caída de hoy", "mas-detalles-sobre-la-caida-de-hoy"},
		{"Tonight's site interruptions", "tonight-s-site-interruptions"},
		{"More on today's Gmail issue", "more-on-today-s-gmail-issue"},
		{"Configuración: réplica caída (2ª vez)", "configuracion-replica-caida-2-vez"},
	} {
		if got := store.Slugify(tt.title); got != tt.want {
			t.Errorf("Slugify(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}
