package page

import "testing"

func TestSlug(t *testing.T) {
	tests := map[string]string{
		"Hello World":                         "hello-world",
		"LiDAR (Light Detection and Ranging)": "lidar-light-detection-and-ranging",
		"Step 5: Match Actuators":             "step-5-match-actuators",
		"What's Next?":                        "whats-next",
		"snake_case and-dash":                 "snake_case-and-dash",
	}
	for in, want := range tests {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
