package notify

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"hindsight/store"
)

// Slack posts events to a Slack or Mattermost incoming webhook
// (-slack-webhook) as a line of text with a link to the postmortem.
type Slack struct {
	url    string
	host   string
	site   *url.URL
	client *http.Client
}

// NewSlack returns the channel of an incoming webhook's URL; links are
// made from site (-public-url).
func NewSlack(rawURL string, site *url.URL) (*Slack, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("slack webhook %s: want an absolute http or https URL", redactURL(rawURL))
	}
	return &Slack{url: u.String(), host: u.Host, site: site, client: newClient()}, nil
}

// Name is "slack".
func (s *Slack) Name() string { return "slack" }

// String names the channel by its host only: the URL is its secret.
func (s *Slack) String() string { return "Slack or Mattermost at " + s.host }

// Shared: everyone in the channel reads it.
func (s *Slack) Shared() bool { return true }

// Targets is the channel, for every event.
func (s *Slack) Targets(context.Context, store.Event) ([]string, error) {
	return []string{s.Name()}, nil
}

// maxSlackQuote bounds the comment quoted in a message.
const maxSlackQuote = 300

// SlackText is e as a message's text, in Slack's markup (which Mattermost
// reads too): who did what, then a link to the postmortem.
func SlackText(e store.Event, site *url.URL) string {
	var b strings.Builder
	if e.Actor != "" {
		b.WriteString("*" + slackEscape(e.Actor) + "* ")
	}
	b.WriteString(slackEscape(e.Change.Summary))
	if p := e.Postmortem; p != nil {
		if link := postmortemURL(site, p.Slug); link != "" {
			b.WriteString(" — <" + link + "|" + slackEscape(p.Title) + ">")
		}
	}
	if c := e.Change.Comment; c != nil && c.Body != "" {
		quote := strings.Join(strings.Fields(c.Body), " ")
		if r := []rune(quote); len(r) > maxSlackQuote {
			quote = string(r[:maxSlackQuote]) + "…"
		}
		b.WriteString("\n>" + slackEscape(quote))
	} else if m := e.Change.Message; m != "" {
		b.WriteString("\n>" + slackEscape(strings.Join(strings.Fields(m), " ")))
	}
	return b.String()
}

// slackEscape escapes the three characters Slack's markup reserves.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// Send posts {"text": …}.
func (s *Slack) Send(ctx context.Context, _ string, e store.Event) error {
	body, err := marshal(map[string]string{"text": SlackText(e, s.site)})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Hindsight-Webhook")
	return post(s.client, req)
}
