package analysis

import (
	"reflect"
	"slices"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"words", "What is a ROS 2 Topic?", []string{"what", "is", "a", "ros", "2", "topic"}},
		{"identifier", "call check_urdf now", []string{"call", "check_urdf", "check", "urdf", "now"}},
		{"range", "10-50 ms", []string{"10", "50", "ms"}},
		{"decimal", "mu of 0.5", []string{"mu", "of", "0.5"}},
		{"possessive", "the robot's arm doesn't", []string{"the", "robot", "arm", "doesn"}},
		{"flag", "use --verbose", []string{"use", "verbose"}},
		{"unicode", "Größe 1.8°", []string{"größe", "1.8"}},
		{"greek letters", "If α is 0.9, Δt grows; Ω", []string{"if", "alpha", "is", "0.9", "δt", "grows", "omega"}},
		{"camel case", "class ImuPublisher(Node)", []string{"class", "imupublisher", "imu", "publisher", "node"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, tok := range Tokenize(tt.in) {
				got = append(got, tok.Word)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCamelParts(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ImuPublisher", []string{"imu", "publisher"}},
		{"createPublisher", []string{"create", "publisher"}},
		{"QoS", nil},    // an acronym, not "qo" + "s"
		{"iPhone", nil}, // a one-letter part: a brand spelling
		{"publisher", nil},
	}
	for _, tt := range tests {
		if got := CamelParts([]rune(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("CamelParts(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
