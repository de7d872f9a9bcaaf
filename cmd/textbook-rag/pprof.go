package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"
)

// pprofAddr is where --pprof ADDR listens: a bare port or ":PORT" means
// the loopback interface, so that profiles (which show the book's and
// the questions' strings in memory) are not served to the network by
// accident; a host given explicitly is taken as asked.
func pprofAddr(addr string) (string, error) {
	if addr != "" && !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", fmt.Errorf("--pprof %q: want PORT, :PORT or HOST:PORT", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// servePprof serves net/http/pprof's handlers on a listener of their own
// until ctx ends: off the API's address, its middleware and its metrics,
// so a profile taken under load sees the server as it runs.
func servePprof(ctx context.Context, addr string, log *slog.Logger) (net.Addr, error) {
	addr, err := pprofAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for --pprof %s: %w", addr, err)
	}
	// No /debug/pprof/cmdline: the command line holds the admin token
	// and the database password (pprof.Index answers it 404).
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	var h http.Handler = mux
	if ln.Addr().(*net.TCPAddr).IP.IsLoopback() {
		h = loopbackHostOnly(mux)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof server", slog.Any("error", err))
		}
	}()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		log.Warn("pprof is served beyond this machine; profiles show questions and the book", slog.String("addr", ln.Addr().String()))
	}
	log.Info("pprof", slog.String("addr", ln.Addr().String()))
	return ln.Addr(), nil
}

// loopbackHostOnly answers 403 to a request whose Host is not a loopback
// name: a web page the profiler's user visits cannot reach a listener on
// the loopback interface through a name it rebinds to 127.0.0.1.
func loopbackHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		if !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
			http.Error(w, "pprof answers only requests to a loopback host (127.0.0.1, [::1], localhost)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
