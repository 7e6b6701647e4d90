package storetest

import (
	"context"

	"hindsight/postmortem"
	"hindsight/store"
)

// SearchFixtures are postmortems of our own, next to the seeds: English and
// Spanish, a variant pair, an archived one, and one whose text never names
// its pattern.
func SearchFixtures() []store.Postmortem {
	return []store.Postmortem{
		{
			Content: postmortem.Content{
				Title:        "Checkout API brought down by its own clients",
				Organization: "Acme Payments",
				IncidentDate: "2023-03-14",
				Severity:     "SEV2",
				Language:     "en",
				Summary:      "A slow database made checkout calls time out; the mobile SDK retried every failed call immediately and the load tripled.",
				Body:         "## What happened\n\nClients retried without backoff or jitter. Each retry added load, so more calls failed and were retried again.",
				Tags:         []store.Tag{{PatternSlug: "retry-storm", Role: postmortem.RoleAmplifier}},
			},
			Slug: "acme-checkout-retry-storm",
			ActionItems: []store.ActionItem{
				{Title: "Add exponential backoff with jitter to the SDK", Kind: postmortem.KindPrevent},
			},
		},
		{
			Content: postmortem.Content{
				Title:        "La API de pago, tumbada por sus propios clientes",
				Organization: "Acme Payments",
				IncidentDate: "2023-03-14",
				Severity:     "SEV2",
				Language:     "es",
				Summary:      "Una base de datos lenta hizo que las llamadas de pago expiraran; el SDK reintentaba cada llamada fallida y la carga se triplicó.",
				Body:         "Los clientes reintentaban sin retroceso exponencial. Cada reintento añadía carga.",
				Tags:         []store.Tag{{PatternSlug: "retry-storm", Role: postmortem.RoleAmplifier}},
			},
			Slug:        "acme-checkout-retry-storm-es",
			VariantOf:   "acme-checkout-retry-storm",
			VariantKind: postmortem.KindTranslation,
		},
		{
			Content: postmortem.Content{
				Title:        "Tormenta de reintentos en el servicio de pagos",
				Organization: "Banco Ejemplo",
				IncidentDate: "2022-11-02",
				Severity:     "SEV1",
				Language:     "es",
				Summary:      "Los clientes seguían reintentando y el pool de conexiones de la base de datos se agotó.",
				Body:         "Durante dos horas hubo agotamiento de conexiones: cada petición abría una conexión nueva y la configuración inválida del pool empeoró la situación.",
				Tags: []store.Tag{
					{PatternSlug: "retry-storm", Role: postmortem.RoleAmplifier},
					{PatternSlug: "connection-exhaustion", Role: postmortem.RoleTrigger},
				},
			},
			Slug: "banco-pagos-tormenta",
		},
		{
			Content: postmortem.Content{
				Title:        "Mobile clients reconnected in lockstep after a gateway restart",
				Organization: "ChatCo",
				IncidentDate: "2021-06-30",
				Severity:     "SEV2",
				Language:     "en",
				Summary:      "Restarting the push gateway dropped every session; all phones came back within the same second.",
				Body:         "The reconnect storm saturated the login service for forty minutes.",
				Tags:         []store.Tag{{PatternSlug: "thundering-herd", Role: postmortem.RoleTrigger}},
			},
			Slug: "chatco-lockstep-reconnect",
		},
		{
			Content: postmortem.Content{
				Title:        "Internal certificate expired on the payments mesh",
				Organization: "Acme Payments",
				IncidentDate: "2023-08-01",
				Severity:     "SEV3",
				Language:     "en",
				Summary:      "An intermediate certificate of the internal CA expired and service-to-service TLS failed.",
				Tags:         []store.Tag{{PatternSlug: "certificate-expiry", Role: postmortem.RoleTrigger}},
			},
			Slug: "acme-expired-certificate",
		},
		{
			Content: postmortem.Content{
				Title:        "DNS resolver timeouts",
				Organization: "Acme Payments",
				IncidentDate: "2023-01-05",
				Language:     "en",
				Summary:      "The resolver fleet timed out after a bad certificate rotation.",
				Tags:         []store.Tag{{PatternSlug: "dns-failure", Role: postmortem.RoleTrigger}},
			},
			Slug:       "archived-dns-outage",
			ArchivedAt: "2024-01-01T00:00:00Z",
		},
	}
}

// Searchable is the database with the seeds and SearchFixtures.
var Searchable = Template(func(ctx context.Context, st *store.Store) error {
	if err := LoadSeeds(ctx, st); err != nil {
		return err
	}
	for _, p := range SearchFixtures() {
		if err := st.CreatePostmortem(ctx, &p); err != nil {
			return err
		}
	}
	return nil
})

// Draft is a postmortem as an author first saves it: the required fields,
// a tag, an impact and the incident's times.
func Draft(title string) store.Postmortem {
	return store.Postmortem{
		Content: postmortem.Content{
			Title:        title,
			Organization: "Example Corp",
			Summary:      "The API returned errors.",
			Tags:         []store.Tag{{PatternSlug: "retry-storm", Role: postmortem.RoleTrigger}},
			Sections: postmortem.Sections{
				Impact: "Users saw errors.\n",
			},
			Times: postmortem.Times{
				StartedAt:  "2024-03-05T14:00:00-05:00",
				ResolvedAt: "2024-03-05T15:30:00-05:00",
				TimeZone:   "America/New_York",
			},
		},
		SavedBy:  "Ada",
		SaveNote: "first draft",
	}
}
