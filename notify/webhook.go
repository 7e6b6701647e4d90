package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"hindsight/store"
)

// Webhook posts events as signed JSON to a URL (-webhook).
type Webhook struct {
	url    string // without the #events filter
	host   string
	events []string // the kinds it takes; all when empty
	secret []byte
	site   *url.URL // -public-url, for the postmortems' links
	client *http.Client
}

// The headers of a webhook's request.
const (
	HeaderSignature = "X-Hindsight-Signature"
	HeaderEvent     = "X-Hindsight-Event"
	HeaderEventID   = "X-Hindsight-Event-Id"
)

// NewWebhook returns the webhook of spec: an http or https URL, with an
// optional filter of the event kinds it takes in its fragment
// (https://example.com/hook#events=review.requested,comment.created).
// Each request's body is signed with secret (no signature when it is
// empty); links are made from site (-public-url; none when nil).
func NewWebhook(spec string, secret string, site *url.URL) (*Webhook, error) {
	u, err := url.Parse(strings.TrimSpace(spec))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("webhook %q: want an absolute http or https URL", redactURL(spec))
	}
	w := &Webhook{host: u.Host, secret: []byte(secret), site: site, client: newClient()}
	if f := u.Fragment; f != "" {
		kinds, ok := strings.CutPrefix(f, "events=")
		if !ok {
			return nil, fmt.Errorf("webhook %s: the part after # must be events=KIND,KIND,…", redactURL(spec))
		}
		for k := range strings.SplitSeq(kinds, ",") {
			if k = strings.TrimSpace(k); k == "" {
				continue
			}
			if !slices.Contains(store.EventKinds, k) {
				return nil, fmt.Errorf("webhook %s: unknown event %q; the events are %s", redactURL(spec), k, strings.Join(store.EventKinds, ", "))
			}
			w.events = append(w.events, k)
		}
	}
	u.Fragment, u.RawFragment = "", ""
	w.url = u.String()
	return w, nil
}

// SplitWebhooks splits HINDSIGHT_WEBHOOKS, a comma-separated list of
// webhooks: a piece that does not start a URL (http:// or https://)
// continues the previous one's event filter, so
// "https://a/hook#events=review.requested,comment.created,https://b/hook"
// is two webhooks.
func SplitWebhooks(list string) []string {
	var out []string
	for piece := range strings.SplitSeq(list, ",") {
		piece = strings.TrimSpace(piece)
		if piece == "" {
			continue
		}
		lower := strings.ToLower(piece)
		if len(out) > 0 && !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
			out[len(out)-1] += "," + piece
			continue
		}
		out = append(out, piece)
	}
	return out
}

// redactURL is a URL as it may be logged or shown: scheme and host, as
// the path or query of a hook's URL is often its secret.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "(an unreadable URL)"
	}
	return u.Scheme + "://" + u.Host + "/…"
}

func newClient() *http.Client {
	return &http.Client{
		Timeout: sendTimeout,
		// A redirect is an answer, not a delivery: the receiver must be
		// configured at its real address.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Name is "webhook:" and the first 8 hex digits of the SHA-256 of the URL:
// it stays the same when hooks are listed in another order.
func (w *Webhook) Name() string {
	sum := sha256.Sum256([]byte(w.url))
	return "webhook:" + hex.EncodeToString(sum[:4])
}

// String names the hook by its host only.
func (w *Webhook) String() string { return "webhook to " + w.host }

// Shared: whoever runs the receiver reads what it gets.
func (w *Webhook) Shared() bool { return true }

// Targets is the hook itself, for the kinds it takes.
func (w *Webhook) Targets(_ context.Context, e store.Event) ([]string, error) {
	if len(w.events) > 0 && !slices.Contains(w.events, e.Kind) {
		return nil, nil
	}
	return []string{w.Name()}, nil
}

// Payload is a webhook's JSON body.
type Payload struct {
	ID         int64              `json:"id"`
	Event      string             `json:"event"`
	At         time.Time          `json:"at"`
	Actor      string             `json:"actor,omitempty"`
	Postmortem *PayloadPostmortem `json:"postmortem,omitempty"`
	Change     store.EventChange  `json:"change"`
}

// PayloadPostmortem names the event's postmortem, with its address when
// -public-url is set.
type PayloadPostmortem struct {
	Slug  string `json:"slug"`
	Title string `json:"title"`
	URL   string `json:"url,omitempty"`
}

// NewPayload is e as a webhook's body; links are made from site.
func NewPayload(e store.Event, site *url.URL) Payload {
	p := Payload{ID: e.ID, Event: e.Kind, At: e.At.UTC(), Actor: e.Actor, Change: e.Change}
	if e.Postmortem != nil {
		p.Postmortem = &PayloadPostmortem{Slug: e.Postmortem.Slug, Title: e.Postmortem.Title, URL: postmortemURL(site, e.Postmortem.Slug)}
	}
	return p
}

// postmortemURL is the postmortem's address under site, "" without one.
func postmortemURL(site *url.URL, slug string) string {
	if site == nil || slug == "" {
		return ""
	}
	return strings.TrimSuffix(site.String(), "/") + "/postmortems/" + url.PathEscape(slug)
}

// Sign is the X-Hindsight-Signature of body under secret:
// "sha256=" and the hex HMAC-SHA256.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether signature is body's under secret, in constant
// time: what a receiver does.
func Verify(secret, body []byte, signature string) bool {
	return hmac.Equal([]byte(signature), []byte(Sign(secret, body)))
}

// Send posts the event; any answer but 2xx is an error.
func (w *Webhook) Send(ctx context.Context, _ string, e store.Event) error {
	body, err := marshal(NewPayload(e, w.site))
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Hindsight-Webhook")
	req.Header.Set(HeaderEvent, e.Kind)
	req.Header.Set(HeaderEventID, strconv.FormatInt(e.ID, 10))
	if len(w.secret) > 0 {
		req.Header.Set(HeaderSignature, Sign(w.secret, body))
	}
	return post(w.client, req)
}

// marshal is v as JSON, with <, > and & as they are (not escaped for
// HTML): Slack's links read as written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// post sends req and turns an answer other than 2xx into an error that
// quotes the start of the answer.
func post(client *http.Client, req *http.Request) error {
	resp, err := client.Do(req)
	if err != nil {
		// The error quotes the URL, which may hold a secret.
		if ue, ok := err.(*url.Error); ok {
			return fmt.Errorf("%s %s: %w", ue.Op, redactURL(ue.URL), ue.Err)
		}
		return err
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	if resp.StatusCode/100 == 2 {
		return nil
	}
	msg := strings.Join(strings.Fields(string(head)), " ")
	if !utf8.ValidString(msg) {
		msg = strings.ToValidUTF8(msg, "�")
	}
	return fmt.Errorf("answered %s: %s", resp.Status, msg)
}
