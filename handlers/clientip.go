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
// believed the leftmost entry, which any client can set.)
func (h *Handler) clientIP(r *http.Request) string {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	client := peer.Addr().Unmap()
	if !h.trusted(client) {
		return client.String()
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
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

func (h *Handler) trusted(a netip.Addr) bool {
	for _, p := range h.trustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// origin is the scheme and host the client asked for, for absolute URLs:
// https when the connection is TLS, or when a trusted proxy, which ended
// TLS and talks plain http to us, says so in X-Forwarded-Proto.
func (h *Handler) origin(r *http.Request) string {
	if r.TLS != nil || h.forwardedHTTPS(r) {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

func (h *Handler) forwardedHTTPS(r *http.Request) bool {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !h.trusted(peer.Addr().Unmap()) {
		return false
	}
	// The proxy nearest us wrote the last value.
	values := r.Header.Values("X-Forwarded-Proto")
	if len(values) == 0 {
		return false
	}
	last := values[len(values)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}
