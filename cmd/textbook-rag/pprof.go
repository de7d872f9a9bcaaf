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
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
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
