package main

import "context"

// openBackends swaps in the production retriever and generator when they
// are configured.
func (a *App) openBackends(ctx context.Context) error { return nil }
