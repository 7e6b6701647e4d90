package handlers

import (
	"net/http"
	"net/netip"
	"strings"
)

// clientIP returns the address of the client that sent r, for the logs.
// A peer that is not a trusted proxy is the client. Behind trusted proxies,
// the client is the rightmost X-Forwarded-For entry that is not itself a
// trusted proxy: entries to its right were appended by our proxies, entries
// to its left were sent by the client and may be forged. (chi's RealIP
// believed the leftmost entry, which any client can set.) chi's
// ClientIPFromXFF (v5.5) walks the same way but leaves no address when an
// entry is garbage, when every hop is a trusted proxy or when no header
// came, and refuses an empty list of proxies; the per-client limits and the
// audit log need an address for every request.
func (h *Handler) clientIP(r *http.Request) string {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	client := peer.Addr().Unmap()
	if !h.trusted(client) {
		if peer.Addr().Is4() {
			// RemoteAddr holds it as String writes it ("192.0.2.7:4000":
			// ParseAddr takes no other form of an IPv4 address).
			return r.RemoteAddr[:strings.LastIndexByte(r.RemoteAddr, ':')]
		}
		return client.String()
	}
	hops := forwarded(r.Header, "X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			break // garbage from the client's side: keep the last known hop
		}
		client = a.Unmap()
		if !h.trusted(client) {
			break
		}
	}
	return client.String()
}

// origin is the scheme and host the client asked for, for absolute URLs:
// https when the connection is TLS, or when a trusted proxy, which ended
// TLS and talks plain http to us, says so in X-Forwarded-Proto. The proxy
// nearest us wrote the last value.
func (h *Handler) origin(r *http.Request) string { return h.scheme(r) + "://" + r.Host }

func (h *Handler) scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	if h.trusted(peerAddr(r)) {
		if protos := forwarded(r.Header, "X-Forwarded-Proto"); len(protos) > 0 && strings.EqualFold(protos[len(protos)-1], "https") {
			return "https"
		}
	}
	return "http"
}

// peerAddr is the address of the peer that sent r, the zero Addr if
// RemoteAddr is not an address and port.
func peerAddr(r *http.Request) netip.Addr {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return peer.Addr().Unmap()
}

// forwarded is the comma-separated list in the header key, over all its
// lines, in order: each proxy appends its entry on the right.
func forwarded(header http.Header, key string) []string {
	var out []string
	for _, v := range header.Values(key) {
		for e := range strings.SplitSeq(v, ",") {
			out = append(out, strings.TrimSpace(e))
		}
	}
	return out
}

// trusted reports whether a is one of the trusted proxies; never for the
// zero Addr.
func (h *Handler) trusted(a netip.Addr) bool {
	for _, p := range h.trustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
