package lexical

import (
	"reflect"
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
			for _, tok := range tokenize(tt.in) {
				got = append(got, tok.word)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
