package http

import (
	"net/http/httptest"
	"testing"
)

func TestClientIP(t *testing.T) {
	tests := []struct {
		name    string
		trust   bool
		proxies int
		remote  string
		xff     []string // one X-Forwarded-For header per element
		want    string
	}{
		{"no proxy: remote address", false, 0, "192.0.2.1:5000", []string{"10.0.0.1"}, "192.0.2.1"},
		{"one proxy: rightmost", true, 1, "192.0.2.1:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"one proxy: the client's own entry is ignored", true, 1, "192.0.2.1:5000", []string{"10.0.0.1, 203.0.113.9"}, "203.0.113.9"},
		{"default hop count is one", true, 0, "192.0.2.1:5000", []string{"10.0.0.1, 203.0.113.9"}, "203.0.113.9"},
		{"two proxies", true, 2, "192.0.2.1:5000", []string{"10.0.0.1, 203.0.113.9, 198.51.100.4"}, "203.0.113.9"},
		{"several headers form one list", true, 2, "192.0.2.1:5000", []string{"10.0.0.1, 203.0.113.9", "198.51.100.4"}, "203.0.113.9"},
		{"shorter list than hops: leftmost", true, 3, "192.0.2.1:5000", []string{"203.0.113.9, 198.51.100.4"}, "203.0.113.9"},
		{"garbage entry: remote address", true, 1, "192.0.2.1:5000", []string{"10.0.0.1, not-an-ip"}, "192.0.2.1"},
		{"no header: remote address", true, 1, "192.0.2.1:5000", nil, "192.0.2.1"},
		{"IPv4-mapped IPv6 unmapped", true, 1, "192.0.2.1:5000", []string{" ::ffff:203.0.113.9 "}, "203.0.113.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewServer(Config{TrustProxy: tt.trust, TrustedProxies: tt.proxies})
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := s.clientIP(r); got != tt.want {
				t.Errorf("clientIP = %q, want %q", got, tt.want)
			}
		})
	}
}
