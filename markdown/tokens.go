package markdown

import (
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encErr  error
)

// CountTokens counts cl100k_base tokens. The encoding ships inside the
// binary (tiktoken-go-loader), so nothing is downloaded.
func CountTokens(s string) int {
	encOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		enc, encErr = tiktoken.GetEncoding("cl100k_base")
	})
	if encErr != nil {
		// The embedded encoding cannot fail to load; if it ever does,
		// fall back to a close estimate rather than refusing to ingest.
		return len(s) / 4
	}
	return len(enc.EncodeOrdinary(s))
}
