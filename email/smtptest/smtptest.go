// Package smtptest runs a real SMTP server for tests (github.com/emersion/go-smtp):
// STARTTLS with a certificate made for the test, AUTH PLAIN, and every
// message it accepts kept for the test to read.
package smtptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Options shape the server.
type Options struct {
	// NoTLS: the server does not offer STARTTLS.
	NoTLS bool
	// User and Password, when set, are the only credentials AUTH accepts;
	// AUTH is offered either way (over TLS, or in clear when NoTLS).
	User, Password string
	// RequireAuth refuses MAIL before a successful AUTH.
	RequireAuth bool
	// Refuse, when set, answers RCPT for these addresses with 550.
	Refuse map[string]bool
}

// Received is one message the server accepted.
type Received struct {
	From string
	To   []string
	Data []byte
	// TLS says the session had upgraded with STARTTLS; User is who
	// authenticated ("" when no one).
	TLS  bool
	User string
}

// Server is a running SMTP server.
type Server struct {
	Addr string
	// RootCAs trusts the server's certificate (for the client's TLS).
	RootCAs *x509.CertPool

	opts Options
	srv  *smtp.Server
	mu   sync.Mutex
	msgs []Received
	// AuthAttempts counts AUTH exchanges, failed or not.
	authAttempts int
}

// Start runs a server on a loopback port until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{opts: opts}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{s: s, conn: c}, nil
	}))
	srv.Domain = "localhost"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 1 << 20
	srv.MaxRecipients = 10
	// In clear only when the test asks for no TLS (to test the loopback
	// rule); otherwise AUTH waits for STARTTLS.
	srv.AllowInsecureAuth = opts.NoTLS
	if !opts.NoTLS {
		cert, pool, err := selfSigned()
		if err != nil {
			t.Fatal(err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		s.RootCAs = pool
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr, s.srv = l.Addr().String(), srv
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return s
}

// Messages returns what the server accepted so far, in order.
func (s *Server) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.msgs...)
}

// AuthAttempts counts the AUTH exchanges so far.
func (s *Server) AuthAttempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authAttempts
}

type session struct {
	s    *Server
	conn *smtp.Conn
	user string
	msg  Received
}

func (se *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (se *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		se.s.mu.Lock()
		se.s.authAttempts++
		se.s.mu.Unlock()
		if username != se.s.opts.User || password != se.s.opts.Password || se.s.opts.User == "" {
			return smtp.ErrAuthFailed
		}
		se.user = username
		return nil
	}), nil
}

func (se *session) Mail(from string, _ *smtp.MailOptions) error {
	if se.s.opts.RequireAuth && se.user == "" {
		return smtp.ErrAuthRequired
	}
	_, isTLS := se.conn.TLSConnectionState()
	se.msg = Received{From: from, TLS: isTLS, User: se.user}
	return nil
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if se.s.opts.Refuse[to] {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
	}
	se.msg.To = append(se.msg.To, to)
	return nil
}

func (se *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	se.msg.Data = b
	se.s.mu.Lock()
	se.s.msgs = append(se.s.msgs, se.msg)
	se.s.mu.Unlock()
	return nil
}

func (se *session) Reset()        { se.msg = Received{} }
func (se *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and localhost, and a pool
// that trusts it.
func selfSigned() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "smtptest"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool, nil
}
