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
		{"upper-case session", rag.ChatRequest{Question: "q", SessionID: "3F2504E0-4F89-41D3-9A0C-0305E82C3301"}, "", ""},
		{"braced session", rag.ChatRequest{Question: "q", SessionID: "{3f2504e0-4f89-41d3-9a0c-0305e82c3301}"}, rag.EINVALID, "session_id"},
		{"urn session", rag.ChatRequest{Question: "q", SessionID: "urn:uuid:3f2504e0-4f89-41d3-9a0c-0305e82c3301"}, rag.EINVALID, "session_id"},
		{"hex session", rag.ChatRequest{Question: "q", SessionID: "3f2504e04f8941d39a0c0305e82c3301"}, rag.EINVALID, "session_id"},
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

// TestSessionUUID: only the 8-4-4-4-12 form names a session, in either
// case; the other spellings uuid.Parse accepts would give one session
// several names.
func TestSessionUUID(t *testing.T) {
	const canonical = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	tests := []struct {
		in   string
		want string // "" when rejected
	}{
		{canonical, canonical},
		{"3F2504E0-4F89-41D3-9A0C-0305E82C3301", canonical},
		{"{" + canonical + "}", ""},
		{"urn:uuid:" + canonical, ""},
		{"3f2504e04f8941d39a0c0305e82c3301", ""},
		{" " + canonical, ""},
		{"3f2504e0-4f89-41d3-9a0c-0305e82c330g", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := rag.SessionUUID(tt.in)
		if tt.want == "" {
			if rag.ErrorCode(err) != rag.EINVALID {
				t.Errorf("SessionUUID(%q) = %q, %v; want %s", tt.in, got, err, rag.EINVALID)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("SessionUUID(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
