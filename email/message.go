package email

import (
	"bytes"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"time"
)

// Message is one notification to one person: the same text twice, as
// plain text and as HTML (multipart/alternative, the HTML last: mail
// readers show the last part they can).
type Message struct {
	From    *mail.Address
	To      *mail.Address
	Subject string
	Text    string
	HTML    string
	Date    time.Time
	// ID is the Message-ID without its angle brackets, the same on every
	// attempt to send the same notification to the same person, so that
	// a receiver can drop a copy sent again after a crash.
	ID string
	// SettingsURL is where the person turns notifications off; it is the
	// List-Unsubscribe header when set.
	SettingsURL string
}

// Bytes is the message as sent: RFC 5322 headers, CRLF line ends, both
// parts quoted-printable in UTF-8.
func (m Message) Bytes() ([]byte, error) {
	if m.From == nil || m.To == nil {
		return nil, fmt.Errorf("message without From or To")
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, part := range []struct{ typ, text string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		w, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {part.typ + "; charset=utf-8"},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, err
		}
		qp := quotedprintable.NewWriter(w)
		if _, err := qp.Write(crlf(part.text)); err != nil {
			return nil, err
		}
		if err := qp.Close(); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&out, "%s: %s\r\n", k, v) }
	header("From", m.From.String())
	header("To", m.To.String())
	header("Subject", mime.QEncoding.Encode("utf-8", cleanHeader(m.Subject)))
	header("Date", m.Date.Format(time.RFC1123Z))
	if m.ID != "" {
		header("Message-ID", "<"+cleanHeader(m.ID)+">")
	}
	header("MIME-Version", "1.0")
	// Automatic mail: no vacation replies to it (RFC 3834).
	header("Auto-Submitted", "auto-generated")
	if m.SettingsURL != "" {
		header("List-Unsubscribe", "<"+cleanHeader(m.SettingsURL)+">")
	}
	header("Content-Type", `multipart/alternative; boundary="`+mw.Boundary()+`"`)
	out.WriteString("\r\n")
	out.Write(body.Bytes())
	return out.Bytes(), nil
}

// crlf gives text CRLF line ends, as SMTP wants.
func crlf(s string) []byte {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			b.WriteString("\r\n")
		case '\n':
			b.WriteString("\r\n")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.Bytes()
}
