package answer

import (
	"strings"
	"testing"
)

func TestSameJoined(t *testing.T) {
	units := func(texts ...string) []*unit {
		var us []*unit
		for _, s := range texts {
			us = append(us, &unit{text: s})
		}
		return us
	}
	tests := []struct {
		a, b []string
	}{
		{nil, nil},
		{[]string{"a"}, []string{"a"}},
		{[]string{"a"}, []string{"b"}},
		{[]string{"ab"}, []string{"a", "b"}},
		{[]string{"a\nb"}, []string{"a", "b"}},
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"a", ""}, []string{"a\n"}},
		{[]string{"a"}, []string{"a", ""}},
		{[]string{"", ""}, []string{"\n"}},
		{[]string{"same start"}, []string{"same start and more"}},
	}
	for _, tt := range tests {
		join := func(ss []string) string {
			var b strings.Builder
			for _, s := range ss {
				b.WriteString(s + "\n")
			}
			return b.String()
		}
		want := join(tt.a) == join(tt.b)
		if got := sameJoined(units(tt.a...), units(tt.b...)); got != want {
			t.Errorf("sameJoined(%q, %q) = %v, want %v", tt.a, tt.b, got, want)
		}
		if got := sameJoined(units(tt.b...), units(tt.a...)); got != want {
			t.Errorf("sameJoined(%q, %q) = %v, want %v", tt.b, tt.a, got, want)
		}
	}
}
