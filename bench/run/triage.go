package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// triageTexts are what a responder pastes into "Have we seen this?": an
// alert, error lines, what users report; in English and Spanish, some
// naming a pattern of the catalogue and some none.
var triageTexts = []string{
	"Alert: checkout-api 5xx rate 23% for 10 min. Clients retry every failed request immediately and the retries are overwhelming the service.",
	"FIRING: db-primary connection pool exhausted (200/200 in use); requests to orders-api timing out after 30s.",
	"x509: certificate has expired or is not yet valid. The TLS certificate for api.example.com expired at 00:00 UTC and clients refuse to connect.",
	"DNS resolution failing for internal hosts: SERVFAIL from the resolvers in us-east-1 since 14:02.",
	"Cache hit rate dropped to 3% after the flush; every request goes to the database at once and its CPU is at 100%.",
	"Health checks failing on all web nodes after the config push; the load balancer marked every backend down.",
	"Replication lag on the replica is 40 minutes and growing; failover did not happen.",
	"Disk full on the logging cluster: no space left on device, writes rejected.",
	"Deploy of release 2024.11.3 at 10:14; error rate up since then. Rolling back.",
	"Kafka consumer lag growing on the orders topic; consumers rebalancing in a loop.",
	"Los clientes reintentan cada petición fallida sin espera y los reintentos saturan el servicio de pagos.",
	"Se agotaron las conexiones del pool de la base de datos; las peticiones fallan por tiempo de espera.",
	"Power outage in one row of the datacenter; the backup generators started but one failed. 14 racks down.",
	"Queue backlog of 2 million messages; workers crash on a poison message and restart in a loop.",
	"Thundering herd at the top of the hour: every cron job starts at once and the API latency spikes to 8 s.",
	"After the network partition both nodes think they are the primary: split brain, conflicting writes.",
}

// triageBodies are the texts as the JSON POST /api/triage reads.
func triageBodies() ([][]byte, error) {
	out := make([][]byte, len(triageTexts))
	for i, t := range triageTexts {
		b, err := json.Marshal(map[string]string{"text": t})
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// poster returns an op that POSTs bodies[i % len(bodies)] as JSON to
// base+path and reads the whole answer; anything but a 200 is an error.
func poster(client *http.Client, base, path string, bodies [][]byte) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		_, err := post(ctx, client, base+path, bodies[i%len(bodies)])
		return err
	}
}

func post(ctx context.Context, client *http.Client, u string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("POST %s: %s: %.200s", req.URL.Path, resp.Status, b)
	}
	return b, err
}
