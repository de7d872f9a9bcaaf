package rag_test

import (
	"errors"
	"testing"

	"github.com/textbook-rag/rag"
)

func TestChatRequestNormalize(t *testing.T) {
	tests := []struct {
		name  string
		req   rag.ChatRequest
		code  string // "" when valid
		field string
	}{
		{"plain", rag.ChatRequest{Question: "What is URDF?"}, "", ""},
		{"tabs and newlines", rag.ChatRequest{Question: "What is\tURDF?\r\n", SelectedText: "line one\nline two"}, "", ""},
		{"NUL in question", rag.ChatRequest{Question: "What is URDF?\x00"}, rag.EINVALID, "question"},
		{"NUL in selected text", rag.ChatRequest{Question: "What is this?", SelectedText: "Nodes\x00talk"}, rag.EINVALID, "selected_text"},
		{"bell", rag.ChatRequest{Question: "ring\x07"}, rag.EINVALID, "question"},
		{"escape", rag.ChatRequest{Question: "\x1b[31mred"}, rag.EINVALID, "question"},
		{"DEL", rag.ChatRequest{Question: "del\x7f"}, rag.EINVALID, "question"},
		{"C1 control", rag.ChatRequest{Question: "q", SelectedText: "next\u0085line"}, rag.EINVALID, "selected_text"},
		{"vertical tab", rag.ChatRequest{Question: "a\vb"}, rag.EINVALID, "question"},
		{"blank question", rag.ChatRequest{Question: " \n"}, rag.EINVALID, ""},
		{"invalid UTF-8", rag.ChatRequest{Question: "caf\xe9"}, rag.EINVALID, ""},
		{"bad session", rag.ChatRequest{Question: "q", SessionID: "x"}, rag.EINVALID, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			err := req.Normalize()
			if got := rag.ErrorCode(err); got != tt.code {
				t.Fatalf("Normalize() = %v, want code %q", err, tt.code)
			}
			if tt.field == "" {
				return
			}
			var e *rag.Error
			if !errors.As(err, &e) || e.Details["field"] != tt.field {
				t.Errorf("error %v: details %v, want field %q", err, e, tt.field)
			}
		})
	}
}
